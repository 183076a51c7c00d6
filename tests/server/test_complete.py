"""Inline suggestions: the completion endpoints on a real server, kernel and scripted model,
plus the pieces (context budget, reply cleaning) on their own."""

from __future__ import annotations

import asyncio
import json
import textwrap
import time

import pytest
from tornado.httpclient import HTTPClientError

from geoagent_ext.completion import ContextGatherer, clean_completion, completion_messages
from geoagent_ext.completion.context import attribute_at_cursor
from tests.scripted_server import scripted_server_config

# Answers like a chat model would: fenced, repeating the line being typed; it names
# `to_csv` only if the prompt showed the DataFrame's real members.
SCRIPT = textwrap.dedent("""
    def reply(messages):
        user = messages[-1].text
        if "code completion" not in messages[0].text:
            return "1. Do it."
        if "Members of `parcels`" in user and "to_csv(" in user and "parcels: " in user:
            return "```python\\nparcels.to_csv('parcels.csv')\\n```"
        if "crs = " in user:
            return "```python\\ncrs = 'EPSG:3035'\\nprint(crs)\\n```"
        return "```python\\npass\\n```"
""")

SLOW_SCRIPT = 'DELAY = 2.0\ndef reply(messages):\n    return "late_value = 1"\n'


@pytest.fixture
def jp_server_config(geoagent_data_dir, tmp_path):
    # The slow model is offered by configuration: a request may only pick listed models.
    return scripted_server_config(tmp_path, SCRIPT, extra_models=[f"scripted:{tmp_path / 'slow.py'}"])


def _app(jp_serverapp):
    return jp_serverapp.web_app.settings["geoagent"]


async def _kernel_with_parcels(jp_serverapp) -> str:
    kernel_id = await jp_serverapp.kernel_manager.start_kernel(kernel_name="python3")
    kernels = _app(jp_serverapp).run_manager.kernels
    await kernels.execute(kernel_id, "import pandas as pd\nparcels = pd.DataFrame({'area': [1.5, 2.0]})")
    await kernels.variables(kernel_id)  # installs the probe helper, so the budget below is about the model
    _app(jp_serverapp).completer.context.budget = 30  # a loaded 2-core box must not drop the context
    return kernel_id


async def _post(jp_fetch, body):
    return await jp_fetch(
        "geoagent", "complete", method="POST", body=json.dumps(body) if not isinstance(body, str) else body
    )


async def test_suggestion_uses_kernel_members_and_earlier_cells(jp_fetch, jp_serverapp):
    kernel_id = await _kernel_with_parcels(jp_serverapp)
    started = time.perf_counter()
    response = await _post(
        jp_fetch,
        {
            "kernel_id": kernel_id,
            "cell_text_before": "parcels.to_",
            "cell_text_after": "",
            "previous_cells": ["import pandas as pd", "parcels = pd.read_csv('parcels.csv')"],
        },
    )
    body = json.loads(response.body)
    print(f"completion_latency_s={time.perf_counter() - started:.3f}")
    # The fence and the repeated `parcels.to_` are gone: exactly what Tab inserts.
    assert body["text"] == "csv('parcels.csv')"
    assert body["context"]["variables"] >= 1 and body["context"]["members"] >= 1
    prompt = (await _app(jp_serverapp).completer.model()).prompt_texts[-1]
    assert "parcels = pd.read_csv('parcels.csv')" in prompt  # earlier cells
    assert "parcels.to_<CURSOR>" in prompt
    assert "to_json(" in prompt  # members filtered by the typed prefix `to_`
    assert "groupby(" not in prompt


async def test_suggestion_without_kernel_still_answers(jp_fetch):
    body = json.loads((await _post(jp_fetch, {"cell_text_before": "crs = ", "cell_text_after": "\nprint(crs)"})).body)
    # The model's extra line equals the code after the cursor: cut there.
    assert body["text"] == "'EPSG:3035'"
    assert body["context"] == {"variables": 0, "members": 0, "docs": 0}


@pytest.mark.parametrize(
    "body,status,fragment",
    [
        ("{nope", 400, b"not valid JSON"),
        ({"cell_text_after": "x"}, 400, b"cell_text_before"),
        ({"cell_text_before": "x", "colour": "red"}, 400, b"colour"),
        ({"cell_text_before": "x", "model": "nonsense"}, 400, b"is not offered by this server"),
    ],
)
async def test_bad_completion_requests_get_clear_4xx(jp_fetch, body, status, fragment):
    with pytest.raises(HTTPClientError) as err:
        await _post(jp_fetch, body)
    assert err.value.code == status
    assert fragment in err.value.response.body
    assert json.loads(err.value.response.body)["status"] == status


