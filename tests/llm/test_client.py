"""LLMClient: timeouts, retries, unusable answers, redacted failures, stats."""

from typing import ClassVar

import pytest
from langchain_core.messages import HumanMessage

from geoagent_ext.llm.client import (
    LLMClient,
    LLMError,
    LLMNoAnswer,
    LLMTimeout,
    to_generation,
)
from geoagent_ext.llm.scripted import ScriptedChatModel

CODE = "```python\nx = 1\n```"


async def test_complete_returns_generation_and_counts():
    model = ScriptedChatModel(replies=[CODE])
    client = LLMClient(model)
    gen = await client.complete([("system", "be brief"), ("user", "write x")], temperature=0.1, stop=["END"])
    assert gen.text == CODE
    assert gen.logprob == -1.0 and gen.tokens_out > 0 and gen.tokens_in > 0 and gen.seconds >= 0
    assert client.stats.calls == 1 and client.stats.tokens_out == gen.tokens_out
    assert model.call_kwargs[0]["temperature"] == 0.1 and model.call_kwargs[0]["stop"] == ["END"]
    assert model.prompts[0][0].type == "system"


async def test_timeout_then_retry_succeeds():
    model = ScriptedChatModel(replies=[{"text": "late", "delay": 5}, CODE])
    client = LLMClient(model, timeout=0.2, retries=1)
    gen = await client.complete("q")
    assert gen.text == CODE
    assert client.stats.timeouts == 1 and client.stats.retries == 1 and client.stats.calls == 2


async def test_timeout_on_every_attempt_is_a_typed_failure():
    model = ScriptedChatModel(replies=[{"text": "late", "delay": 5}], cycle=True)
    client = LLMClient(model, timeout=0.1, retries=2)
    with pytest.raises(LLMTimeout, match=r"within 0.1 s \(3 attempt"):
        await client.complete("q")
    assert client.stats.calls == 3 and client.stats.timeouts == 3


async def test_reply_without_code_is_retried_then_fails_clearly():
    model = ScriptedChatModel(replies=["Sorry, I can't.", CODE])
    client = LLMClient(model, retries=1)
    assert (await client.complete("q", expect="code")).text == CODE
    model = ScriptedChatModel(replies=["no code here"], cycle=True)
    client = LLMClient(model, retries=1)
    with pytest.raises(LLMNoAnswer, match="no code"):
        await client.complete("q", expect="code")
    assert client.stats.calls == 2 and client.stats.failures == 2


async def test_expect_json_and_predicate():
    client = LLMClient(ScriptedChatModel(replies=["nope", '```json\n{"steps": []}\n```']))
    assert "steps" in (await client.complete("q", expect="json")).text
    client = LLMClient(ScriptedChatModel(replies=["short", "long enough"]), retries=1)
    assert (await client.complete("q", expect=lambda t: len(t) > 6)).text == "long enough"


