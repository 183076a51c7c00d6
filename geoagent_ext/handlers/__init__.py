"""HTTP and WebSocket handlers under ``/geoagent/`` (all behind Jupyter's auth)."""

from __future__ import annotations

from .active import ActiveNotebookHandler
from .complete import CompleteHandler, CompleteStreamHandler
from .models import ModelsHandler
from .openapi import OpenAPIHandler
from .runs import (
    RUN_ID,
    SUBTASK_ID,
    RunActionHandler,
    RunCancelHandler,
    RunEventsHandler,
    RunHandler,
    RunOutputsHandler,
    RunsHandler,
    RunVariablesDeleteHandler,
)
from .status import StatusHandler
from .stream import RunStreamHandler


def make_handlers() -> list[tuple[str, type]]:
    """Routes relative to the server's base_url (ExtensionApp joins them)."""
    return [
        (r"/geoagent/status", StatusHandler),
        (r"/geoagent/openapi.json", OpenAPIHandler),
        (r"/geoagent/runs", RunsHandler),
        (rf"/geoagent/runs/{RUN_ID}", RunHandler),
        (rf"/geoagent/runs/{RUN_ID}/events", RunEventsHandler),
        (rf"/geoagent/runs/{RUN_ID}/outputs/{SUBTASK_ID}", RunOutputsHandler),
        (rf"/geoagent/runs/{RUN_ID}/actions", RunActionHandler),
        (rf"/geoagent/runs/{RUN_ID}/cancel", RunCancelHandler),
        (rf"/geoagent/runs/{RUN_ID}/stream", RunStreamHandler),
        (rf"/geoagent/runs/{RUN_ID}/variables/delete", RunVariablesDeleteHandler),
        (r"/geoagent/active-notebook", ActiveNotebookHandler),
        (r"/geoagent/models", ModelsHandler),
        (r"/geoagent/complete", CompleteHandler),
        (r"/geoagent/complete/stream", CompleteStreamHandler),
    ]
