"""The login URL that `scripts/start.sh --no-browser` prints works (README, "Two commands").

With ``--no-browser`` (every container, every remote machine) the URL with the server's
generated token is the only way in, so GeoAgent's log redaction must leave it whole. The
set-up inside start.sh only checks here (no model, no index): this takes seconds.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

from ..scripted_server import free_port

REPO_ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT_S = 300  # the set-up's re-check, then JupyterLab's start on a busy 2-core box

pytestmark = pytest.mark.skipif(
    Path(sys.prefix).resolve() != (REPO_ROOT / ".venv").resolve(),
    reason="start.sh sets up and runs this tree's .venv: run the tests from it",
)


def start_sh(tmp_path: Path, port: int, log_path: Path) -> subprocess.Popen:
    """start.sh as a user runs it, with no token of ours: Jupyter generates and prints one."""
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
    with log_path.open("w") as log:
        return subprocess.Popen(
            [
                "bash",
                str(REPO_ROOT / "scripts" / "start.sh"),
                "--no-browser",
                "--ip",
                "127.0.0.1",
                "--port",
                str(port),
                "--ServerApp.port_retries=0",
                "--GeoAgentSettings.inline_warm=False",
                "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
            ],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )


def printed_login_urls(process: subprocess.Popen, log_path: Path, port: int) -> list[str]:
    """Every ``http://127.0.0.1:<port>/lab?token=...`` the server printed, once it printed them."""
    pattern = re.compile(rf"http://127\.0\.0\.1:{port}/lab\?token=\S+")
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        output = log_path.read_text()
        if "copy and paste one of these URLs" in output and pattern.search(output):
            return pattern.findall(output)
        assert process.poll() is None, f"start.sh exited:\n{output[-3000:]}"
        time.sleep(0.5)
    raise AssertionError(f"no login URL printed:\n{log_path.read_text()[-3000:]}")


def test_the_printed_login_url_logs_in(tmp_path):
    port, log_path = free_port(), tmp_path / "start.log"
    process = start_sh(tmp_path, port, log_path)
    base = f"http://127.0.0.1:{port}"
    try:
        urls = printed_login_urls(process, log_path, port)
        assert len(set(urls)) == 1, urls  # the info line and the "copy and paste" line
        url = urls[0]
        token = url.split("?token=", 1)[1]
        assert re.fullmatch(r"[0-9a-f]{32,}", token), url  # the generated token, not [REDACTED]
        assert requests.get(url, timeout=30).status_code == 200
        assert requests.get(f"{base}/api/status", params={"token": token}, timeout=30).status_code == 200
        assert requests.get(f"{base}/api/status", timeout=30).status_code == 403
        assert requests.get(f"{base}/lab", timeout=30, allow_redirects=False).status_code == 302
        auth = {"Authorization": f"token {token}"}
        assert requests.post(f"{base}/api/shutdown", headers=auth, timeout=30).status_code == 200
        assert process.wait(timeout=60) == 0, log_path.read_text()[-3000:]
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=30)
