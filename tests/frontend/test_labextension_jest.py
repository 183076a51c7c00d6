"""Run the labextension's jest suite from pytest, so one `pytest` (and CI)
covers the TypeScript unit tests too. The suite itself lives in
labextension/src/__tests__ and runs alone with `cd labextension && jlpm test`.
"""

from __future__ import annotations

import re

from .jlpm import require_node_tool, run_jlpm


def test_jest_suite_passes():
    require_node_tool("jest")
    returncode, output = run_jlpm("test", "--ci")
    assert returncode == 0, output[-6000:]
    summary = re.search(r"Tests:\s+(.*)", output)
    assert summary and "failed" not in summary.group(1), output[-6000:]
    passed = int(re.search(r"(\d+) passed", summary.group(1)).group(1))
    assert passed >= 10, summary.group(0)
