"""The runs API on a real jupyter_server with a real kernel and a scripted model."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import textwrap
import time

import pytest
from tornado.httpclient import HTTPClientError

from geoagent_ext.agent.events import Planned, RunStarted, SubtaskSpec
from geoagent_ext.agent.runlog import RunLog
from geoagent_ext.services import GeoAgentServices
from tests.kernel.conftest import stops_running, trial_child
from tests.scripted_server import scripted_server_config

SCRIPT = textwrap.dedent("""
    def reply(messages):
        system, user = messages[0].text, messages[-1].text
        if "plans Python analyses" in system:
            return "1. Set x to forty.\\n2. Print x plus two."
        if "Your step (1 of 2)" in user:
            return "```python\\nx = 40\\n```"
        if "previous attempt failed" in user:
            return "Cause: wrong name\\n```python\\nprint(x + 2)\\n```"
        return "```python\\nraise ValueError('the scripted step 2 always fails')\\n```"
""")


# Offered besides the default: a model whose loading takes a second (like joining local
# weights), and one that cannot load at all.
SLOW_LOADING = "import time\ntime.sleep(1.0)\n" + SCRIPT


# Step 2 sleeps in the live kernel only: its trial, a fork of the kernel, is no child of
# the server (this process) and returns at once.
LONG_STEP = textwrap.dedent("""
    def reply(messages):
        system, user = messages[0].text, messages[-1].text
        if "plans Python analyses" in system:
            return "1. Set x and write out.txt.\\n2. Compute y from x."
        if "Your step (1 of 2)" in user:
            return "```python\\nx = 40\\nopen('out.txt', 'w').write('forty')\\n```"
        return "```python\\nimport os, time\\nif os.getppid() == " + str(SERVER_PID) + ":\\n    time.sleep(120)\\n```"
""")


# The one step sleeps in its trial only (a fork of the kernel, whose parent is not the server).
SLEEPS_IN_TRIAL = textwrap.dedent("""
    def reply(messages):
        if "plans Python analyses" in messages[0].text:
            return "1. Count sheep slowly."
        return "```python\\nimport os, time\\nif os.getppid() != " + str(SERVER_PID) + ":\\n    time.sleep(300)\\n```"
