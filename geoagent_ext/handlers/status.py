"""``GET /geoagent/status``: what the panel shows first."""

from __future__ import annotations

import asyncio

from jupyter_server.auth.decorator import authorized
from tornado import web

from .. import __version__
from ..status import collect_status
from .base import GeoAgentHandler


class StatusHandler(GeoAgentHandler):
    @web.authenticated
    @authorized
    async def get(self) -> None:
        # In a worker: with a shared index it asks the chroma server (up to REMOTE_CHECK_S).
        status = await asyncio.to_thread(collect_status, self.services.settings)
        status["version"] = __version__
        status["kernels"] = self.services.placement  # local, or a gateway and its limits
        status["mcp_url"] = self.services.mcp_url  # None without jupyter_server_mcp
        status["inline_loaded"] = self.services.completer.loaded  # suggestions on, or one answered
        self.write_json(status)
