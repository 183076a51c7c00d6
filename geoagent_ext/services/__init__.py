"""The composition root: one ``GeoAgentServices`` per process holds what every face uses.

The server (``app.py``) builds it with ``GeoAgentServices.for_server`` and shares it
with its HTTP handlers and MCP tools (``services_from_settings``) and with the
Jupyter AI persona (bound on its class, as Jupyter AI's own extensions bind their
config manager); the CLI and the bench build it with ``open_headless_services``.
"""

from .headless import HeadlessSession, open_headless_services
from .knowledge import LazyKnowledgeIndex
from .models import ModelCache
from .root import SETTINGS_KEY, GeoAgentServices, run_options, services_from_settings

__all__ = [
    "SETTINGS_KEY",
    "GeoAgentServices",
    "HeadlessSession",
    "LazyKnowledgeIndex",
    "ModelCache",
    "open_headless_services",
    "run_options",
    "services_from_settings",
]