async def test_completion_needs_auth(jp_fetch):
    with pytest.raises(HTTPClientError) as err:
        await jp_fetch("geoagent", "complete", method="POST", body="{}", headers={"Authorization": ""})
    assert err.value.code == 403


async def _read(ws, timeout=30.0):
    msg = await asyncio.wait_for(ws.read_message(), timeout)
    return json.loads(msg) if msg is not None else None


async def test_stream_sends_text_then_done(jp_ws_fetch, jp_serverapp):
    kernel_id = await _kernel_with_parcels(jp_serverapp)
    ws = await jp_ws_fetch("geoagent", "complete", "stream")
    ws.write_message(
        json.dumps(
            {
                "type": "complete",
                "id": "c1",
                "kernel_id": kernel_id,
                "cell_text_before": "parcels.to_",
                "previous_cells": [],
            }
        )
    )
    seen = []
    while True:
        msg = await _read(ws)
        assert msg["id"] == "c1", msg
        seen.append(msg)
        if msg["type"] in ("done", "error"):
            break
    ws.close()
    assert seen[-1]["type"] == "done", seen
    texts = [m["text"] for m in seen if m["type"] == "text"]
    assert texts and texts[-1] == "csv('parcels.csv')"
    # Each streamed text extends the one before (the ghost text only grows).
    assert all(b.startswith(a) for a, b in zip(texts, texts[1:]))
    assert seen[-1]["text"] == "csv('parcels.csv')" and seen[-1]["first_text_s"] is not None


async def test_newer_request_and_cancel_silence_older_ones(jp_ws_fetch, tmp_path):
    slow = tmp_path / "slow.py"
    slow.write_text(SLOW_SCRIPT)
    ws = await jp_ws_fetch("geoagent", "complete", "stream")
    ws.write_message(
        json.dumps({"type": "complete", "id": "old", "model": f"scripted:{slow}", "cell_text_before": "x = "})
    )
    await asyncio.sleep(0.3)
    # The user typed on: a new request replaces the slow one.
    ws.write_message(json.dumps({"type": "complete", "id": "new", "cell_text_before": "crs = "}))
    while (msg := await _read(ws))["type"] != "done":
        assert msg["id"] == "new", f"the replaced request still answered: {msg}"
    assert msg["id"] == "new" and msg["text"].startswith("'EPSG:3035'")
    ws.write_message(
        json.dumps({"type": "complete", "id": "gone", "model": f"scripted:{slow}", "cell_text_before": "y = "})
    )
    ws.write_message(json.dumps({"type": "cancel", "id": "gone"}))
    with pytest.raises(asyncio.TimeoutError):
        await _read(ws, timeout=3.0)  # the slow model would have answered after 2 s
    ws.write_message(json.dumps({"type": "complete", "cell_text_before": "z"}))
    error = await _read(ws)
    assert error["type"] == "error" and "id" in error["message"]
    ws.write_message(json.dumps({"type": "complete", "id": "bad", "cell_text_before": 3}))
    error = await _read(ws)
    assert (
        error == {"type": "error", "id": "bad", "message": error["message"]} and "cell_text_before" in error["message"]
    )
    ws.close()


async def test_stream_answers_deeply_nested_json_with_an_error_and_stays_open(jp_ws_fetch):
    """Nesting past the JSON decoder's recursion limit used to escape on_message, and
    tornado then dropped the socket without a close frame."""
    ws = await jp_ws_fetch("geoagent", "complete", "stream")
    for message in (
        "[" * 100_000,
        '{"type": "complete", "id": "d", "cell_text_before": ' + "[" * 5000 + "]" * 5000 + "}",
    ):
        ws.write_message(message)
        error = await _read(ws)
        assert error["type"] == "error" and "too deeply" in error["message"], error
    ws.write_message(json.dumps({"type": "complete", "id": "ok", "cell_text_before": "crs = "}))
    while (msg := await _read(ws))["type"] == "text":
        pass
    ws.close()
    assert msg["type"] == "done" and msg["id"] == "ok", msg


# ----- pieces on their own ---------------------------------------------------------------


