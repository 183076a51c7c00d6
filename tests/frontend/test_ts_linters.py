"""prettier and eslint keep labextension/src in the JupyterLab extension template's shape
(config in labextension/package.json); CI runs them through this module.
Fix what they report with `cd labextension && jlpm lint`."""

from __future__ import annotations

from .jlpm import require_node_tool, run_jlpm


def test_prettier_formats_the_sources():
    require_node_tool("prettier")
    returncode, output = run_jlpm("prettier:check", timeout=300)
    assert returncode == 0, f"run `cd labextension && jlpm prettier`:\n{output[-6000:]}"


def test_eslint_finds_nothing():
    require_node_tool("eslint")
    returncode, output = run_jlpm("eslint:check", timeout=300)
    assert returncode == 0, f"run `cd labextension && jlpm eslint` and fix the rest:\n{output[-6000:]}"
