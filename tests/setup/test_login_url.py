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
import time
from pathlib import Path

import requests

from ..scripted_server import free_port
from .start_script import from_the_venv, start_sh

START_TIMEOUT_S = 300  # the set-up's re-check, then JupyterLab's start on a busy 2-core box

pytestmark = from_the_venv


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
    process = start_sh(tmp_path, port, log_path, "--GeoAgentSettings.inline_warm=False")
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
