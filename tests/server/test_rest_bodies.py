"""The REST answers are what openapi.json says (``handlers/responses.py``): real answers of a
server running a scripted model validate against the documented models, with no key missing
and none extra, so the panel's generated types (``rest.generated.ts``) describe what it gets."""

from __future__ import annotations

import asyncio
import json
import textwrap

import pytest
from pydantic import TypeAdapter

from geoagent_ext.config import GeoAgentSettings
from geoagent_ext.handlers.openapi import openapi_document
from geoagent_ext.handlers.responses import (
    DeleteVariablesResult,
    IndexState,
    ModelList,
    RunEvents,
    RunList,
    RunState,
    Status,
    SubtaskOutputs,
)
from geoagent_ext.status import index_state
from tests.scripted_server import scripted_server_config

SCRIPT = textwrap.dedent("""
    def reply(messages):
        if "plans Python analyses" in messages[0].text:
            return "1. Set x to forty.\\n2. Print x plus two."
        if "Your step (1 of 2)" in messages[-1].text:
            return "```python\\nx = 40\\n```"
        return "```python\\nprint(x + 2)\\n```"
""")


@pytest.fixture
def jp_server_config(geoagent_data_dir, tmp_path):
    return scripted_server_config(tmp_path, SCRIPT, max_attempts=1)


async def _json(jp_fetch, *path, body=None):
    kw = {"method": "POST", "body": json.dumps(body)} if body is not None else {}
    return json.loads((await jp_fetch("geoagent", *path, **kw)).body)


async def _settled(jp_fetch, run_id) -> RunState:
    """The run's state once it waits for the user or has finished."""
    for _ in range(450):
        state = RunState.model_validate(await _json(jp_fetch, "runs", run_id))
        if state.status != "running":
            return state
        await asyncio.sleep(0.2)
    raise AssertionError(f"run {run_id} kept running")


async def test_every_answer_is_its_documented_model(jp_fetch, jp_serverapp):
    kernel_id = await jp_serverapp.kernel_manager.start_kernel(kernel_name="python3")
    started = RunState.model_validate(await _json(jp_fetch, "runs", body={"request": "x", "kernel_id": kernel_id}))
    state = await _settled(jp_fetch, started.run_id)
    while state.waiting_for is not None:  # a subtask the scripted model cannot solve: skip it
        action = {"kind": "skip", "subtask_id": state.waiting_for.subtask_id}
        RunState.model_validate(await _json(jp_fetch, "runs", started.run_id, "actions", body=action))
        state = await _settled(jp_fetch, started.run_id)
    assert state.stats is not None and state.subtasks, state.status
    events = RunEvents.model_validate(await _json(jp_fetch, "runs", started.run_id, "events")).events
    assert events[0].type == "run_started" and events[-1].type == "finished"
    for subtask in (s for s in state.subtasks if s.status == "solved"):
        SubtaskOutputs.model_validate(await _json(jp_fetch, "runs", started.run_id, "outputs", subtask.id))
    listed = RunList.model_validate(await _json(jp_fetch, "runs"))
    assert [r.run_id for r in listed.runs] == [started.run_id]
    Status.model_validate(await _json(jp_fetch, "status"))
    models = ModelList.model_validate(await _json(jp_fetch, "models"))
    assert models.default in [m.id for m in models.models]
    undone = DeleteVariablesResult.model_validate(
        await _json(jp_fetch, "runs", started.run_id, "variables", "delete", body={})
    )
    assert undone.run_id == started.run_id and set(undone.deleted) <= set(state.variables.created)


def test_every_index_state_is_the_documented_one(tmp_path):
    states = [index_state(GeoAgentSettings(index_dir=str(tmp_path)))]  # missing
    (tmp_path / "manifest.json").write_text("{")
    states.append(index_state(GeoAgentSettings(index_dir=str(tmp_path))))  # corrupt
    (tmp_path / "manifest.json").write_text(json.dumps({"records": 3, "libraries": {"geopandas": "1.0"}}))
    states.append(index_state(GeoAgentSettings(index_dir=str(tmp_path))))  # ready
    closed = GeoAgentSettings(chroma_host="127.0.0.1", chroma_port=9)  # nothing listens on the discard port
    states.append(index_state(closed))  # unreachable
    assert [TypeAdapter(IndexState).validate_python(s)["state"] for s in states] == [
        "missing",
        "corrupt",
        "ready",
        "unreachable",
    ]


def test_a_missing_or_an_extra_key_is_not_the_documented_answer():
    answer = {"default": "m", "models": [{"id": "m", "label": "M", "provider": "p", "available": True, "detail": ""}]}
    with pytest.raises(ValueError, match="default"):
        ModelList.model_validate(answer)  # the choice lacks "default"
    answer["models"][0].update(default=True, price=0)
    with pytest.raises(ValueError, match="price"):
        ModelList.model_validate(answer)


def test_openapi_documents_the_answers_and_every_ref_resolves():
    doc = openapi_document()
    schemas = doc["components"]["schemas"]
    answer = doc["paths"]["/geoagent/runs/{run_id}"]["get"]["responses"]["200"]["content"]["application/json"]
    assert answer["schema"] == {"$ref": "#/components/schemas/RunState"}
    refs = set()

    def collect(node):
        if isinstance(node, dict):
            if isinstance(node.get("$ref"), str):
                refs.add(node["$ref"])
            for value in node.values():
                collect(value)
        elif isinstance(node, list):
            for value in node:
                collect(value)

    collect(doc)
    assert refs and all(ref.startswith("#/components/schemas/") for ref in refs), refs
    assert {ref.rsplit("/", 1)[1] for ref in refs} <= set(schemas)
