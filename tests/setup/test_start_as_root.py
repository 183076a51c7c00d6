"""`scripts/start.sh` as root, the way a container runs it (issue 19).

Jupyter refuses to start as root without ``--allow-root``, which start.sh adds. The
script first runs the set-up again: on a set-up venv that must only check, so this
takes seconds. The server then answers ``/geoagent/status`` with the token (and not
without it) and stops cleanly on Jupyter's shutdown API.
"""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import requests

from ..browser.lab_driver import free_port
from ..scripted_server import wait_up

REPO_ROOT = Path(__file__).resolve().parents[2]

pytestmark = [
    pytest.mark.skipif(os.geteuid() != 0, reason="checks start.sh as root (CI and containers run as root)"),
    pytest.mark.skipif(
        Path(sys.prefix).resolve() != (REPO_ROOT / ".venv").resolve(),
        reason="start.sh sets up and runs this tree's .venv: run the tests from it",
    ),
]


def test_start_sh_as_root_serves_geoagent_and_stops_cleanly(tmp_path):
    port, token = free_port(), secrets.token_hex(16)
    (tmp_path / "root").mkdir()
    env = {k: v for k, v in os.environ.items() if k != "GEOAGENT_REINSTALL"}
    env.update(
        GEOAGENT_NOTEBOOK_DIR=str(tmp_path / "root"),
        GEOAGENT_DATA_DIR=str(tmp_path / "data"),
        # The set-up's package step is what must be a quick re-check; the model and the
        # index have their own steps and tests.
        GEOAGENT_LOCAL_MODEL="none",
        GEOAGENT_SKIP_INDEX="1",
        JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime"),
        JUPYTERLAB_WORKSPACES_DIR=str(tmp_path / "workspaces"),
    )
    log_path = tmp_path / "start.log"
    with log_path.open("w") as log:
        process = subprocess.Popen(
            [
                "bash",
                str(REPO_ROOT / "scripts" / "start.sh"),
                "--no-browser",
                "--ip",
                "127.0.0.1",
                "--port",
                str(port),
                "--ServerApp.port_retries=0",
                f"--IdentityProvider.token={token}",
                "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
            ],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    base, auth = f"http://127.0.0.1:{port}", {"Authorization": f"token {token}"}
    try:
        wait_up(f"{base}/geoagent/status", auth, process, log_path, timeout=300)
        status = requests.get(f"{base}/geoagent/status", headers=auth, timeout=30).json()
        assert status["version"] and status["model"]
        assert requests.get(f"{base}/geoagent/status", timeout=30).status_code == 403
        output = log_path.read_text()
        assert "nothing changed: not reinstalling" in output, output[-3000:]
        assert "starts with --allow-root" in output

        assert requests.post(f"{base}/api/shutdown", headers=auth, timeout=30).status_code == 200
        assert process.wait(timeout=60) == 0, log_path.read_text()[-3000:]
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=30)
