"""jupyter_server configuration for tests that run GeoAgent against a scripted model."""

from __future__ import annotations

from pathlib import Path


def scripted_server_config(tmp_path: Path, script: str, *, extensions: dict | None = None, **settings) -> dict:
    """Config loading geoagent_ext (or ``extensions``) with the model defined by ``script``
    (a module with ``reply(messages)``); ``settings`` are further GeoAgentSettings."""
    path = tmp_path / "script.py"
    path.write_text(script)
    return {
        "ServerApp": {"jpserver_extensions": extensions or {"geoagent_ext": True}},
        "GeoAgentSettings": {"model": f"scripted:{path}", **settings},
    }
