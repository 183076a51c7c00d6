"""Common base for GeoAgent handlers: auth, JSON errors, access to the app."""

from __future__ import annotations

import json
from typing import Any

from jupyter_server.base.handlers import APIHandler
from jupyter_server.extension.handler import ExtensionHandlerMixin


class GeoAgentHandler(ExtensionHandlerMixin, APIHandler):
    """APIHandler rejects requests without a valid token/cookie with 403."""

    auth_resource = "geoagent"

    def initialize(self, name: str = "geoagent_ext", *args: Any, **kwargs: Any) -> None:
        super().initialize(name, *args, **kwargs)

    @property
    def geoagent(self):
        """The GeoAgentApp instance (services live there)."""
        return self.settings["geoagent"]

    def write_json(self, payload: Any, status: int = 200) -> None:
        self.set_status(status)
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps(payload, default=str))
