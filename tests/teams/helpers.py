"""HTTP steps on a real ``jupyter server`` subprocess (``tests.scripted_server.server_process``)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import requests

from tests.chroma_server import ChromaServer

LIBRARY = "pystac-client"  # a small library: its index builds in seconds


def build_shared_index(chroma: ChromaServer, data_dir: Path) -> None:
    """The index of LIBRARY built into the chroma server by the CLI, as README's "Shared index" says."""
    cli = subprocess.run(
        [
            sys.executable,
            "-m",
            "geoagent_ext.cli.main",
            "--config",
            f"chroma_host={chroma.host}",
            "--config",
            f"chroma_port={chroma.port}",
            "index",
            "build",
            "--libraries",
            LIBRARY,
        ],
        env={**os.environ, "GEOAGENT_DATA_DIR": str(data_dir)},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert cli.returncode == 0, cli.stderr[-3000:]
    assert f"chroma server {chroma.host}:{chroma.port}" in cli.stderr, cli.stderr[-3000:]


@dataclass
class User:
    """One user's server, as JupyterHub would spawn it: own process, root dir and data dir."""

    base: str
    auth: dict

    def call(self, method: str, path: str, body=None, ok: bool = True, timeout: float = 60):
        answer = requests.request(method, f"{self.base}/{path}", headers=self.auth, json=body, timeout=timeout)
        if ok:
            assert answer.ok, f"{method} {path}: {answer.status_code} {answer.text}"
        return answer

    def open_notebook(self, name: str) -> str:
        """A notebook with a running kernel (a session), as JupyterLab makes when it opens one."""
        content = {"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
        self.call("PUT", f"api/contents/{name}", {"type": "notebook", "format": "json", "content": content})
        session = self.call(
            "POST", "api/sessions", {"path": name, "type": "notebook", "name": name, "kernel": {"name": "python3"}}
        ).json()
        return session["kernel"]["id"]

    def start_run(self, request: str, notebook: str) -> str:
        return self.call("POST", "geoagent/runs", {"request": request, "notebook_path": notebook}).json()["run_id"]

    def wait_run(self, run_id: str, timeout: float = 180) -> dict:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            state = self.call("GET", f"geoagent/runs/{run_id}").json()
            if state["status"] not in ("running", "starting"):
                return state
            time.sleep(0.3)
        raise AssertionError(f"run {run_id} still {state['status']}: {state}")

    def events(self, run_id: str) -> list[dict]:
        return self.call("GET", f"geoagent/runs/{run_id}/events").json()["events"]