async def test_provider_error_is_redacted_and_not_chained(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-live-abcdefghijklmnop0123")
    model = ScriptedChatModel(replies=[{"error": "401 bad key sk-live-abcdefghijklmnop0123"}], cycle=True)
    client = LLMClient(model, retries=1)
    with pytest.raises(LLMError) as info:
        await client.complete("q")
    assert "sk-live" not in str(info.value) and "[REDACTED]" in str(info.value)
    assert info.value.__cause__ is None and info.value.__suppress_context__
    assert client.stats.failures == 2


async def test_sample_is_n_sequential_calls_with_same_prompt():
    model = ScriptedChatModel(replies=["a", "b", "c"])
    client = LLMClient(model)
    gens = await client.sample([HumanMessage("same prompt")], 3, temperature=0.9)
    assert [g.text for g in gens] == ["a", "b", "c"]
    assert all(kw["temperature"] == 0.9 for kw in model.call_kwargs)
    assert client.stats.calls == 3


async def test_streaming_progress_callback():
    model = ScriptedChatModel(replies=[CODE], stream_chunk=4)
    pieces = []
    gen = await LLMClient(model).complete("q", on_text=pieces.append)
    assert "".join(pieces) == CODE and len(pieces) > 1
    assert gen.text == CODE and gen.logprob == -1.0 and gen.tokens_out > 0


async def test_deadline_is_passed_only_to_models_that_accept_it():
    class DeadlineModel(ScriptedChatModel):
        accepts_deadline: ClassVar[bool] = True

    plain, aware = ScriptedChatModel(replies=["x"]), DeadlineModel(replies=["x"])
    await LLMClient(plain).complete("q")
    await LLMClient(aware, timeout=30).complete("q")
    assert "deadline" not in plain.call_kwargs[0]
    assert aware.call_kwargs[0]["deadline"] > 0


def test_openai_style_logprobs_are_summed():
    from langchain_core.messages import AIMessage

    msg = AIMessage(
        "hi",
        response_metadata={"logprobs": {"content": [{"logprob": -0.5}, {"logprob": -0.25}]}},
        usage_metadata={"input_tokens": 3, "output_tokens": 2, "total_tokens": 5},
    )
    gen = to_generation(msg, 1.0)
    assert gen.logprob == pytest.approx(-0.75) and gen.tokens_in == 3
    assert to_generation(AIMessage("x"), 0.0).logprob is None


async def test_from_settings(tmp_path):
    from types import SimpleNamespace

    script = tmp_path / "r.json"
    script.write_text('["```python\\nok = 1\\n```"]')
    settings = SimpleNamespace(model=f"scripted:{script}", llm_timeout=42)
    client = LLMClient.from_settings(settings)
    assert client.timeout == 42 and client.retries == 1
    assert (await client.complete("q", expect="code")).text.startswith("```python")


async def test_sample_drops_failed_samples_but_not_all():
    model = ScriptedChatModel(replies=[CODE, "prose", "prose", {"error": "overloaded"}, CODE])
    client = LLMClient(model, retries=1)
    gens = await client.sample("q", 3, expect="code")
    assert [g.text for g in gens] == [CODE, CODE]  # sample 2 failed twice (no code, error)
    assert client.stats.calls == 5

    client = LLMClient(ScriptedChatModel(replies=["prose"], cycle=True), retries=0)
    with pytest.raises(LLMNoAnswer):
        await client.sample("q", 2, expect="code")


async def test_sample_stops_at_the_first_timeout():
    model = ScriptedChatModel(replies=[{"text": CODE, "delay": 5}], cycle=True)
    client = LLMClient(model, timeout=0.05, retries=0)
    with pytest.raises(LLMTimeout):
        await client.sample("q", 3)
    assert client.stats.calls == 1


async def test_ollama_gets_sampling_options_in_its_options_dict():
    class ChatOllama(ScriptedChatModel):  # same class name as langchain_ollama's
        pass

    model = ChatOllama(replies=["x"])
    await LLMClient(model).complete("q", temperature=0.3, max_tokens=50, stop=["END"], seed=3)
    kwargs = model.call_kwargs[0]
    assert kwargs["options"] == {"temperature": 0.3, "num_predict": 50, "stop": ["END"], "seed": 3}
    assert "temperature" not in kwargs and "max_tokens" not in kwargs and kwargs["stop"] is None


async def test_secrets_in_prompts_never_reach_the_provider(monkeypatch):
    # Kernel output and tracebacks go into prompts; a printed key must be masked first.
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-secretvalue0123456789")
    model = ScriptedChatModel(replies=[CODE])
    client = LLMClient(model)
    await client.complete([("system", "fix it"), ("user", "stdout: sk-ant-secretvalue0123456789\nKeyError: 'x'")])
    sent = model.prompts[0][1].content
    assert "sk-ant-secretvalue" not in sent
    assert "[REDACTED]" in sent and "KeyError: 'x'" in sent
