"""Run the labextension's `jlpm` scripts from pytest, with the venv's jlpm and node tools on PATH,
so one `pytest` (and CI) covers the TypeScript side too."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

LABEXTENSION = Path(__file__).resolve().parents[2] / "labextension"


def require_node_tool(name: str) -> None:
    """Fail (not skip) without the labextension's dev tools: CI must run them."""
    if not (LABEXTENSION / "node_modules" / ".bin" / name).exists():
        raise AssertionError(
            f"labextension/node_modules/.bin/{name} is missing: `pip install -e .` installs the "
            "labextension's devDependencies, or run `cd labextension && jlpm install`"
        )


def run_jlpm(*args: str, timeout: int = 600) -> tuple[int, str]:
    """`jlpm <args>` in labextension/: (exit code, stdout + stderr)."""
    venv_bin = Path(sys.executable).parent
    env = {
        **os.environ,
        "PATH": f"{venv_bin}{os.pathsep}{os.environ.get('PATH', '')}",
        "CI": "true",
        "FORCE_COLOR": "0",
    }
    result = subprocess.run(
        [str(venv_bin / "jlpm"), *args],
        cwd=LABEXTENSION,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    return result.returncode, result.stdout + result.stderr
