"""A real chroma server for tests and benchmarks: chromadb's own ``chroma run`` CLI (from the
installed chromadb package) on a free loopback port, persisting to a temp directory.

It is what a team's shared index is in production (README, "Shared index"), so the tests
exercise chromadb's real HTTP client against the real server, not a stand-in.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import requests

from tests.scripted_server import free_port

START_TIMEOUT_S = 120  # importing chromadb takes ~10 s on a busy 2-core box


@dataclass
class ChromaServer:
    path: Path  # its --path (the data survives a restart)
    port: int
    log: Path
    proc: subprocess.Popen | None = field(default=None, repr=False)
    host: str = "127.0.0.1"

    @property
    def settings(self) -> dict:
        """The GeoAgentSettings a user's server needs for this index (README, "Shared index")."""
        return {"chroma_host": self.host, "chroma_port": self.port}

    def start(self) -> None:
        chroma = Path(sys.executable).with_name("chroma")
        with open(self.log, "a") as log:
            self.proc = subprocess.Popen(
                [str(chroma), "run", "--path", str(self.path), "--host", self.host, "--port", str(self.port)],
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"chroma run exited:\n{self.log.read_text()[-3000:]}")
            try:
                if requests.get(f"http://{self.host}:{self.port}/api/v2/heartbeat", timeout=2).ok:
                    return
            except requests.ConnectionError:
                pass
            time.sleep(0.3)
        self.kill()
        raise AssertionError(f"chroma run did not come up:\n{self.log.read_text()[-3000:]}")

    def kill(self) -> None:
        """Gone at once, as a crashed or unplugged server would be."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=30)
        self.proc = None


@contextmanager
def chroma_server(tmp: Path) -> Iterator[ChromaServer]:
    server = ChromaServer(path=tmp / "chroma-data", port=free_port(), log=tmp / "chroma.log")
    server.start()
    try:
        yield server
    finally:
        server.kill()
