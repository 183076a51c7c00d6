"""``/geoagent/active-notebook``: which notebook the user is looking at, as the frontend reports it.

The chat persona runs server-side and cannot see the browser's current tab, so
the labextension POSTs the active notebook's path whenever it changes (``null``
when no notebook is active) and the persona starts runs there. It lives on the
RunManager because that is what the persona already reaches.
"""

from __future__ import annotations

import posixpath

from jupyter_core.utils import ensure_async
from jupyter_server.auth.decorator import authorized
from pydantic import BaseModel, ConfigDict, Field
from tornado import web

from .runs import RunsAPIHandler


class ActiveNotebookRequest(BaseModel):
    """The notebook now active in JupyterLab (an API path as in the URL), or null for none."""

    model_config = ConfigDict(extra="forbid")

    path: str | None = Field(..., max_length=4096, description="Notebook path relative to the server root, or null.")


def clean_notebook_path(path: str) -> str:
    """Normalise an API path; ValueError with a reason when it cannot be a notebook under the root."""
    if "\x00" in path:
        raise ValueError("the path contains a NUL character")
    clean = posixpath.normpath(path.strip().replace("\\", "/")).strip("/")
    if not clean or clean == "." or clean.startswith("../") or clean == "..":
        raise ValueError(f"{path!r} is not a path under the server root")
    if not clean.endswith(".ipynb"):
        raise ValueError(f"{path!r} is not a notebook (.ipynb)")
    return clean


# For merging into GET /geoagent/openapi.json (handlers/openapi.py).
OPENAPI_PATHS = {
    "/geoagent/active-notebook": {
        "get": {
            "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object"}}}}}
        },
        "post": {
            "requestBody": {
                "required": True,
                "content": {"application/json": {"schema": ActiveNotebookRequest.model_json_schema()}},
            },
            "responses": {
                "200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object"}}}},
                "400": {"description": "error", "content": {"application/json": {"schema": {"type": "object"}}}},
                "404": {"description": "error", "content": {"application/json": {"schema": {"type": "object"}}}},
            },
        },
    }
}


class ActiveNotebookHandler(RunsAPIHandler):
    @web.authenticated
    @authorized
    async def get(self) -> None:
        self.write_json({"path": self.manager.active_notebook})

    @web.authenticated
    @authorized
    async def post(self) -> None:
        body = self.parse_body(ActiveNotebookRequest)
        path = None
        if body.path is not None:
            try:
                path = clean_notebook_path(body.path)
            except ValueError as exc:
                raise web.HTTPError(400, str(exc)) from None
            try:
                exists = await ensure_async(self.contents_manager.file_exists(path))
            except Exception:  # hidden or odd paths make some contents managers raise
                exists = False
            if not exists:
                raise web.HTTPError(404, f"no notebook at {path!r}")
        self.manager.active_notebook = path
        self.write_json({"path": path})
