"""The one door the agent uses to talk to a model: timeouts, retries, accounting.

Every call is counted (calls, tokens, seconds) so runs and benchmarks can report
what the model cost. A call that times out or fails is retried (a rejected key is
not: ``LLMKeyRejected`` at once); after the last attempt the caller gets a typed
error (``LLMTimeout`` / ``LLMError``) whose message says what to do (``failures``),
has been redacted and is not chained to the provider's exception, since that
exception's text may contain a key and errors become events and log lines.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Sequence
from contextlib import aclosing, nullcontext
from typing import Any, Literal

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel

from ..redact import redact
from .failures import explain, rejected_key
from .parsing import extract_code, extract_json
from .queue import OnPlace, queue_for


class LLMError(RuntimeError):
    """The model failed to give a usable answer (message is redacted)."""


class LLMTimeout(LLMError):
    """The model did not answer within the timeout, on every attempt."""


class LLMKeyRejected(LLMError):
    """The provider refused the API key (HTTP 401/403); the message says which variable to check."""


class LLMNoAnswer(LLMError):
    """The model answered, but never with what was asked for (e.g. no code block)."""


class Generation(BaseModel):
    text: str
    logprob: float | None  # sum of token log-probabilities; None when the provider gives none
    tokens_in: int
    tokens_out: int
    seconds: float
    cached_tokens: int = 0  # prompt tokens served from the KV cache (local model)


class LLMStats(BaseModel):
    calls: int = 0  # model invocations, including failed and retried ones
    tokens_in: int = 0
    tokens_out: int = 0
    cached_tokens: int = 0
    seconds: float = 0.0
    timeouts: int = 0
    failures: int = 0  # errors and unusable answers
    retries: int = 0


Expect = Literal["code", "json"] | Callable[[str], bool] | None
MessagesLike = Sequence[BaseMessage | tuple[str, str] | dict[str, str]] | str


def _as_messages(messages: MessagesLike) -> list[BaseMessage]:
    if isinstance(messages, str):
        return [HumanMessage(messages)]
    out: list[BaseMessage] = []
    for m in messages:
        if isinstance(m, BaseMessage):
            out.append(m)
            continue
        role, content = (m["role"], m["content"]) if isinstance(m, dict) else m
        cls = {"system": SystemMessage, "assistant": AIMessage, "ai": AIMessage}.get(role, HumanMessage)
        out.append(cls(content))
    return [_redacted(m) for m in out]


def _redacted(message: BaseMessage) -> BaseMessage:
    """The message with secrets masked: prompts carry kernel output and tracebacks,
    and no key from this server's environment may reach a model provider."""
    if isinstance(message.content, str):
        clean = redact(message.content)
        if clean != message.content:
            return message.model_copy(update={"content": clean})
    return message


def _check(expect: Expect) -> Callable[[str], bool] | None:
    if expect == "code":
        return lambda text: extract_code(text) is not None
    if expect == "json":
        return lambda text: extract_json(text) is not None
    return expect


def _openai_logprob(meta: dict[str, Any]) -> float | None:
    """Sum OpenAI-style ``logprobs.content[].logprob`` when a provider returned them."""
    logprobs = meta.get("logprobs")
    content = logprobs.get("content") if isinstance(logprobs, dict) else None
    if not content:
        return None
    try:
        return float(sum(item["logprob"] for item in content))
    except (KeyError, TypeError):
        return None


def to_generation(message: AIMessage, seconds: float) -> Generation:
    """Read text, logprob and token counts from whatever a provider put on the message."""
    meta = message.response_metadata or {}
    usage = message.usage_metadata or {}
    logprob = meta.get("logprob")
    if logprob is None:
        logprob = _openai_logprob(meta)
    details = usage.get("input_token_details") or {}
    return Generation(
        text=message.text,
        logprob=float(logprob) if logprob is not None else None,
        tokens_in=int(usage.get("input_tokens") or meta.get("tokens_in") or 0),
        tokens_out=int(usage.get("output_tokens") or meta.get("tokens_out") or 0),
        seconds=seconds,
        cached_tokens=int(details.get("cache_read") or meta.get("cached_tokens") or 0),
    )


def call_kwargs(
    model: BaseChatModel,
    temperature: float,
    max_tokens: int,
    stop: list[str] | None,
    extra: dict[str, Any],
) -> dict[str, Any]:
    """Per-call sampling options in the shape the provider's chat model accepts.

    Most langchain chat models merge ``temperature``/``max_tokens`` call kwargs into
    their request; ChatOllama passes unknown kwargs to ``ollama.Client.chat`` (a
    TypeError) and reads sampling options only from an ``options`` dict.
    """
    if type(model).__name__ == "ChatOllama":
        options = {"temperature": temperature, "num_predict": max_tokens}
        if stop:
            options["stop"] = list(stop)
        if "seed" in extra:
            extra = dict(extra)
            options["seed"] = extra.pop("seed")
        return {"options": options, **extra}
    kwargs: dict[str, Any] = {"temperature": temperature, "max_tokens": max_tokens, **extra}
    if stop:
        kwargs["stop"] = list(stop)
    return kwargs


def json_schema_kwargs(model: BaseChatModel, schema: dict[str, Any], name: str) -> dict[str, Any]:
    """Call kwargs that make ``model`` answer with JSON of ``schema``: the local engine's grammar,
    an OpenAI-compatible server's structured output (``response_format``), Ollama's ``format``.
    Empty for a provider with none of these: its answer is parsed like any other."""
    if getattr(model, "accepts_json_schema", False):
        return {"json_schema": json.dumps(schema)}
    kind = type(model).__name__
    if kind in ("ChatOpenAI", "AzureChatOpenAI"):
        return {"response_format": {"type": "json_schema", "json_schema": {"name": name, "schema": schema}}}
    if kind == "ChatOllama":
        return {"format": schema}
    return {}


