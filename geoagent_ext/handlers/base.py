"""Common base for GeoAgent handlers: auth, JSON errors, access to the services."""

from __future__ import annotations

import json
from typing import Any

from jupyter_server.base.handlers import APIHandler
from jupyter_server.extension.handler import ExtensionHandlerMixin

from ..services import GeoAgentServices, services_from_settings


class GeoAgentHandler(ExtensionHandlerMixin, APIHandler):
    """APIHandler rejects requests without a valid token/cookie with 403."""

    auth_resource = "geoagent"

    def initialize(self, name: str = "geoagent_ext", *args: Any, **kwargs: Any) -> None:
        super().initialize(name, *args, **kwargs)

    @property
    def services(self) -> GeoAgentServices:
        """The server's services (built by ``app.py``)."""
        return services_from_settings(self.settings)

    def write_json(self, payload: Any, status: int = 200) -> None:
        self.set_status(status)
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps(payload, default=str))
