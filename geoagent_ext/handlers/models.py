"""``GET /geoagent/models``: the choices of the panel's model picker (``llm.choices``)."""

from __future__ import annotations

from jupyter_server.auth.decorator import authorized
from tornado import web

from ..llm.choices import list_models
from .base import GeoAgentHandler


class ModelsHandler(GeoAgentHandler):
    @web.authenticated
    @authorized
    async def get(self) -> None:
        self.write_json(list_models(self.services.settings))
