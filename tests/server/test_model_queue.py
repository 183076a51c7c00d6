"""Concurrent runs on one server share a serial model fairly (``llm.queue``): a real
jupyter_server, three kernels, a scripted model that serves one call at a time (it fails
any call that skips the line) and takes 0.6 s a call, and a 1 s call timeout that the
third run's wait alone (1.2 s) would exceed if waiting counted."""

from __future__ import annotations

import asyncio
import json
import textwrap

import pytest

from geoagent_ext.agent.events import parse_event
from geoagent_ext.agent.state import fold
from geoagent_ext.llm.queue import queue_for
from tests.scripted_server import scripted_server_config

SCRIPT = textwrap.dedent("""
    SERIAL = True
    DELAY = 0.6

    def reply(messages):
        system = messages[0].text
        if "plans Python analyses" in system:
            return "1. Set x to forty-two."
        if "reviewing" in system:
            return "OK"
        return "```python\\nx = 42\\n```"
""")


@pytest.fixture
def jp_server_config(geoagent_data_dir, tmp_path):
    return scripted_server_config(tmp_path, SCRIPT, max_attempts=1, llm_timeout=1)


async def _wait_done(jp_fetch, run_id, timeout=120):
    for _ in range(timeout * 5):
        state = json.loads((await jp_fetch("geoagent", "runs", run_id)).body)
        if state["status"] not in ("running", "starting"):
            return state
        await asyncio.sleep(0.2)
    raise AssertionError(state)


async def test_concurrent_runs_wait_their_turn_and_say_their_place(jp_fetch, jp_serverapp):
    kernels = [await jp_serverapp.kernel_manager.start_kernel(kernel_name="python3") for _ in range(3)]
    services = jp_serverapp.web_app.settings["geoagent"]
    line = queue_for(await services.chat_model(services.model_spec(None)))
    run_ids = []
    async with line.turn():  # the model is busy (as with another user's call) until all three wait
        for kernel_id in kernels:
            answer = await jp_fetch(
                "geoagent", "runs", method="POST", body=json.dumps({"request": "forty-two", "kernel_id": kernel_id})
            )
            run_ids.append(json.loads(answer.body)["run_id"])
            for _ in range(1200):  # its planning call is in line: the next run comes after it
                if line.waiting == len(run_ids):
                    break
                await asyncio.sleep(0.05)
            assert line.waiting == len(run_ids), "the run's call did not wait in the model's line"
        # Each run's state says where it stands.
        live = [json.loads((await jp_fetch("geoagent", "runs", r)).body)["model_waiting"] for r in run_ids]
        assert live == [1, 2, 3]
    states = [await _wait_done(jp_fetch, run_id) for run_id in run_ids]
    assert [s["status"] for s in states] == ["succeeded"] * 3, states
    places = []
    for run_id in run_ids:
        events = json.loads((await jp_fetch("geoagent", "runs", run_id, "events")).body)["events"]
        places.append([e["place"] for e in events if e["type"] == "model_waiting"])
        assert fold([parse_event(e) for e in events])["model_waiting"] is None  # the end clears it
    # The planning calls were served first come, first served, each counting down to its turn;
    # the third waited 1.2 s after the hold, longer than the 1 s call timeout.
    assert [p[: n + 1] for n, p in enumerate(places, 1)] == [[1, 0], [2, 1, 0], [3, 2, 1, 0]], places
    # A timed-out call would have been retried: every run made the same calls.
    assert len({s["stats"]["llm_calls"] for s in states}) == 1, [s["stats"] for s in states]
