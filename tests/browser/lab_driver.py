"""Start JupyterLab and drive it in Chromium: helpers shared by browser tests.

Fixtures in conftest.py wrap these; tests import the page helpers directly
(`from lab_driver import run_palette_command`).
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS_DIR = REPO_ROOT / "test-artifacts"
SCRIPTED_MODEL = Path(__file__).resolve().parent / "scripted_model.py"

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-quic",
    "--no-first-run",
    "--disable-sync",
]

SERVER_START_TIMEOUT_S = 120
LAB_READY_TIMEOUT_MS = 90_000


def chromium_path() -> str:
    """System Chromium: $GEOAGENT_CHROMIUM, else `chromium` on PATH."""
    path = os.environ.get("GEOAGENT_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(path).exists():
        pytest.fail(f"Chromium not found at {path}: install Debian's `chromium` or set GEOAGENT_CHROMIUM")
    return path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class LabServer:
    """A running ``jupyter lab``; ``url`` ends with '/'."""

    process: subprocess.Popen
    url: str
    token: str
    root_dir: Path
    data_dir: Path
    log_path: Path
    env: dict[str, str] = field(repr=False)

    def lab_url(self, path: str = "lab") -> str:
        return f"{self.url}{path}?token={self.token}"

    def get_json(self, path: str) -> Any:
        """GET ``<base>/<path>`` with the token; raises on non-2xx."""
        request = urllib.request.Request(self.url + path.lstrip("/"), headers={"Authorization": f"token {self.token}"})
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read())

    def log_tail(self, lines: int = 60) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "<no log>"

    def stop(self) -> None:
        """Kill the server and its kernels (own process group), politely first."""
        if self.process.poll() is not None:
            return
        try:
            os.killpg(self.process.pid, signal.SIGTERM)
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=15)
        except ProcessLookupError:
            pass


def tree_labextension_args(base_dir: Path) -> list[str]:
    """Serve this tree's labextension build (``jlpm build`` writes ``geoagent_ext/labextension``).

    The venv's ``share/jupyter/labextensions/geoagent-ext`` links to the checkout it was
    installed from, which for a git worktree is another tree. JupyterLab looks in
    ``extra_labextensions_path`` first (page config, static files, settings schemas), and
    it wants a folder holding ``<package name>/package.json``: a link under ``base_dir``.
    No build here (an installed wheel): nothing to add, the installed one is served.
    """
    built = REPO_ROOT / "geoagent_ext" / "labextension"
    if not (built / "package.json").exists():
        return []
    folder = base_dir / "labextensions"
    link = folder / json.loads((built / "package.json").read_text())["name"]  # "@org/name" is two deep
    link.parent.mkdir(parents=True, exist_ok=True)
    if not link.is_symlink():
        link.symlink_to(built, target_is_directory=True)
    return [f"--LabApp.extra_labextensions_path={folder}"]


def served_labextension(server: LabServer, name: str = "geoagent-ext") -> dict:
    """The page config's entry for ``name`` (its ``load`` is ``static/remoteEntry.<hash>.js``)."""
    html = urllib.request.urlopen(server.lab_url(), timeout=30).read().decode()
    config = json.loads(re.search(r'<script id="jupyter-config-data"[^>]*>(.*?)</script>', html, re.S).group(1))
    return next((e for e in config.get("federated_extensions", []) if e["name"] == name), {})


