"""REST endpoints for runs: start, list, inspect, act, cancel (all behind Jupyter's auth)."""

from __future__ import annotations

import json
from typing import Any

from jupyter_server.auth.decorator import authorized
from pydantic import BaseModel
from tornado import web

from ..runs import ActionRequest, DeleteVariablesRequest, RunManagerError, StartRunRequest
from .base import GeoAgentHandler
from .body import BadBody, json_object, validated

RUN_ID = r"(?P<run_id>[A-Za-z0-9_\-]{1,64})"
SUBTASK_ID = r"(?P<subtask_id>[A-Za-z0-9_\-]{1,64})"


class RunsAPIHandler(GeoAgentHandler):
    """Turns bad input and manager refusals into clear JSON errors, never a 500."""

    @property
    def manager(self):
        return self.services.run_manager

    def parse_body(self, model: type[BaseModel]) -> Any:
        try:
            return validated(model, json_object(self.request.body))
        except BadBody as exc:
            raise web.HTTPError(400, str(exc)) from None

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        exc = kwargs.get("exc_info", (None, None, None))[1]
        if isinstance(exc, RunManagerError):
            status_code = exc.status
            message = str(exc)
        elif isinstance(exc, web.HTTPError):
            message = exc.log_message or exc.reason or ""
        else:
            self.log.error("GeoAgent: unexpected error", exc_info=kwargs.get("exc_info"))
            message = "internal error in GeoAgent (see the server log)"
        self.set_status(status_code)
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps({"message": message, "status": status_code}))

    def _handle_request_exception(self, e: BaseException) -> None:
        if isinstance(e, RunManagerError):
            self.send_error(e.status, exc_info=(type(e), e, e.__traceback__))
            return
        super()._handle_request_exception(e)


class RunsHandler(RunsAPIHandler):
    @web.authenticated
    @authorized
    async def get(self) -> None:
        self.write_json({"runs": self.manager.list()})

    @web.authenticated
    @authorized
    async def post(self) -> None:
        body = self.parse_body(StartRunRequest)
        run = await self.manager.start(body)
        self.write_json(self.manager.state(run.id), status=201)


class RunHandler(RunsAPIHandler):
    @web.authenticated
    @authorized
    async def get(self, run_id: str) -> None:
        self.write_json(self.manager.state(run_id))


class RunEventsHandler(RunsAPIHandler):
    @web.authenticated
    @authorized
    async def get(self, run_id: str) -> None:
        try:
            after = int(self.get_argument("after", "0"))
        except ValueError:
            raise web.HTTPError(400, "after must be an integer") from None
        events = self.manager.events(run_id, after)
        self.write_json({"events": [e.model_dump(mode="json") for e in events]})


class RunOutputsHandler(RunsAPIHandler):
    """The whole outputs of a live run's accepted step, for its notebook cell: its events carry
    them bounded (``agent/output_limits``, ``ExecutionSummary.truncated``)."""

    @web.authenticated
    @authorized
    async def get(self, run_id: str, subtask_id: str) -> None:
        run = self.manager.get(run_id)
        outputs = run.full_outputs(subtask_id) if run is not None else None
        if outputs is None:
            raise web.HTTPError(404, f"no accepted step {subtask_id!r} in a live run {run_id!r}")
        self.write_json({"run_id": run_id, "subtask_id": subtask_id, "outputs": outputs})


class RunActionHandler(RunsAPIHandler):
    @web.authenticated
    @authorized
    async def post(self, run_id: str) -> None:
        body = self.parse_body(ActionRequest)
        self.manager.act(run_id, body)
        self.write_json(self.manager.state(run_id))


class RunCancelHandler(RunsAPIHandler):
    @web.authenticated
    @authorized
    async def post(self, run_id: str) -> None:
        self.manager.cancel(run_id)
        self.write_json({"run_id": run_id, "cancelling": True}, status=202)


class RunVariablesDeleteHandler(RunsAPIHandler):
    """Undo a finished run in its kernel: delete the variables it created (``DeleteVariablesRequest``)."""

    @web.authenticated
    @authorized
    async def post(self, run_id: str) -> None:
        body = self.parse_body(DeleteVariablesRequest)
        self.write_json(await self.manager.delete_variables(run_id, body))
