"""``GET /geoagent/openapi.json``: the REST part of the API, generated from the pydantic schemas.

The request and response bodies are also one JSON schema (``rest_schema_text``), from which
``jlpm build:types`` (in ``labextension/``) writes the panel's ``src/runs/rest.generated.ts``;
tests/frontend/test_generated_types.py fails when that file drifts from the models.
"""

from __future__ import annotations

import json
from typing import Any

from jupyter_server.auth.decorator import authorized
from pydantic import BaseModel
from pydantic.json_schema import GenerateJsonSchema, models_json_schema
from tornado import web

from .. import __version__
from ..completion import CompletionRequest
from ..runs import ActionRequest, DeleteVariablesRequest, StartRunRequest
from .active import OPENAPI_PATHS as ACTIVE_NOTEBOOK_PATHS
from .base import GeoAgentHandler
from .responses import (
    RESPONSE_BODIES,
    DeleteVariablesResult,
    ModelList,
    RunEvents,
    RunList,
    RunState,
    Status,
    SubtaskOutputs,
)

REQUEST_BODIES: tuple[type[BaseModel], ...] = (
    StartRunRequest,
    ActionRequest,
    DeleteVariablesRequest,
    CompletionRequest,
)


class _NoFieldTitles(GenerateJsonSchema):
    """No per-field titles: type generators turn each titled field into a type of its own."""

    def field_title_should_be_set(self, schema) -> bool:
        return False


def body_schemas(ref_template: str = "#/components/schemas/{model}") -> dict[str, Any]:
    """Every request and response body and the models they use, by name, with refs between them."""
    _, top = models_json_schema(
        [(m, "validation") for m in REQUEST_BODIES] + [(m, "serialization") for m in RESPONSE_BODIES],
        ref_template=ref_template,
        schema_generator=_NoFieldTitles,
    )
    return top["$defs"]


def rest_schema_text() -> str:
    """The bodies as one JSON schema, as stable text: ``RestBody``, the union of them all, with
    their models in ``$defs``. What the TS generator reads and what its header's hash covers."""
    schema = {
        "title": "RestBody",
        "oneOf": [{"$ref": f"#/$defs/{m.__name__}"} for m in REQUEST_BODIES + RESPONSE_BODIES],
        "$defs": body_schemas("#/$defs/{model}"),
    }
    return json.dumps(schema, indent=1, ensure_ascii=False) + "\n"


def openapi_document() -> dict:
    def body(model):
        return {
            "required": True,
            "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{model.__name__}"}}},
        }

    def answer(model):
        return {
            "description": "ok",
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
    schemas = body_schemas()
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
            "/geoagent/status": {"get": {"responses": {"200": answer(Status)}}},
            "/geoagent/runs": {
                "get": {"responses": {"200": answer(RunList)}},
                "post": {
                    "requestBody": body(StartRunRequest),
                    "responses": {"201": answer(RunState), "400": error, "404": error, "409": error},
                },
            },
            "/geoagent/runs/{run_id}": {
                "get": {"parameters": [run_id], "responses": {"200": answer(RunState), "404": error}}
            },
            "/geoagent/runs/{run_id}/events": {
                "get": {
                    "parameters": [run_id, {"name": "after", "in": "query", "schema": {"type": "integer"}}],
                    "responses": {"200": answer(RunEvents), "400": error, "404": error},
                }
            },
            "/geoagent/runs/{run_id}/outputs/{subtask_id}": {
                "get": {
                    "parameters": [run_id, {**run_id, "name": "subtask_id"}],
                    "responses": {"200": answer(SubtaskOutputs), "404": error},
                }
            },
            "/geoagent/runs/{run_id}/actions": {
                "post": {
                    "parameters": [run_id],
                    "requestBody": body(ActionRequest),
                    "responses": {"200": answer(RunState), "400": error, "404": error, "409": error},
                }
            },
            "/geoagent/runs/{run_id}/cancel": {
                "post": {"parameters": [run_id], "responses": {"202": ok, "404": error, "409": error}}
            },
            "/geoagent/runs/{run_id}/variables/delete": {
                "post": {
                    "parameters": [run_id],
                    "requestBody": body(DeleteVariablesRequest),
                    "responses": {"200": answer(DeleteVariablesResult), "400": error, "404": error, "409": error},
                }
            },
            "/geoagent/models": {"get": {"responses": {"200": answer(ModelList)}}},
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
