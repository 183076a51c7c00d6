"""Undoing a run in its kernel over the runs API: the variables it created are deleted, never while
a run works on the kernel, and only as the run left them (issue 20)."""

from __future__ import annotations

import json

import pytest
from tornado.httpclient import HTTPClientError

from tests.scripted_server import scripted_server_config

from .test_runs import SCRIPT, _kernel, _post, _wait_state


@pytest.fixture
def jp_server_config(geoagent_data_dir, tmp_path):
    return scripted_server_config(tmp_path, SCRIPT, max_attempts=1)


async def _delete(jp_fetch, run_id, body=None):
    return json.loads((await _post(jp_fetch, "runs", run_id, "variables", "delete", body=body or {})).body)


async def test_delete_the_variables_a_run_created_once_it_has_finished(jp_fetch, jp_serverapp):
    kernel_id = await _kernel(jp_serverapp)
    run_id = json.loads((await _post(jp_fetch, "runs", body={"request": "forty-two", "kernel_id": kernel_id})).body)[
        "run_id"
    ]
    state = await _wait_state(jp_fetch, run_id, {"needs_human", "failed", "succeeded"})
    assert state["status"] == "needs_human", state
    assert state["variables"]["created"].keys() == {"x"}
    # Not while the run works on the kernel: its next step may need them.
    with pytest.raises(HTTPClientError) as busy:
        await _delete(jp_fetch, run_id)
    assert busy.value.code == 409 and b"working on this kernel" in busy.value.response.body
    await _post(
        jp_fetch,
        "runs",
        run_id,
        "actions",
        body={"kind": "edit", "subtask_id": state["waiting_for"]["subtask_id"], "code": "y = x + 2\nprint(y)"},
    )
    state = await _wait_state(jp_fetch, run_id, {"succeeded", "failed"})
    assert sorted(state["variables"]["created"]) == ["x", "y"], state["variables"]
    events = json.loads((await jp_fetch("geoagent", "runs", run_id, "events")).body)["events"]
    assert [e["created"] for e in events if e["type"] == "namespace_changed"] == [["x"], ["y"]]
    with pytest.raises(HTTPClientError) as unknown:
        await _delete(jp_fetch, run_id, {"names": ["nope"]})
    assert unknown.value.code == 400 and b"did not create nope" in unknown.value.response.body
    with pytest.raises(HTTPClientError) as anonymous:
        await jp_fetch(
            "geoagent", "runs", run_id, "variables", "delete", method="POST", body="{}", headers={"Authorization": ""}
        )
    assert anonymous.value.code == 403

    answer = await _delete(jp_fetch, run_id, {"names": ["y"]})
    assert answer["deleted"] == ["y"] and answer["kept"] == {}
    answer = await _delete(jp_fetch, run_id)
    assert answer["deleted"] == ["x"] and answer["kept"] == {"y": "not in the kernel anymore"}