""")


@pytest.fixture
def jp_server_config(geoagent_data_dir, tmp_path):
    (tmp_path / "slow_loading.py").write_text(SLOW_LOADING)
    (tmp_path / "long_step.py").write_text(f"SERVER_PID = {os.getpid()}\n" + LONG_STEP)
    (tmp_path / "sleeps_in_trial.py").write_text(f"SERVER_PID = {os.getpid()}\n" + SLEEPS_IN_TRIAL)
    return scripted_server_config(
        tmp_path,
        SCRIPT,
        max_attempts=1,
        extra_models=[
            f"scripted:{tmp_path / 'slow_loading.py'}",
            f"scripted:{tmp_path / 'missing.json'}",
            f"scripted:{tmp_path / 'long_step.py'}",
            f"scripted:{tmp_path / 'sleeps_in_trial.py'}",
        ],
    )


async def _kernel(jp_serverapp):
    return await jp_serverapp.kernel_manager.start_kernel(kernel_name="python3")


async def _post(jp_fetch, *path, body, **kw):
    return await jp_fetch(
        "geoagent", *path, method="POST", body=json.dumps(body) if not isinstance(body, str) else body, **kw
    )


async def _wait_state(jp_fetch, run_id, statuses, timeout=90):
    for _ in range(int(timeout * 5)):
        state = json.loads((await jp_fetch("geoagent", "runs", run_id)).body)
        if state["status"] in statuses:
            return state
        await asyncio.sleep(0.2)
    raise AssertionError(f"run stayed {state['status']}: {state}")


async def test_run_needs_human_then_edit_finishes(jp_fetch, jp_serverapp):
    kernel_id = await _kernel(jp_serverapp)
    created = json.loads((await _post(jp_fetch, "runs", body={"request": "forty-two", "kernel_id": kernel_id})).body)
    run_id = created["run_id"]
    state = await _wait_state(jp_fetch, run_id, {"needs_human", "failed", "succeeded"})
    assert state["status"] == "needs_human", state
    stuck = state["waiting_for"]["subtask_id"]
    assert [s["status"] for s in state["subtasks"]] == ["solved", "needs_human"]
    # A wrong action kind is refused with 409, a malformed one with 400.
    with pytest.raises(HTTPClientError) as bad:
        await _post(jp_fetch, "runs", run_id, "actions", body={"kind": "approve", "subtask_id": stuck})
    assert bad.value.code == 409
    with pytest.raises(HTTPClientError) as bad:
        await _post(jp_fetch, "runs", run_id, "actions", body={"kind": "dance", "subtask_id": stuck})
    assert bad.value.code == 400 and b"kind" in bad.value.response.body
    await _post(jp_fetch, "runs", run_id, "actions", body={"kind": "edit", "subtask_id": stuck, "code": "print(x + 2)"})
    state = await _wait_state(jp_fetch, run_id, {"succeeded", "failed"})
    assert state["status"] == "succeeded" and state["subtasks"][1]["by"] == "human"
    events = json.loads((await jp_fetch("geoagent", "runs", run_id, "events", params={"after": 0})).body)["events"]
    human = [e for e in events if e["type"] == "human_edit_applied"][0]
    assert human["accepted"] and human["result"]["stdout"].strip() == "42"
    listed = json.loads((await jp_fetch("geoagent", "runs")).body)["runs"]
    assert run_id in [r["run_id"] for r in listed]


async def test_stream_replays_history_then_closes(jp_fetch, jp_ws_fetch, jp_serverapp):
    kernel_id = await _kernel(jp_serverapp)
    run_id = json.loads((await _post(jp_fetch, "runs", body={"request": "x", "kernel_id": kernel_id})).body)["run_id"]
    await _wait_state(jp_fetch, run_id, {"needs_human"})
    ws = await jp_ws_fetch("geoagent", "runs", run_id, "stream", params={"after": 2})
    first = json.loads(await ws.read_message())
    assert first["seq"] == 3 and first["run_id"] == run_id
    await _post(jp_fetch, "runs", run_id, "cancel", body={})
    seen = [first]
    while True:
        msg = await ws.read_message()
        if msg is None:
            break
        seen.append(json.loads(msg))
    ws.close()
    assert seen[-1]["type"] == "finished" and seen[-1]["status"] == "cancelled"
    assert [e["seq"] for e in seen] == list(range(3, 3 + len(seen)))


async def test_two_starts_on_one_kernel_at_once_give_one_run(jp_fetch, jp_serverapp, tmp_path):
    """A double-click on Run while the model is not loaded yet: both requests used to pass
    the busy-kernel check before either run was registered (issue 18, item 1)."""
    kernel_id = await _kernel(jp_serverapp)
    body = {"request": "forty-two", "kernel_id": kernel_id, "model": f"scripted:{tmp_path / 'slow_loading.py'}"}
    answers = await asyncio.gather(
        _post(jp_fetch, "runs", body=body), _post(jp_fetch, "runs", body=body), return_exceptions=True
    )
    codes = sorted(a.code for a in answers)
    assert codes == [201, 409], answers
    refused = next(a for a in answers if isinstance(a, HTTPClientError))
    assert b"on this kernel" in refused.response.body
    runs = json.loads((await jp_fetch("geoagent", "runs")).body)["runs"]
    assert [r["kernel_id"] for r in runs] == [kernel_id]
    await _post(jp_fetch, "runs", runs[0]["run_id"], "cancel", body={})


async def test_a_start_that_fails_releases_the_kernel(jp_fetch, jp_serverapp, tmp_path):
    kernel_id = await _kernel(jp_serverapp)
    with pytest.raises(HTTPClientError) as err:
        await _post(
            jp_fetch,
            "runs",
            body={"request": "x", "kernel_id": kernel_id, "model": f"scripted:{tmp_path / 'missing.json'}"},
        )
    assert err.value.code == 400 and b"missing.json" in err.value.response.body
    created = await _post(jp_fetch, "runs", body={"request": "x", "kernel_id": kernel_id})
    assert created.code == 201
    await _post(jp_fetch, "runs", json.loads(created.body)["run_id"], "cancel", body={})


async def test_a_kernel_killed_mid_step_ends_the_run_saying_what_was_lost(
    jp_fetch, jp_serverapp, jp_root_dir, tmp_path
):
    """The run used to report the dead kernel, then wait in needs-human for a fix that
    could not run in a kernel whose variables were gone (issue 18, item 7)."""
    kernel_id = await jp_serverapp.kernel_manager.start_kernel(kernel_name="python3", path="")  # cwd: the root
    run_id = json.loads(
        (
            await _post(
                jp_fetch,
                "runs",
                body={
                    "request": "x then wait",
                    "kernel_id": kernel_id,
                    "model": f"scripted:{tmp_path / 'long_step.py'}",
                },
            )
        ).body
    )["run_id"]
    for _ in range(300):  # until step 2 runs live (its trial has passed)
        events = json.loads((await jp_fetch("geoagent", "runs", run_id, "events")).body)["events"]
        if [e for e in events if e["type"] == "executed" and e["trial"] and e["attempt"] == 1][1:]:
            break
        await asyncio.sleep(0.2)
    else:
        raise AssertionError(events)
    await asyncio.sleep(1.0)
    os.kill(jp_serverapp.kernel_manager.get_kernel(kernel_id).provisioner.pid, signal.SIGKILL)
    state = await _wait_state(jp_fetch, run_id, {"failed", "needs_human", "succeeded", "partial"}, timeout=60)
    assert state["status"] == "failed", state
    message = state["message"]
    assert "kernel was lost during step 2 (Compute y from x.)" in message, message
    assert "variables x" in message and "out.txt" in message and "1. Set x and write out.txt" in message, message
    assert [s["status"] for s in state["subtasks"]][0] == "solved"
    assert (jp_root_dir / "out.txt").read_text() == "forty"


async def _kernel_accepts_a_new_run(jp_fetch, kernel_id):
    """A new run on ``kernel_id`` is accepted (the lost run let it go); stopped once it waits."""
    created = await _post(jp_fetch, "runs", body={"request": "forty-two", "kernel_id": kernel_id})
    assert created.code == 201
    run_id = json.loads(created.body)["run_id"]
    state = await _wait_state(jp_fetch, run_id, {"needs_human", "failed", "succeeded", "partial"}, timeout=60)
    if state["status"] == "needs_human":
        await _post(jp_fetch, "runs", run_id, "cancel", body={})


def _lose_kernel(jp_serverapp, kernel_id, how):
    km = jp_serverapp.kernel_manager
    if how == "killed":
        os.kill(km.get_kernel(kernel_id).provisioner.pid, signal.SIGKILL)  # the server restarts it
        return None
    return asyncio.ensure_future(km.restart_kernel(kernel_id))


@pytest.mark.parametrize("how", ["killed", "restarted"])
async def test_a_kernel_lost_while_the_run_waits_for_a_human_ends_the_run_at_once(jp_fetch, jp_serverapp, how):
    """No fix a human sends can run without the lost ``x``, and a waiting run holds its kernel."""
    kernel_id = await _kernel(jp_serverapp)
    run_id = json.loads((await _post(jp_fetch, "runs", body={"request": "forty-two", "kernel_id": kernel_id})).body)[
        "run_id"
    ]
    state = await _wait_state(jp_fetch, run_id, {"needs_human", "failed", "succeeded"})
    assert state["status"] == "needs_human", state
    restart = _lose_kernel(jp_serverapp, kernel_id, how)
    t0 = time.monotonic()
    state = await _wait_state(jp_fetch, run_id, {"failed", "succeeded", "partial"}, timeout=15)
    assert state["status"] == "failed" and time.monotonic() - t0 < 8, state
    message = state["message"]
    assert "kernel was lost during step 2 (Print x plus two.)" in message and "variables x" in message, message
    if restart is not None:
        await restart
    await _kernel_accepts_a_new_run(jp_fetch, kernel_id)


async def test_a_kernel_killed_during_a_trial_ends_the_run_and_the_trial(jp_fetch, jp_serverapp, tmp_path):
    """The trial used to run on, orphaned, to its time limit, and the run held the kernel meanwhile."""
    kernel_id = await _kernel(jp_serverapp)
    run_id = json.loads(
        (
            await _post(
                jp_fetch,
                "runs",
                body={
                    "request": "wait",
                    "kernel_id": kernel_id,
                    "model": f"scripted:{tmp_path / 'sleeps_in_trial.py'}",
                },
            )
        ).body
    )["run_id"]
    kernel_pid = jp_serverapp.kernel_manager.get_kernel(kernel_id).provisioner.pid
    child = await trial_child(kernel_pid)
    await asyncio.sleep(1.0)  # past the fork's answer (milliseconds): the run waits for the trial
    os.kill(kernel_pid, signal.SIGKILL)
    t0 = time.monotonic()
    state = await _wait_state(jp_fetch, run_id, {"failed", "succeeded", "partial", "needs_human"}, timeout=15)
    assert state["status"] == "failed" and time.monotonic() - t0 < 8, state
    assert "kernel was lost during step 1 (Count sheep slowly.)" in state["message"], state["message"]
    assert await stops_running(child, within=3)
    await _kernel_accepts_a_new_run(jp_fetch, kernel_id)


@pytest.mark.parametrize(
    "body,fragment",
    [
        ("{not json", b"not valid JSON"),
        ("[1, 2]", b"JSON object"),
        ({"kernel_id": "k"}, b"request"),
        ({"request": "x", "kernel_id": "k", "colour": "red"}, b"colour"),
        ({"request": "x"}, b"notebook_path"),
        ({"request": "x", "kernel_id": "nope"}, b"no running kernel"),
        ({"request": "x", "notebook_path": "closed.ipynb"}, b"No running kernel session"),
        ({"request": "x", "kernel_id": "nope", "max_attempts": 0}, b"max_attempts"),
    ],
)
async def test_bad_requests_get_clear_4xx(jp_fetch, body, fragment):
    with pytest.raises(HTTPClientError) as err:
        await _post(jp_fetch, "runs", body=body)
    assert 400 <= err.value.code < 500
    assert fragment in err.value.response.body


async def test_unknown_run_is_404_and_auth_is_required(jp_fetch):
    with pytest.raises(HTTPClientError) as err:
        await jp_fetch("geoagent", "runs", "doesnotexist")
    assert err.value.code == 404
    for path in (("runs",), ("openapi.json",), ("runs", "abc", "events")):
        with pytest.raises(HTTPClientError) as err:
            await jp_fetch("geoagent", *path, headers={"Authorization": ""})
        assert err.value.code == 403


async def test_run_on_a_notebook_session(jp_fetch, jp_serverapp, jp_root_dir):
    session = await jp_serverapp.session_manager.create_session(
        path="work/nb.ipynb", kernel_name="python3", type="notebook"
    )
    created = json.loads((await _post(jp_fetch, "runs", body={"request": "x", "notebook_path": "work/nb.ipynb"})).body)
    assert created["kernel_id"] == session["kernel"]["id"]
    await _wait_state(jp_fetch, created["run_id"], {"needs_human"})
    logs = list((jp_root_dir / "work" / ".geoagent" / "runs").glob("*.jsonl"))
    assert [p.stem for p in logs] == [created["run_id"]]
    await _post(jp_fetch, "runs", created["run_id"], "cancel", body={})


async def test_runs_survive_a_restart_and_cut_runs_show_interrupted(geoagent_data_dir, tmp_path):
    from geoagent_ext.config import GeoAgentSettings

    settings = GeoAgentSettings()
    first = GeoAgentServices(settings, kernel_manager={}, root_dir=tmp_path).run_manager
    log = RunLog(tmp_path / "logs" / "r1.jsonl")
    log.append(RunStarted(run_id="r1", seq=1, request="cut off", model="m"))
    log.append(Planned(run_id="r1", seq=2, subtasks=[SubtaskSpec(id="s1", description="step")]))
    log.close()
    first.registry.parent.mkdir(parents=True, exist_ok=True)
    first.registry.write_text(json.dumps({"run_id": "r1", "log": str(log.path)}) + "\n")
    second = GeoAgentServices(settings, kernel_manager={}, root_dir=tmp_path).run_manager  # the "restarted" server
    [row] = second.list()
    assert row["run_id"] == "r1" and row["status"] == "interrupted" and row["subtasks"][0]["description"] == "step"
    assert [e.type for e in second.events("r1")] == ["run_started", "planned"]


async def test_openapi_document_lists_the_runs_api(jp_fetch):
    doc = json.loads((await jp_fetch("geoagent", "openapi.json")).body)
    assert doc["openapi"].startswith("3.") and "/geoagent/runs/{run_id}/actions" in doc["paths"]
    assert "StartRunRequest" in doc["components"]["schemas"]
