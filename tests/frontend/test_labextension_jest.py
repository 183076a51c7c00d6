"""Run the labextension's jest suite from pytest, so one `pytest` (and CI)
covers the TypeScript unit tests too. The suite itself lives in
labextension/src/__tests__ and runs alone with `cd labextension && jlpm test`.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

LABEXTENSION = Path(__file__).resolve().parents[2] / "labextension"


def test_jest_suite_passes():
    if not (LABEXTENSION / "node_modules" / ".bin" / "jest").exists():
        raise AssertionError(
            "labextension/node_modules is missing: `pip install -e .` installs it, "
            "or run `cd labextension && jlpm install`"
        )
    venv_bin = Path(sys.executable).parent
    env = {**os.environ, "PATH": f"{venv_bin}{os.pathsep}{os.environ.get('PATH', '')}", "CI": "true"}
    result = subprocess.run(
        [str(venv_bin / "jlpm"), "test", "--ci"],
        cwd=LABEXTENSION,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-6000:]
    summary = re.search(r"Tests:\s+(.*)", output)
    assert summary and "failed" not in summary.group(1), output[-6000:]
    passed = int(re.search(r"(\d+) passed", summary.group(1)).group(1))
    assert passed >= 10, summary.group(0)
