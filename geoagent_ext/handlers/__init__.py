"""HTTP and WebSocket handlers under ``/geoagent/`` (all behind Jupyter's auth)."""

from __future__ import annotations

from .status import StatusHandler


def make_handlers() -> list[tuple[str, type]]:
    """Routes relative to the server's base_url (ExtensionApp joins them)."""
    return [
        (r"/geoagent/status", StatusHandler),
    ]
