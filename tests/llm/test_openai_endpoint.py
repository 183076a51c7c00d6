"""``openai:<model>`` against a real OpenAI-compatible server (llama-cpp-python's, the
local 0.5B model, key required) through langchain-openai: the base URL from the
setting or ``OPENAI_BASE_URL``, streaming, token accounting, timeouts, retries, and
what a wrong key or a dead server tells the user. Slow-marked (a real model), but a
few seconds per test: replies are capped at a handful of tokens.
"""

from __future__ import annotations

import logging
import time

import pytest

from geoagent_ext.config import GeoAgentSettings
from geoagent_ext.llm.client import LLMClient, LLMError, LLMKeyRejected, LLMTimeout
from geoagent_ext.llm.factory import make_chat_model
from tests.openai_server import ALIAS
from tests.scripted_server import free_port

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

SPEC = f"openai:{ALIAS}"
PROMPT = [("system", "You answer in a few words."), ("user", "Name three colours, comma separated.")]


@pytest.fixture
def env(openai_server, monkeypatch):
    """The server's key in this process's environment, no base URL from it."""
    monkeypatch.setenv("OPENAI_API_KEY", openai_server.key)
    for name in ("OPENAI_BASE_URL", "OPENAI_API_BASE"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def client(url: str | None, *, timeout: float = 120, retries: int = 0) -> LLMClient:
    settings = GeoAgentSettings(openai_base_url=url) if url else GeoAgentSettings()
    return LLMClient(make_chat_model(SPEC, settings), timeout=timeout, retries=retries)


async def test_setting_streams_and_counts_tokens(openai_server, env):
    llm = client(openai_server.url)
    whole = await llm.complete(PROMPT, max_tokens=10, temperature=0)
    assert whole.text.strip()
    assert whole.tokens_in > 10 and 0 < whole.tokens_out <= 10  # the server's usage, read back
    assert llm.stats.calls == 1 and llm.stats.tokens_in == whole.tokens_in
    assert llm.stats.tokens_out == whole.tokens_out and llm.stats.seconds > 0

    pieces: list[str] = []
    streamed = await llm.complete(PROMPT, max_tokens=10, temperature=0, on_text=pieces.append)
    assert len(pieces) > 1 and "".join(pieces) == streamed.text  # SSE deltas, in order
    assert llm.stats.calls == 2


async def test_env_var_points_openai_at_the_server_and_the_setting_wins(openai_server, env):
    env.setenv("OPENAI_BASE_URL", openai_server.url)
    assert (await client(None).complete(PROMPT, max_tokens=4, temperature=0)).tokens_out > 0
    env.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{free_port()}/v1")  # nothing listens there
    assert (await client(openai_server.url).complete(PROMPT, max_tokens=4, temperature=0)).tokens_out > 0


async def test_every_attempt_is_counted_when_an_answer_is_retried(openai_server, env):
    llm = client(openai_server.url, retries=1)
    replies: list[str] = []
    gen = await llm.complete(
        PROMPT, max_tokens=6, temperature=0, expect=lambda t: bool(replies.append(t)) or len(replies) > 1
    )
    assert len(replies) == 2 and gen.text == replies[1]
    stats = llm.stats
    assert (stats.calls, stats.retries, stats.failures) == (2, 1, 1)
    assert stats.tokens_in == 2 * gen.tokens_in  # the rejected answer cost tokens too


async def test_a_slow_answer_times_out_on_every_attempt_and_the_server_recovers(openai_server, env):
    slow = client(openai_server.url, timeout=0.3, retries=1)
    with pytest.raises(LLMTimeout, match="no answer within 0.3 s"):
        await slow.complete([("user", "Count from 1 to 300, comma separated.")], max_tokens=48)
    assert (slow.stats.calls, slow.stats.timeouts, slow.stats.retries) == (2, 2, 1)
    start = time.perf_counter()
    assert (await client(openai_server.url).complete(PROMPT, max_tokens=4)).text
    assert time.perf_counter() - start < 90  # the abandoned requests did not wedge the server


async def test_wrong_key_says_check_your_key_at_once_and_never_shows_it(openai_server, env, caplog):
    caplog.set_level(logging.DEBUG)
    wrong = "geo-wrong-0123456789abcdef"
    env.setenv("OPENAI_API_KEY", wrong)
    llm = client(openai_server.url, retries=2)
    with pytest.raises(LLMKeyRejected) as raised:
        await llm.complete(PROMPT, max_tokens=4)
    message = str(raised.value)
    assert "rejected the API key (HTTP 401)" in message and "check your key" in message
    assert "(OPENAI_API_KEY in the Jupyter server's environment)" in message and openai_server.url in message
    assert llm.stats.calls == 1  # a rejected key is not retried
    assert wrong not in message and openai_server.key not in message
    assert wrong not in caplog.text and openai_server.key not in caplog.text


async def test_no_key_at_all_reaches_the_server_and_names_the_missing_variable(openai_server, env):
    env.delenv("OPENAI_API_KEY")
    with pytest.raises(LLMKeyRejected, match=r"; OPENAI_API_KEY is not set\)"):
        await client(openai_server.url).complete(PROMPT, max_tokens=4)


async def test_a_server_that_is_not_there_is_named_without_its_credentials(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "geo-unused-0123456789")
    port = free_port()
    llm = client(f"http://admin:hunter2-secret@127.0.0.1:{port}/v1", timeout=60, retries=1)
    with pytest.raises(LLMError) as raised:
        await llm.complete(PROMPT, max_tokens=4)
    message = str(raised.value)
    assert f"Could not reach the model server at http://127.0.0.1:{port}/v1" in message
    assert "openai_base_url" in message and "hunter2" not in message
    assert (llm.stats.calls, llm.stats.failures) == (2, 2)
