"""A cheap, side-effect-free summary of the configured model and index.

Used by the status endpoint and ``jupyter geoagent status``; it never loads a model
or opens the index for writing, so it is safe to call on every panel open.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from . import __version__
from .config import GeoAgentSettings


def index_state(settings: GeoAgentSettings) -> dict[str, Any]:
    """Read the manifest the index builder writes; never touch chromadb here."""
    if settings.chroma_host:
        return {"state": "remote", "location": f"{settings.chroma_host}:{settings.chroma_port}"}
    manifest = Path(settings.index_dir) / "manifest.json"
    if not manifest.exists():
        return {"state": "missing", "location": settings.index_dir,
                "hint": "run `jupyter geoagent index build`"}
    try:
        data = json.loads(manifest.read_text())
    except (OSError, ValueError) as exc:
        return {"state": "corrupt", "location": settings.index_dir, "error": str(exc),
                "hint": "run `jupyter geoagent index build --rebuild`"}
    return {"state": "ready", "location": settings.index_dir,
            "records": data.get("records", 0), "libraries": data.get("libraries", {})}


def collect_status(settings: GeoAgentSettings) -> dict[str, Any]:
    model = settings.model
    provider = model.split(":", 1)[0] if ":" in model else model
    return {
        "version": __version__,
        "model": model,
        "provider": provider,
        "inline_model": settings.inline_model or model,  # inline suggestions (own instance)
        "index": index_state(settings),
        "approval_mode": settings.approval_mode,
    }
