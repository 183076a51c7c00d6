"""Over HTTP, a step that printed megabytes gives bounded events, and its whole output is
served for its notebook cell (the panel fetches it when ``result.truncated``)."""

from __future__ import annotations

import asyncio
import json
import textwrap

import pytest
from tornado.httpclient import HTTPClientError

from geoagent_ext.agent.output_limits import FIELD_LIMIT, OUTPUTS_LIMIT
from tests.scripted_server import scripted_server_config

SCRIPT = textwrap.dedent("""
    def reply(messages):
        if "plans Python analyses" in messages[0].text:
            return "1. Print a lot."
        return "```python\\nprint('x' * 2_200_000)\\n```"
""")


@pytest.fixture
def jp_server_config(geoagent_data_dir, tmp_path):
    return scripted_server_config(tmp_path, SCRIPT, max_attempts=1, inline_warm=False)


async def test_events_are_bounded_and_the_whole_output_is_served_for_the_cell(jp_fetch, jp_serverapp):
    kernel_id = await jp_serverapp.kernel_manager.start_kernel(kernel_name="python3")
    created = await jp_fetch(
        "geoagent", "runs", method="POST", body=json.dumps({"request": "print", "kernel_id": kernel_id})
    )
    run_id = json.loads(created.body)["run_id"]
    for _ in range(450):
        state = json.loads((await jp_fetch("geoagent", "runs", run_id)).body)
        if state["status"] != "running":
            break
        await asyncio.sleep(0.2)
    assert state["status"] == "succeeded", state
    events = json.loads((await jp_fetch("geoagent", "runs", run_id, "events")).body)["events"]
    assert max(len(json.dumps(e)) for e in events) < OUTPUTS_LIMIT + FIELD_LIMIT + 20_000
    [solved] = [e for e in events if e["type"] == "solved"]
    assert (
        solved["result"]["truncated"]
        and "[output truncated: 2,200,001 characters" in solved["result"]["outputs"][0]["text"]
    )
    whole = json.loads((await jp_fetch("geoagent", "runs", run_id, "outputs", solved["subtask_id"])).body)
    assert whole["outputs"][0]["text"] == "x" * 2_200_000 + "\n"
    with pytest.raises(HTTPClientError) as missing:
        await jp_fetch("geoagent", "runs", run_id, "outputs", "no-such-step")
    assert missing.value.code == 404
