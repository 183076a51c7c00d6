"""The scripted model: replies, recorded prompts, errors, delays, script files."""

import json

import pytest
from langchain_core.messages import HumanMessage, SystemMessage

from geoagent_ext.llm.scripted import ScriptedChatModel, ScriptedModelError, load_script


def test_replies_in_order_and_prompts_recorded():
    model = ScriptedChatModel(replies=["one", "two"])
    assert model.invoke([SystemMessage("sys"), HumanMessage("members: to_crs, area")]).content == "one"
    assert model.invoke("again").content == "two"
    assert "members: to_crs, area" in model.prompt_texts[0]
    assert model.prompt_texts[1] == "human: again"
    with pytest.raises(ScriptedModelError, match="ran out of replies after 2"):
        model.invoke("third")


def test_cycle_and_responder():
    model = ScriptedChatModel(replies=["a"], cycle=True)
    assert [model.invoke("x").content for _ in range(3)] == ["a", "a", "a"]
    echo = ScriptedChatModel(responder=lambda ms: ms[-1].text.upper())
    assert echo.invoke("hello").content == "HELLO"


def test_error_reply_and_stop_and_metadata():
    model = ScriptedChatModel(replies=[{"error": "provider down"}, "code```tail"])
    with pytest.raises(ScriptedModelError, match="provider down"):
        model.invoke("x")
    msg = model.invoke("x", stop=["```"], temperature=0.3)
    assert msg.content == "code"
    assert msg.response_metadata["logprob"] == -1.0
    assert msg.usage_metadata["output_tokens"] >= 1
    assert model.call_kwargs[-1]["temperature"] == 0.3


def test_streaming_and_bind_tools():
    model = ScriptedChatModel(replies=["abcdefghijklmnopqrstuvwxyz"], stream_chunk=5)
    chunks = list(model.stream("x"))
    assert "".join(c.text for c in chunks) == "abcdefghijklmnopqrstuvwxyz"
    assert len(chunks) >= 6
    assert model.bind_tools([]) is model


async def test_async_delay_reply():
    model = ScriptedChatModel(replies=[{"text": "slow", "delay": 0.05}])
    assert (await model.ainvoke("x")).content == "slow"


def test_load_json_and_python(tmp_path):
    j = tmp_path / "s.json"
    j.write_text(json.dumps({"replies": ["r1"], "cycle": True}))
    assert load_script(j).invoke("x").content == "r1"
    lst = tmp_path / "l.json"
    lst.write_text(json.dumps(["only"]))
    assert load_script(lst).invoke("x").content == "only"
    py = tmp_path / "s.py"
    py.write_text("def reply(messages):\n    return 'n=%d' % len(messages)\n")
    assert load_script(py).invoke("x").content == "n=1"
    bad = tmp_path / "bad.py"
    bad.write_text("x = 1\n")
    with pytest.raises(ValueError, match="must define reply"):
        load_script(bad)
    with pytest.raises(FileNotFoundError):
        load_script(tmp_path / "missing.json")
