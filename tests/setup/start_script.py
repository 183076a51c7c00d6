"""``scripts/start.sh`` run as a user runs it, for the tests that start the whole product."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]

# start.sh sets up and runs this tree's .venv: a test of it runs from that venv.
from_the_venv = pytest.mark.skipif(
    Path(sys.prefix).resolve() != (REPO_ROOT / ".venv").resolve(),
    reason="start.sh sets up and runs this tree's .venv: run the tests from it",
)


def start_sh(tmp_path: Path, port: int, log_path: Path, *args: str) -> subprocess.Popen:
    """start.sh with ``--no-browser`` on 127.0.0.1:``port``, its output in ``log_path``, in its own
    session (kill it with ``os.killpg``). Its set-up only checks: no local model, no index (those have
    their own steps and tests); notebooks, data and runtime files go under ``tmp_path``."""
    (tmp_path / "root").mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("GEOAGENT_REINSTALL", "JUPYTER_TOKEN")}
    env.update(
        GEOAGENT_NOTEBOOK_DIR=str(tmp_path / "root"),
        GEOAGENT_DATA_DIR=str(tmp_path / "data"),
        GEOAGENT_LOCAL_MODEL="none",
        GEOAGENT_SKIP_INDEX="1",
        JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime"),
        JUPYTERLAB_WORKSPACES_DIR=str(tmp_path / "workspaces"),
    )
    command = [
        "bash",
        str(REPO_ROOT / "scripts" / "start.sh"),
        "--no-browser",
        "--ip",
        "127.0.0.1",
        "--port",
        str(port),
        "--ServerApp.port_retries=0",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        *args,
    ]
    with log_path.open("w") as log:
        return subprocess.Popen(
            command, env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True
        )