class LLMClient:
    """Async completions over any langchain chat model, with timeout, retry and stats."""

    def __init__(self, chat_model: BaseChatModel, *, timeout: float = 600, retries: int = 1):
        self.chat_model = chat_model
        self.timeout = timeout
        self.retries = max(0, retries)
        self.stats = LLMStats()
        # Hears this client's place in a serial model's line (``llm.queue``): 1, 2... then 0.
        self.on_wait: OnPlace | None = None

    @classmethod
    def from_settings(cls, settings: Any, chat_model: BaseChatModel | None = None) -> LLMClient:
        """The client for ``settings.model`` with ``settings.llm_timeout``."""
        if chat_model is None:
            from .factory import make_chat_model

            chat_model = make_chat_model(settings.model, settings)
        return cls(chat_model, timeout=float(getattr(settings, "llm_timeout", 600) or 600))

    def _turn(self):
        queue = queue_for(self.chat_model)
        return queue.turn(self.on_wait) if queue is not None else nullcontext()

    async def _once(
        self,
        messages: list[BaseMessage],
        kwargs: dict[str, Any],
        on_text: Callable[[str], Any] | None,
    ) -> Generation:
        if getattr(self.chat_model, "accepts_deadline", False):
            # lets the local model stop generating (and free its lock) when we give up
            kwargs = {**kwargs, "deadline": time.monotonic() + self.timeout}
        start = time.perf_counter()
        if on_text is None:
            message = await self.chat_model.ainvoke(messages, **kwargs)
        else:
            message = None
            # aclosing: on timeout the stream is closed at once, which frees the local model
            async with aclosing(self.chat_model.astream(messages, **kwargs)) as stream:
                async for chunk in stream:
                    message = chunk if message is None else message + chunk
                    if chunk.text:
                        result = on_text(chunk.text)
                        if asyncio.iscoroutine(result):
                            await result
            message = message or AIMessage("")
        return to_generation(message, time.perf_counter() - start)

    async def complete(
        self,
        messages: MessagesLike,
        *,
        temperature: float = 0.2,
        max_tokens: int = 1024,
        stop: list[str] | None = None,
        expect: Expect = None,
        on_text: Callable[[str], Any] | None = None,
        **extra: Any,
    ) -> Generation:
        """One answer. ``expect="code"``/``"json"``/predicate: an answer without it is retried.

        ``on_text`` receives text pieces as they stream (chat progress). ``extra``
        goes to the model (e.g. ``seed`` for the local model).
        """
        msgs = _as_messages(messages)
        kwargs = call_kwargs(self.chat_model, temperature, max_tokens, stop, extra)
        accept = _check(expect)
        last: LLMError | None = None
        for attempt in range(self.retries + 1):
            if attempt:
                self.stats.retries += 1
            self.stats.calls += 1
            started = time.perf_counter()
            try:
                # A serial model's turn first: the wait is not part of the call's timeout.
                async with self._turn():
                    started = time.perf_counter()
                    gen = await asyncio.wait_for(self._once(msgs, kwargs, on_text), self.timeout)
            except asyncio.TimeoutError:
                self.stats.timeouts += 1
                self.stats.seconds += time.perf_counter() - started
                last = LLMTimeout(f"The model gave no answer within {self.timeout:g} s ({attempt + 1} attempt(s)).")
                continue
            except asyncio.CancelledError:
                raise
            except Exception as e:  # provider errors of every kind
                self.stats.failures += 1
                self.stats.seconds += time.perf_counter() - started
                message = f"{explain(e, self.chat_model)} ({attempt + 1} attempt(s))."
                if rejected_key(e):  # the same key fails the same way: no retry
                    raise LLMKeyRejected(message) from None
                last = LLMError(message)
                continue
            self.stats.tokens_in += gen.tokens_in
            self.stats.tokens_out += gen.tokens_out
            self.stats.cached_tokens += gen.cached_tokens
            self.stats.seconds += gen.seconds
            if accept is not None and not accept(gen.text):
                self.stats.failures += 1
                what = expect if isinstance(expect, str) else "the expected format"
                last = LLMNoAnswer(
                    f"The model's reply contained no {what} "
                    f"({attempt + 1} attempt(s)); last reply began: {redact(gen.text[:200])!r}"
                )
                continue
            return gen
        assert last is not None
        raise last from None  # never chain: the provider error may hold a key

    async def sample(
        self,
        messages: MessagesLike,
        n: int,
        *,
        temperature: float = 0.8,
        max_tokens: int = 1024,
        stop: list[str] | None = None,
        expect: Expect = None,
        **extra: Any,
    ) -> list[Generation]:
        """Up to n independent answers to one prompt.

        Sequential on purpose: the local model is one llama.cpp context, so parallel
        calls would only queue on its lock, and back-to-back calls let each sample
        after the first read only the few prompt tokens its KV cache lacks. A cloud
        model would gain from concurrency; that is a later optimisation.

        A sample that fails (no code, provider error) is dropped if another one
        succeeds: a search is better served by two candidates than by none. Only
        when every sample fails is the last error raised. A timeout is raised at
        once: a model too slow for one answer will not give the others in time, and so
        is a rejected key.
        """
        gens: list[Generation] = []
        last: LLMError | None = None
        for _ in range(n):
            try:
                gens.append(
                    await self.complete(
                        messages,
                        temperature=temperature,
                        max_tokens=max_tokens,
                        stop=stop,
                        expect=expect,
                        **extra,
                    )
                )
            except (LLMTimeout, LLMKeyRejected):
                raise
            except LLMError as e:
                last = e
        if not gens and last is not None:
            raise last
        return gens
