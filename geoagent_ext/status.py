"""A cheap, side-effect-free summary of the configured model and index.

Used by the status endpoint and ``jupyter geoagent status``; it never loads a model
or opens the index for writing, so it is safe to call on every panel open.

A shared index (``chroma_host``) is asked, not assumed: a few read-only requests to the
chroma server's REST API, within ``REMOTE_CHECK_S`` in all, say whether it answers and
holds this index. Plain HTTP rather than chromadb's client: importing chromadb takes
seconds, and its ``get_or_create`` calls would create what status only looks for.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from . import __version__
from .config import GeoAgentSettings

REMOTE_CHECK_S = 2.0  # the whole look at a chroma server: status never hangs on one
# What rag/store.py writes on a chroma server (a test keeps these equal to its names).
API_COLLECTION, MANIFEST_COLLECTION, MANIFEST_ID = "geoagent_api", "geoagent_manifest", "manifest"
CHROMA_DATABASE = "/tenants/default_tenant/databases/default_database"  # chromadb's HttpClient default


class ChromaServer:
    """Read-only GETs/POSTs to a chroma server's v2 REST API, all within one deadline."""

    def __init__(self, settings: GeoAgentSettings, budget: float = REMOTE_CHECK_S) -> None:
        scheme = "https" if settings.chroma_ssl else "http"
        self.base = f"{scheme}://{settings.chroma_host}:{settings.chroma_port}/api/v2"
        self.deadline = time.monotonic() + budget

    def call(self, path: str, body: dict | None = None) -> Any:
        """The JSON answer; None for 404 (no such collection); OSError when it does not answer."""
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("no answer within the status check's time")
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=left) as answer:
                return json.loads(answer.read())
        except urllib.error.HTTPError as exc:
            if exc.code == 404:
                return None
            raise

    def check_alive(self) -> None:
        """Raise unless a chroma server answers there (another web server's 404 is not one)."""
        if not isinstance(self.call("/heartbeat"), dict):
            raise ConnectionError("no chroma server answers there")

    def collection_id(self, name: str) -> str | None:
        found = self.call(f"{CHROMA_DATABASE}/collections/{name}")
        return found["id"] if found else None

    def records(self) -> int:
        """How many records the API collection holds (0 when there is none)."""
        ident = self.collection_id(API_COLLECTION)
        return int(self.call(f"{CHROMA_DATABASE}/collections/{ident}/count")) if ident else 0

    def manifest(self) -> str | None:
        """The manifest a finished build wrote (None: never built, or a build under way)."""
        ident = self.collection_id(MANIFEST_COLLECTION)
        if not ident:
            return None
        got = self.call(f"{CHROMA_DATABASE}/collections/{ident}/get", {"ids": [MANIFEST_ID], "include": ["documents"]})
        return got["documents"][0] if got and got.get("documents") else None


def remote_index_state(settings: GeoAgentSettings, budget: float = REMOTE_CHECK_S) -> dict[str, Any]:
    """``remote`` when the chroma server answers and holds a built index, ``empty`` when it
    answers without one, ``unreachable`` when it does not answer within ``budget``."""
    location = f"{settings.chroma_host}:{settings.chroma_port}"
    server = ChromaServer(settings, budget)
    try:
        server.check_alive()
        records, manifest = server.records(), server.manifest()
    except (OSError, ValueError, KeyError, TypeError) as exc:  # refused, timed out, not chroma's answer
        return {
            "state": "unreachable",
            "location": location,
            "error": f"{type(exc).__name__}: {exc}",
            "hint": "check `chroma_host`/`chroma_port` and that the chroma server is up",
        }
    if not records or manifest is None:
        build = (
            f"jupyter geoagent --config chroma_host={settings.chroma_host} "
            f"--config chroma_port={settings.chroma_port} index build"
        )
        return {"state": "empty", "location": location, "records": records, "hint": f"build the index on it: `{build}`"}
    try:
        libraries = json.loads(manifest)["libraries"]
    except (ValueError, KeyError, TypeError) as exc:
        return {
            "state": "corrupt",
            "location": location,
            "error": f"unreadable manifest ({exc})",
            "hint": "rebuild it: `jupyter geoagent index build --rebuild` with the same --config",
        }
    return {"state": "remote", "location": location, "records": records, "libraries": libraries}


def index_state(settings: GeoAgentSettings) -> dict[str, Any]:
    """Read the manifest the index builder writes; never touch chromadb here."""
    if settings.chroma_host:
        return remote_index_state(settings)
    manifest = Path(settings.index_dir) / "manifest.json"
    if not manifest.exists():
        return {"state": "missing", "location": settings.index_dir, "hint": "run `jupyter geoagent index build`"}
    try:
        data = json.loads(manifest.read_text())
    except (OSError, ValueError) as exc:
        return {
            "state": "corrupt",
            "location": settings.index_dir,
            "error": str(exc),
            "hint": "run `jupyter geoagent index build --rebuild`",
        }
    return {
        "state": "ready",
        "location": settings.index_dir,
        "records": data.get("records", 0),
        "libraries": data.get("libraries", {}),
    }


def collect_status(settings: GeoAgentSettings) -> dict[str, Any]:
    from .llm.choices import inline_model_spec  # lazy: the CLI imports this module before any model

    model = settings.model
    provider = model.split(":", 1)[0] if ":" in model else model
    return {
        "version": __version__,
        "model": model,
        "provider": provider,
        "inline_model": inline_model_spec(settings),  # inline suggestions (own instance)
        "index": index_state(settings),
        "approval_mode": settings.approval_mode,
    }
