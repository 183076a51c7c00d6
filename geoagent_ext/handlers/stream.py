"""``WS /geoagent/runs/<id>/stream?after=N``: a run's events, history first, then live.

Replaying first means a reopened panel (or a reconnect after a network blip)
catches up from ``after`` without a second request; the socket closes itself
after the ``finished`` event.
"""

from __future__ import annotations

import json

from jupyter_core.utils import ensure_async
from jupyter_server.auth.decorator import ws_authenticated
from jupyter_server.base.handlers import JupyterHandler
from jupyter_server.base.websocket import WebSocketMixin
from tornado import web
from tornado.websocket import WebSocketClosedError, WebSocketHandler

from ..agent.events import TERMINAL_TYPES
from ..services import services_from_settings


class RunStreamHandler(WebSocketMixin, WebSocketHandler, JupyterHandler):
    auth_resource = "geoagent"

    def set_default_headers(self) -> None:
        """JupyterHandler's headers make no sense on a websocket."""

    @ws_authenticated
    async def get(self, run_id: str):
        authorized = await ensure_async(
            self.authorizer.is_authorized(self, self.current_user, "read", self.auth_resource)
        )
        if not authorized:
            raise web.HTTPError(403)
        manager = services_from_settings(self.settings).run_manager
        try:
            self.after = int(self.get_argument("after", "0"))
        except ValueError:
            raise web.HTTPError(400, "after must be an integer") from None
        self.run_obj = manager.get(run_id)
        if self.run_obj is None:
            try:
                self.past = manager.events(run_id, self.after)
            except Exception:
                raise web.HTTPError(404, f"no run {run_id!r}") from None
        return await super().get(run_id)

    async def open(self, run_id: str):  # type: ignore[override]
        super().open()
        try:
            if self.run_obj is None:
                for event in self.past:
                    await self.write_message(event.model_dump_json())
                self.close()
                return
            async for event in self.run_obj.bus.subscribe(replay=True, after_seq=self.after):
                await self.write_message(event.model_dump_json())
                if event.type in TERMINAL_TYPES:
                    break
            self.close()
        except WebSocketClosedError:
            return

    def on_message(self, message):  # the stream is one-way; actions go through REST
        self.write_message(json.dumps({"error": "this socket only streams events; use POST .../actions"}))
