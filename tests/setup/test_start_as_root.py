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

import pytest
import requests

from ..browser.lab_driver import free_port
from ..scripted_server import wait_up
from .start_script import from_the_venv, start_sh

pytestmark = [
    pytest.mark.skipif(os.geteuid() != 0, reason="checks start.sh as root (CI and containers run as root)"),
    from_the_venv,
]


def test_start_sh_as_root_serves_geoagent_and_stops_cleanly(tmp_path):
    port, token = free_port(), secrets.token_hex(16)
    log_path = tmp_path / "start.log"
    process = start_sh(tmp_path, port, log_path, f"--IdentityProvider.token={token}")
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
