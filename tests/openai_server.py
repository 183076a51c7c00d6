"""A real OpenAI-compatible HTTP server for tests: llama-cpp-python's own
(``python -m llama_cpp.server``, its ``[server]`` extra) serving the local 0.5B
model on loopback, requiring an API key like a hosted endpoint does.

It is what `openai:<model>` with ``openai_base_url`` talks to in production when a
team runs vLLM, llama.cpp's server or LM Studio, so the tests exercise the real
langchain-openai client, HTTP, SSE streaming and 401s, not a stand-in.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.scripted_server import free_port, stop, wait_up

ALIAS = "qwen-coder-0.5b"  # the model name the server answers to: the spec is openai:<ALIAS>
LOCAL_MODEL = "qwen2.5-coder-0.5b"


@dataclass(frozen=True)
class OpenAIServer:
    url: str  # base URL with /v1, as a user would set openai_base_url
    key: str  # the key the server requires (no known key shape: redaction must find it by name)
    log: Path


def missing() -> str | None:
    """Why the server cannot run here, or None."""
    for module, what in (
        ("llama_cpp", "llama-cpp-python (scripts/install_local_model.sh 0.5b)"),
        ("fastapi", "llama-cpp-python's [server] extra (pip install -e '.[test]')"),
        ("langchain_openai", "langchain-openai (pip install -e '.[test]')"),
    ):
        if importlib.util.find_spec(module) is None:
            return f"{what} is not installed"
    return None


def weights_path() -> Path:
    """The joined, verified GGUF file of the local 0.5B model (joined now if needed)."""
    from geoagent_ext.config import GeoAgentSettings
    from geoagent_ext.llm.weights import ensure_weights

    return Path(ensure_weights(LOCAL_MODEL, os.path.expanduser(GeoAgentSettings().model_cache_dir)))


@contextmanager
def llama_openai_server(tmp: Path, *, n_ctx: int = 4096) -> Iterator[OpenAIServer]:
    """Start the server on a free loopback port; stop it afterwards."""
    port, key = free_port(), f"geo-{uuid.uuid4().hex}"
    log_path = tmp / "llama_server.log"
    cmd = [
        sys.executable,
        "-m",
        "llama_cpp.server",
        "--model",
        str(weights_path()),
        "--model_alias",
        ALIAS,
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--api_key",
        key,
        "--n_ctx",
        str(n_ctx),
    ]
    with open(log_path, "w") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
        url = f"http://127.0.0.1:{port}/v1"
        try:
            wait_up(f"{url}/models", {"Authorization": f"Bearer {key}"}, proc, log_path)
            yield OpenAIServer(url=url, key=key, log=log_path)
        finally:
            stop(proc)
