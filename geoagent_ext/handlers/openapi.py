"""``GET /geoagent/openapi.json``: the REST part of the API, generated from the pydantic schemas."""

from __future__ import annotations

from jupyter_server.auth.decorator import authorized
from tornado import web

from .. import __version__
from ..completion import CompletionRequest
from ..runs import ActionRequest, DeleteVariablesRequest, StartRunRequest
from .active import OPENAPI_PATHS as ACTIVE_NOTEBOOK_PATHS
from .base import GeoAgentHandler


def openapi_document() -> dict:
    def body(model):
        return {
            "required": True,
            "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{model.__name__}"}}},
        }

    error = {
        "description": "error",
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
    }
    run_id = {
        "name": "run_id",
        "in": "path",
        "required": True,
        "schema": {"type": "string", "pattern": "^[A-Za-z0-9_-]{1,64}$"},
    }
    ok = {"description": "ok", "content": {"application/json": {"schema": {"type": "object"}}}}
    schemas = {
        m.__name__: m.model_json_schema(ref_template="#/components/schemas/{model}")
        for m in (StartRunRequest, ActionRequest, DeleteVariablesRequest, CompletionRequest)
    }
    schemas["Error"] = {"type": "object", "properties": {"message": {"type": "string"}, "status": {"type": "integer"}}}
    return {
        "openapi": "3.0.3",
        "info": {"title": "GeoAgent", "version": __version__},
        "components": {
            "schemas": schemas,
            "securitySchemes": {"token": {"type": "apiKey", "in": "header", "name": "Authorization"}},
        },
        "security": [{"token": []}],
        "paths": {
            "/geoagent/status": {"get": {"responses": {"200": ok}}},
            "/geoagent/runs": {
                "get": {"responses": {"200": ok}},
                "post": {
                    "requestBody": body(StartRunRequest),
                    "responses": {"201": ok, "400": error, "404": error, "409": error},
                },
            },
            "/geoagent/runs/{run_id}": {"get": {"parameters": [run_id], "responses": {"200": ok, "404": error}}},
            "/geoagent/runs/{run_id}/events": {
                "get": {
                    "parameters": [run_id, {"name": "after", "in": "query", "schema": {"type": "integer"}}],
                    "responses": {"200": ok, "400": error, "404": error},
                }
            },
            "/geoagent/runs/{run_id}/outputs/{subtask_id}": {
                "get": {
                    "parameters": [run_id, {**run_id, "name": "subtask_id"}],
                    "responses": {"200": ok, "404": error},
                }
            },
            "/geoagent/runs/{run_id}/actions": {
                "post": {
                    "parameters": [run_id],
                    "requestBody": body(ActionRequest),
                    "responses": {"200": ok, "400": error, "404": error, "409": error},
                }
            },
            "/geoagent/runs/{run_id}/cancel": {
                "post": {"parameters": [run_id], "responses": {"202": ok, "404": error, "409": error}}
            },
            "/geoagent/runs/{run_id}/variables/delete": {
                "post": {
                    "parameters": [run_id],
                    "requestBody": body(DeleteVariablesRequest),
                    "responses": {"200": ok, "400": error, "404": error, "409": error},
                }
            },
            "/geoagent/models": {"get": {"responses": {"200": ok}}},
            "/geoagent/complete": {
                "post": {
                    "requestBody": body(CompletionRequest),
                    "responses": {"200": ok, "400": error, "404": error, "409": error, "503": error},
                }
            },
            **ACTIVE_NOTEBOOK_PATHS,
        },
    }


class OpenAPIHandler(GeoAgentHandler):
    @web.authenticated
    @authorized
    async def get(self) -> None:
        self.write_json(openapi_document())
