"""A request may only pick a model the server lists at /geoagent/models (issue 18, item 5).

A model spec can be code: ``scripted:/file.py`` imports that file inside the
server process, which holds the API keys. Real server, real kernel, scripted
models; the "attacker's" file records whether it was ever imported.
"""

from __future__ import annotations

import json
import textwrap

import pytest
from tornado.httpclient import HTTPClientError

from tests.scripted_server import scripted_server_config

SCRIPT = textwrap.dedent("""
    def reply(messages):
        if "plans Python analyses" in messages[0].text:
            return "1. Set x."
        return "```python\\nx = 1\\n```"
""")


def _evil(tmp_path):
    """A Python file that leaves a mark if the server ever imports it."""
    marker = tmp_path / "imported.txt"
    evil = tmp_path / "evil.py"
    evil.write_text(
        f"open({str(marker)!r}, 'w').write('the server ran me')\ndef reply(messages):\n    return 'x = 1'\n"
    )
    return evil, marker


@pytest.fixture
def jp_server_config(geoagent_data_dir, tmp_path):
    extra = tmp_path / "extra.json"
    extra.write_text(json.dumps({"replies": ["1. Set y.", "```python\ny = 2\n```", "y"], "cycle": True}))
    return scripted_server_config(tmp_path, SCRIPT, max_attempts=1, extra_models=[f"scripted:{extra}"])


async def _post(jp_fetch, *path, body):
    return await jp_fetch("geoagent", *path, method="POST", body=json.dumps(body))


async def test_a_request_cannot_make_the_server_import_a_file(jp_fetch, jp_ws_fetch, jp_serverapp, tmp_path):
    evil, marker = _evil(tmp_path)
    kernel_id = await jp_serverapp.kernel_manager.start_kernel(kernel_name="python3")
    for path, body in (
        (("runs",), {"request": "x", "kernel_id": kernel_id, "model": f"scripted:{evil}"}),
        (("complete",), {"cell_text_before": "x = ", "model": f"scripted:{evil}"}),
    ):
        with pytest.raises(HTTPClientError) as err:
            await _post(jp_fetch, *path, body=body)
        assert err.value.code == 400, err.value.response.body
        message = json.loads(err.value.response.body)["message"]
        assert "not offered" in message and "/geoagent/models" in message, message
    ws = await jp_ws_fetch("geoagent", "complete", "stream")
    ws.write_message(
        json.dumps({"type": "complete", "id": "c1", "model": f"scripted:{evil}", "cell_text_before": "x = "})
    )
    reply = json.loads(await ws.read_message())
    ws.close()
    assert reply["type"] == "error" and reply["id"] == "c1" and "not offered" in reply["message"], reply
    assert not marker.exists(), "the server imported a file a request named"
    assert json.loads((await jp_fetch("geoagent", "runs")).body)["runs"] == []


async def test_a_request_may_pick_any_model_the_server_lists(jp_fetch, jp_serverapp, tmp_path):
    listed = json.loads((await jp_fetch("geoagent", "models")).body)
    extra = f"scripted:{tmp_path / 'extra.json'}"
    entry = next(m for m in listed["models"] if m["id"] == extra)
    assert entry["available"] and not entry["default"]
    kernel_id = await jp_serverapp.kernel_manager.start_kernel(kernel_name="python3")
    created = await _post(jp_fetch, "runs", body={"request": "y", "kernel_id": kernel_id, "model": extra})
    assert created.code == 201 and json.loads(created.body)["model"] == extra
    await _post(jp_fetch, "runs", json.loads(created.body)["run_id"], "cancel", body={})
    done = await _post(jp_fetch, "complete", body={"cell_text_before": "x = ", "model": listed["default"]})
    assert done.code == 200
    # Close to a listed id is not a listed id: specs are compared exactly.
    with pytest.raises(HTTPClientError) as err:
        await _post(jp_fetch, "runs", body={"request": "y", "kernel_id": kernel_id, "model": extra.upper()})
    assert err.value.code == 400
