"""jupyter_server configuration for tests that run GeoAgent against a scripted model."""

from __future__ import annotations

import json
import os
import secrets
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import requests


def scripted_server_config(tmp_path: Path, script: str, *, extensions: dict | None = None, **settings) -> dict:
    """Config loading geoagent_ext (or ``extensions``) with the model defined by ``script``
    (a module with ``reply(messages)``), for runs and inline suggestions alike; ``settings`` are
    further GeoAgentSettings."""
    path = tmp_path / "script.py"
    path.write_text(script)
    return {
        "ServerApp": {"jpserver_extensions": extensions or {"geoagent_ext": True}},
        "GeoAgentSettings": {"model": f"scripted:{path}", "inline_model": f"scripted:{path}", **settings},
    }


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_up(url: str, headers: dict, proc: subprocess.Popen, log_path: Path, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"server exited:\n{log_path.read_text()[-3000:]}")
        try:
            if requests.get(url, headers=headers, timeout=5).status_code == 200:
                return
        except requests.ConnectionError:
            pass
        time.sleep(0.5)
    raise AssertionError(f"server did not come up:\n{log_path.read_text()[-3000:]}")


def stop(proc: subprocess.Popen) -> None:
    """Terminate a server process; kill it if it has not exited within 30 s."""
    proc.terminate()
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()


@contextmanager
def server_process(tmp: Path, config: dict, env: dict | None = None) -> Iterator[tuple[str, dict, Path, int]]:
    """A real ``jupyter server`` in a subprocess (for blocking HTTP clients, or a server that
    must be a process of its own): ``config`` is merged into a token-protected config
    serving ``tmp/root``; ``env`` adds variables to its *initial* environment. Yields
    (base_url, auth headers, server log path, server pid); the server stops afterwards."""
    (tmp / "root").mkdir(exist_ok=True)
    port, token = free_port(), secrets.token_hex(16)
    full = {
        **config,
        "ServerApp": {
            "port": port,
            "ip": "127.0.0.1",
            "allow_root": True,
            "open_browser": False,
            "root_dir": str(tmp / "root"),
            "port_retries": 0,
            **config.get("ServerApp", {}),
        },
        "IdentityProvider": {"token": token},
    }
    (tmp / "config.json").write_text(json.dumps(full))
    full_env = {
        **os.environ,
        "JUPYTER_NO_CONFIG": "1",
        "GEOAGENT_DATA_DIR": str(tmp / "data"),
        "JUPYTER_DATA_DIR": str(tmp / "jdata"),
        "JUPYTER_RUNTIME_DIR": str(tmp / "runtime"),
        **(env or {}),
    }
    log_path = tmp / "server.log"
    log = open(log_path, "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "jupyter_server", f"--config={tmp / 'config.json'}"],
        env=full_env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base, auth = f"http://127.0.0.1:{port}", {"Authorization": f"token {token}"}
    try:
        wait_up(f"{base}/geoagent/status", auth, proc, log_path)
        yield base, auth, log_path, proc.pid
    finally:
        stop(proc)
        log.close()
