"""The Python linters, run by CI as tests: ruff (lint and format), mypy on the core packages and
the import-linter layer contract. Their configuration is pyproject.toml's; a failure shows the
tool's own report."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent  # the tools come with the `test` extra, in the same environment


def _run(tool: str, *args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """``tool`` run in ``cwd``, whose ``geoagent_ext`` is the one analysed (it comes first on the path)."""
    executable = BIN / tool
    if not executable.exists():
        pytest.fail(f"{tool} is not installed in {BIN}: install the test extra (bash scripts/setup.sh)")
    # NO_COLOR: plain reports in the failure message.
    env = {**os.environ, "NO_COLOR": "1", "PYTHONPATH": str(cwd)}
    return subprocess.run(
        [str(executable), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600, check=False
    )


def _assert_passes(result: subprocess.CompletedProcess[str]) -> None:
    assert result.returncode == 0, f"{' '.join(result.args)} failed:\n{result.stdout}\n{result.stderr}"


def test_ruff_check_finds_nothing():
    _assert_passes(_run("ruff", "check", "--no-cache", "."))


def test_ruff_format_leaves_every_file_as_it_is():
    _assert_passes(_run("ruff", "format", "--check", "--no-cache", "."))


def test_mypy_passes_on_the_core_packages():
    _assert_passes(_run("mypy"))  # the files are pyproject.toml's [tool.mypy] files


def test_imports_follow_the_layers():
    _assert_passes(_run("lint-imports", "--no-cache"))


def test_the_layer_contract_catches_an_upward_import(tmp_path):
    """The contract is live: in a copy of the package, a kernel module importing the services breaks it."""
    copy = tmp_path / "geoagent_ext"
    shutil.copytree(ROOT / "geoagent_ext", copy, ignore=shutil.ignore_patterns("__pycache__", "labextension"))
    (copy / "kernel" / "upward.py").write_text("from ..services import GeoAgentServices\n")
    result = _run("lint-imports", "--config", str(ROOT / "pyproject.toml"), "--no-cache", cwd=tmp_path)
    assert result.returncode != 0, result.stdout
    assert "geoagent_ext.kernel.upward -> geoagent_ext.services" in result.stdout, result.stdout