class _SlowKernels:
    """A kernel busy with someone's cell: variables answer after `delay` seconds."""

    def __init__(self, delay):
        self.delay, self.calls = delay, 0

    async def variables(self, kernel_id):
        self.calls += 1
        await asyncio.sleep(self.delay)
        from geoagent_ext.kernel.results import VariableSummary

        return [VariableSummary(name="parcels", type="GeoDataFrame", summary="GeoDataFrame 3 rows, EPSG:4326")]

    async def members(self, kernel_id, expression):
        return []


async def _no_index():
    return None


async def test_busy_kernel_does_not_delay_suggestions_and_warms_the_cache():
    kernels = _SlowKernels(delay=0.6)
    gatherer = ContextGatherer(kernels, _no_index, budget=0.1)
    started = time.perf_counter()
    first = await gatherer.gather("k1", "parcels.")
    assert time.perf_counter() - started < 0.5 and first.variables == []
    await asyncio.sleep(0.7)  # the probe finished in the background
    second = await gatherer.gather("k1", "parcels.")
    assert second.variables == ["parcels: GeoDataFrame 3 rows, EPSG:4326"]
    assert kernels.calls == 1  # one probe served both requests


class _FakeIndex:
    def __init__(self):
        self.queries = []

    def ensure_ready(self):
        time.sleep(0.2)  # loading vectors

    def retrieve(self, query, k=5):
        from geoagent_ext.rag.records import ApiRecord

        self.queries.append(query)
        return [
            ApiRecord(
                id="1",
                qualified_name="geopandas.GeoDataFrame.to_crs",
                library="geopandas",
                version="1",
                kind="method",
                signature="(crs=None, epsg=None)",
                summary="Transform geometries to a new CRS.",
                text="",
            )
        ]


async def test_api_docs_join_once_the_index_is_warm():
    index = _FakeIndex()

    async def open_index():
        return index

    gatherer = ContextGatherer(_SlowKernels(0), open_index, budget=2)
    first = await gatherer.gather(None, "parcels = parcels.to_")
    assert first.docs == []  # the index is still loading: no waiting for it
    await asyncio.sleep(0.5)
    second = await gatherer.gather(None, "parcels = parcels.to_")
    assert second.docs == ["geopandas.GeoDataFrame.to_crs(crs=None, epsg=None): Transform geometries to a new CRS."]
    assert index.queries == ["parcels = parcels.to_"]


def test_attribute_at_cursor_only_for_plain_dotted_names():
    assert attribute_at_cursor("x = 1\nparcels.to_") == ("parcels", "to_")
    assert attribute_at_cursor("gdf.geometry.") == ("gdf.geometry", "")
    assert attribute_at_cursor("f(x).to_") is None  # would call code in the kernel
    assert attribute_at_cursor("y = 1.5") is None
    assert attribute_at_cursor("'a.b") is None


@pytest.mark.parametrize(
    "raw,before,after,expected",
    [
        ("```python\nparcels.to_crs(epsg=3035)\n```", "parcels.to_", "", "crs(epsg=3035)"),
        ("crs(epsg=3035)", "parcels.to_", "", "crs(epsg=3035)"),
        (
            "import geopandas as gpd\ngdf = gpd.read_file('a.gpkg')",
            "import geopandas as gpd\n",
            "",
            "gdf = gpd.read_file('a.gpkg')",
        ),
        ("'EPSG:3035'\nprint(crs)", "crs = ", "\nprint(crs)", "'EPSG:3035'"),
        ("\n".join(f"x{i} = {i}" for i in range(20)), "", "", "\n".join(f"x{i} = {i}" for i in range(8))),
    ],
)
def test_clean_completion(raw, before, after, expected):
    assert clean_completion(raw, before, after, final=True) == expected


def test_clean_completion_holds_back_partial_fences_and_echoes_while_streaming():
    assert clean_completion("``", "parcels.to_", "") == ""
    assert clean_completion("```pyth", "parcels.to_", "") == ""
    assert clean_completion("```python\nparcels.t", "parcels.to_", "") == ""
    assert clean_completion("```python\nparcels.to_cr", "parcels.to_", "") == "cr"


def test_prompt_puts_the_cursor_cell_last_and_lists_context():
    messages = completion_messages(
        "gdf.to_",
        "",
        ["import geopandas"],
        variables=["gdf: GeoDataFrame"],
        expression="gdf",
        members=["to_crs(crs=None, epsg=None)"],
        docs=["geopandas.read_file(...)"],
    )
    text = messages[-1].text
    assert (
        text.index("Earlier cells")
        < text.index("Variables")
        < text.index("Members of `gdf`")
        < text.index("gdf.to_<CURSOR>")
    )
    assert "geopandas.read_file" in text
