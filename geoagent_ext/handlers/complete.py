"""Inline cell suggestions: ``POST /geoagent/complete`` and ``WS /geoagent/complete/stream``.

The panel's inline completer uses the websocket: one socket per page serves
every keystroke (no handshake and auth per request), the suggestion streams
as it is generated, and the server hears "cancel" at once when the user types
on, even through proxies that buffer chunked HTTP responses. A new request on
the socket cancels the one before it: a user has one cursor, and a stale
suggestion must not keep the (local) model busy.

Socket protocol (JSON text frames):
  client: {"type": "complete", "id": "c7", <CompletionRequest fields>}
          {"type": "cancel", "id": "c7"}
          {"type": "warm", "id": "w1"}   suggestions were turned on: load the inline model now
  server: {"type": "text", "id": "c7", "text": "<whole suggestion so far>"}
          {"type": "done", "id": "c7", "text": "...", "seconds": 0.4, "context": {...}}
          {"type": "error", "id": "c7", "message": "..."}

``POST /geoagent/complete`` answers the same request with the finished
suggestion in one JSON body (scripts, tests, clients without websockets).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from jupyter_core.utils import ensure_async
from jupyter_server.auth.decorator import authorized, ws_authenticated
from jupyter_server.base.handlers import JupyterHandler
from jupyter_server.base.websocket import WebSocketMixin
from tornado import web
from tornado.websocket import WebSocketClosedError, WebSocketHandler

from ..completion import CompletionRequest
from ..completion.service import Suggestion
from ..llm.client import LLMError
from ..runs import RunManagerError
from ..services import services_from_settings
from .body import BadBody, json_object, validated
from .runs import RunsAPIHandler


def _payload(suggestion: Suggestion) -> dict[str, Any]:
    return {
        "text": suggestion.text,
        "seconds": suggestion.seconds,
        "first_token_s": suggestion.first_token_s,
        "first_text_s": suggestion.first_text_s,
        "context": suggestion.context.counts(),
    }


class CompleteHandler(RunsAPIHandler):
    """One-shot suggestion (JSON errors and never-500 from RunsAPIHandler)."""

    @web.authenticated
    @authorized
    async def post(self) -> None:
        body = self.parse_body(CompletionRequest)
        try:
            suggestion = await self.services.completer.complete(body)
        except LLMError as exc:  # already redacted by the llm layer
            raise web.HTTPError(502, f"the model failed: {exc}") from None
        self.write_json(_payload(suggestion))


class CompleteStreamHandler(WebSocketMixin, WebSocketHandler, JupyterHandler):
    auth_resource = "geoagent"

    def set_default_headers(self) -> None:
        """JupyterHandler's headers make no sense on a websocket."""

    @ws_authenticated
    async def get(self, *args: Any, **kwargs: Any):
        # Suggestions read the kernel's variables and use the model: "write", like POST.
        allowed = await ensure_async(
            self.authorizer.is_authorized(self, self.current_user, "write", self.auth_resource)
        )
        if not allowed:
            raise web.HTTPError(403)
        self._task: asyncio.Task | None = None
        self._task_id: str | None = None
        return await super().get(*args, **kwargs)

    def open(self, *args: Any, **kwargs: Any) -> None:  # type: ignore[override]
        super().open()

    def _send(self, payload: dict[str, Any]) -> None:
        try:
            self.write_message(json.dumps(payload))
        except WebSocketClosedError:
            pass

    def _cancel_current(self) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()
        self._task, self._task_id = None, None

    def on_message(self, message: str | bytes) -> None:
        try:
            data = json_object(message, "a message")
        except BadBody as exc:
            self._send({"type": "error", "id": None, "message": str(exc)})
            return
        kind, request_id = data.pop("type", None), data.pop("id", None)
        if not isinstance(request_id, str) or not request_id:
            self._send({"type": "error", "id": None, "message": "every message needs a string id"})
            return
        if kind == "cancel":
            if request_id == self._task_id:
                self._cancel_current()
            return
        if kind == "warm":
            services_from_settings(self.settings).completer.warm_in_background()
            return
        if kind != "complete":
            self._send(
                {
                    "type": "error",
                    "id": request_id,
                    "message": f"unknown message type {kind!r}; use complete, cancel or warm",
                }
            )
            return
        try:
            request = validated(CompletionRequest, data)
        except BadBody as exc:
            self._send({"type": "error", "id": request_id, "message": str(exc)})
            return
        self._cancel_current()  # the user typed on: the older suggestion is stale
        self._task_id = request_id
        self._task = asyncio.ensure_future(self._complete(request_id, request))

    async def _complete(self, request_id: str, request: CompletionRequest) -> None:
        suggestion = Suggestion()
        completer = services_from_settings(self.settings).completer
        try:
            async for text in completer.stream(request, suggestion):
                self._send({"type": "text", "id": request_id, "text": text})
            self._send({"type": "done", "id": request_id, **_payload(suggestion)})
        except asyncio.CancelledError:
            return  # cancelled by the client or by a newer request: say nothing
        except (RunManagerError, LLMError) as exc:
            self._send({"type": "error", "id": request_id, "message": str(exc)})
        except Exception:
            self.log.error("GeoAgent: completion failed", exc_info=True)
            self._send(
                {"type": "error", "id": request_id, "message": "internal error in GeoAgent (see the server log)"}
            )

    def on_close(self) -> None:
        self._cancel_current()
