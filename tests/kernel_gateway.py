"""A real ``jupyter kernelgateway`` on a free loopback port, for tests and the benchmark.

Its kernels are started by the gateway process, not by the Jupyter server under test, so
they have the gateway's environment and working directory (like kernels on another host).
"""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.scripted_server import free_port, stop, wait_up


@contextmanager
def kernel_gateway(root: Path, log_path: Path, env: dict | None = None) -> Iterator[tuple[str, str]]:
    """Yields (url, auth token); kernels start in ``root``. ``env`` is the gateway's own
    environment on top of a minimal one (the server's keys are not in it)."""
    port, token = free_port(), secrets.token_hex(16)
    base_env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR", "PYTHONPATH")}
    full_env = {
        **base_env,
        "JUPYTER_NO_CONFIG": "1",
        "JUPYTER_RUNTIME_DIR": str(log_path.parent / "kg-runtime"),
        **(env or {}),
    }
    log = open(log_path, "w")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "kernel_gateway",
            "--KernelGatewayApp.ip=127.0.0.1",
            f"--KernelGatewayApp.port={port}",
            "--KernelGatewayApp.port_retries=0",
            f"--KernelGatewayApp.auth_token={token}",
            "--JupyterWebsocketPersonality.list_kernels=True",
        ],
        cwd=root,
        env=full_env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_up(f"{url}/api/kernelspecs", {"Authorization": f"token {token}"}, proc, log_path)
        yield url, token
    finally:
        stop(proc)
        log.close()