def start_jupyterlab(
    base_dir: Path, extra_args: list[str] | None = None, extra_env: dict[str, str] | None = None
) -> LabServer:
    """Start ``jupyter lab`` from this venv and wait until its API answers.

    Workspaces, settings and runtime files go to temp dirs so every session
    starts from the default layout and never touches the developer's own.
    """
    root_dir = base_dir / "root"
    data_dir = base_dir / "geoagent-data"
    for d in (root_dir, data_dir, base_dir / "workspaces", base_dir / "settings", base_dir / "runtime"):
        d.mkdir(parents=True, exist_ok=True)
    # No "get Jupyter news?" toast over the UI under test.
    notification = base_dir / "settings" / "@jupyterlab" / "apputils-extension"
    notification.mkdir(parents=True, exist_ok=True)
    (notification / "notification.jupyterlab-settings").write_text('{"fetchNews": "false"}')
    port = free_port()
    token = secrets.token_hex(16)
    env = {
        **os.environ,
        # This tree's server extension, not another checkout's editable install (git worktrees).
        "PYTHONPATH": os.pathsep.join(p for p in (str(REPO_ROOT), os.environ.get("PYTHONPATH")) if p),
        "GEOAGENT_DATA_DIR": str(data_dir),
        "JUPYTERLAB_WORKSPACES_DIR": str(base_dir / "workspaces"),
        "JUPYTERLAB_SETTINGS_DIR": str(base_dir / "settings"),
        "JUPYTER_RUNTIME_DIR": str(base_dir / "runtime"),
        # The venv's bin first, so kernels and `jupyter` helpers are this venv's.
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        **(extra_env or {}),
    }
    args = [
        sys.executable,
        "-m",
        "jupyterlab",
        "--no-browser",
        "--ServerApp.open_browser=False",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--ServerApp.root_dir={root_dir}",
        f"--IdentityProvider.token={token}",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        # CI and these dev machines run as root in containers.
        *(["--allow-root"] if os.geteuid() == 0 else []),
        *tree_labextension_args(base_dir),
        *(extra_args or []),
    ]
    log_path = base_dir / "jupyterlab.log"
    log = log_path.open("w")
    process = subprocess.Popen(
        args,
        cwd=root_dir,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    )
    log.close()
    server = LabServer(process, f"http://127.0.0.1:{port}/", token, root_dir, data_dir, log_path, env)
    deadline = time.monotonic() + SERVER_START_TIMEOUT_S
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"jupyter lab exited with {process.returncode}:\n{server.log_tail()}")
        try:
            server.get_json("api/status")
            return server
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        if time.monotonic() > deadline:
            server.stop()
            raise RuntimeError(f"jupyter lab not ready in {SERVER_START_TIMEOUT_S}s:\n{server.log_tail()}")
        time.sleep(0.5)


def wait_for_lab(page, launcher: bool = True) -> None:
    """JupyterLab is usable once the splash screen is gone and the shell is up;
    with a fresh workspace it then opens the Launcher, the last startup step."""
    page.wait_for_selector("#jupyterlab-splash-screen", state="detached", timeout=LAB_READY_TIMEOUT_MS)
    page.wait_for_selector(".jp-LabShell", timeout=LAB_READY_TIMEOUT_MS)
    if launcher:
        page.wait_for_selector(".jp-Launcher", state="visible", timeout=LAB_READY_TIMEOUT_MS)


def run_palette_command(page, label: str, attempts: int = 3) -> None:
    """Run a command the way a user does: open the palette, search, click.

    The palette is opened from View > Command Palette: synthetic Ctrl+Shift+C
    from playwright reaches the page but JupyterLab 4.6 does not act on it in
    headless Chromium. The modal palette closes when it loses focus, and on a
    busy 2-core machine late startup work (the launcher taking focus) can
    close it under us, so opening it is retried; the command must still be
    found in the palette for this to succeed.
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    for attempt in range(attempts):
        page.locator(".lm-MenuBar-item", has_text="View").click()
        page.locator(".lm-Menu-item", has_text="Command Palette").first.click()
        search = page.locator(".lm-CommandPalette-input")
        item = page.locator(".lm-CommandPalette-item", has_text=label).first
        try:  # the palette may have closed again before it showed (focus taken), or not list the command yet,
            # or close between showing the command and the click (on a busy 2-core machine)
            search.wait_for(state="visible", timeout=10_000)
            search.fill(label)
            item.wait_for(state="visible", timeout=10_000)
            item.click(timeout=10_000)
        except PlaywrightTimeout:
            if attempt == attempts - 1:
                raise
            page.keyboard.press("Escape")
            continue
        return
