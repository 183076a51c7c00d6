"""A deterministic chat model for tests and browser tests.

It answers from a list of replies or from a function of the messages, records
every prompt it received (so a test can assert that a repair prompt contains the
object's real members), can wait before answering (to exercise timeouts) and can
raise (to exercise provider failures). A server started with
``--GeoAgentSettings.model=scripted:/path/script.json`` (or ``.py``) uses it, so
end-to-end tests drive the real agent without a real model.

Script files:
  * JSON: a list of replies, or ``{"replies": [...], "cycle": false}``. A reply is
    a string or ``{"text": "...", "delay": 1.5}`` or ``{"error": "message"}``.
  * Python: defines ``reply(messages) -> str`` (messages are langchain messages), and
    optionally ``DELAY`` (seconds per reply) and ``SERIAL = True`` (one call at a time,
    queued like the local model).
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from pydantic import ConfigDict, Field, PrivateAttr

Reply = str | dict[str, Any]


class ScriptedModelError(RuntimeError):
    """Raised by the scripted model when a reply says so, or when it runs out of replies."""


class ScriptedChatModel(BaseChatModel):
    """Replies from ``replies`` (in order) or ``responder(messages)``; records ``prompts``."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    replies: list[Reply] = Field(default_factory=list)
    responder: Callable[[list[BaseMessage]], Reply] | None = None
    cycle: bool = False  # start over when the list is used up, instead of failing
    delay: float = 0.0  # seconds before every reply (a reply's own "delay" adds to it)
    logprob: float | None = -1.0  # reported per reply, so the search's prior has a value
    stream_chunk: int = 8  # characters per streamed chunk
    # Serve one call at a time like the local model (``llm.queue``); a second call that
    # arrives while one is answered fails, so a test sees any call that skipped the line.
    serial: bool = False

    _index: int = PrivateAttr(default=0)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)
    _prompts: list[list[BaseMessage]] = PrivateAttr(default_factory=list)
    _kwargs: list[dict[str, Any]] = PrivateAttr(default_factory=list)

    _busy: bool = PrivateAttr(default=False)

    @property
    def _llm_type(self) -> str:
        return "geoagent-scripted"

    @property
    def queue_key(self) -> str | None:
        return f"scripted:{id(self)}" if self.serial else None

    @property
    def prompts(self) -> list[list[BaseMessage]]:
        """Every message list received, in call order."""
        return self._prompts

    @property
    def prompt_texts(self) -> list[str]:
        """Each received prompt flattened to one string (for ``in`` assertions)."""
        return ["\n".join(f"{m.type}: {m.text}" for m in ms) for ms in self._prompts]

    @property
    def call_kwargs(self) -> list[dict[str, Any]]:
        """The stop/temperature/max_tokens... each call was made with."""
        return self._kwargs

    def bind_tools(self, tools: Sequence[Any], *, tool_choice: str | None = None, **kwargs: Any):
        """Accept tools and ignore them: scripted replies are plain text, like the local model."""
        return self

    # -- answering ---------------------------------------------------------

    def _next(self, messages: list[BaseMessage], kwargs: dict[str, Any]) -> tuple[str, float]:
        with self._lock:
            self._prompts.append(list(messages))
            self._kwargs.append({k: v for k, v in kwargs.items() if k != "run_manager"})
            if self.responder is not None:
                reply: Reply = self.responder(list(messages))
            else:
                if self._index >= len(self.replies):
                    if not (self.cycle and self.replies):
                        raise ScriptedModelError(
                            f"ScriptedChatModel ran out of replies after {len(self.replies)} call(s)"
                        )
                    self._index = 0
                reply = self.replies[self._index]
                self._index += 1
        if isinstance(reply, dict):
            if "error" in reply:
                raise ScriptedModelError(str(reply["error"]))
            return str(reply.get("text", "")), self.delay + float(reply.get("delay", 0.0))
        return str(reply), self.delay

    def _message(self, messages: list[BaseMessage], text: str, stop: list[str] | None) -> AIMessage:
        for s in stop or []:
            if s and s in text:
                text = text[: text.index(s)]
        return AIMessage(content=text, **self._metadata(messages, text))

    def _metadata(self, messages: list[BaseMessage], text: str) -> dict[str, Any]:
        tokens_in = sum(_count_tokens(m.text) for m in messages)
        tokens_out = _count_tokens(text)
        return {
            "response_metadata": {
                "model_name": "scripted",
                "logprob": self.logprob,
                "tokens_in": tokens_in,
                "tokens_out": tokens_out,
                "cached_tokens": 0,
            },
            "usage_metadata": {
                "input_tokens": tokens_in,
                "output_tokens": tokens_out,
                "total_tokens": tokens_in + tokens_out,
            },
        }

    def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:
        with self._serving():
            text, delay = self._next(messages, {"stop": stop, **kwargs})
            if delay:
                time.sleep(delay)
        return ChatResult(generations=[ChatGeneration(message=self._message(messages, text, stop))])

    async def _agenerate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:
        # Async sleep, so a timeout in the caller cancels the wait cleanly.
        with self._serving():
            text, delay = self._next(messages, {"stop": stop, **kwargs})
            if delay:
                await asyncio.sleep(delay)
        return ChatResult(generations=[ChatGeneration(message=self._message(messages, text, stop))])

    @contextmanager
    def _serving(self) -> Iterator[None]:
        if self.serial:
            with self._lock:
                if self._busy:
                    raise ScriptedModelError("a second call reached the serial scripted model while it answered one")
                self._busy = True
        try:
            yield
        finally:
            if self.serial:
                self._busy = False

    def _stream(self, messages, stop=None, run_manager=None, **kwargs) -> Iterator[ChatGenerationChunk]:
        with self._serving():
            text, delay = self._next(messages, {"stop": stop, **kwargs})
            if delay:
                time.sleep(delay)
        final = self._message(messages, text, stop)
        body = str(final.content)
        for i in range(0, len(body), max(1, self.stream_chunk)):
            piece = body[i : i + self.stream_chunk]
            if run_manager:
                run_manager.on_llm_new_token(piece)
            yield ChatGenerationChunk(message=AIMessageChunk(content=piece))
        yield ChatGenerationChunk(
            message=AIMessageChunk(
                content="",
                response_metadata=final.response_metadata,
                usage_metadata=final.usage_metadata,
                chunk_position="last",
            )
        )


def _count_tokens(text: str) -> int:
    """A rough count (about 4 characters a token) so stats have plausible numbers."""
    return max(1, len(text) // 4) if text else 0


def load_script(path: str | Path) -> ScriptedChatModel:
    """Build a ScriptedChatModel from a JSON list/object or a Python file with ``reply``."""
    path = Path(path).expanduser()
    if not path.is_file():
        raise FileNotFoundError(f"Scripted model file not found: {path}")
    if path.suffix == ".py":
        spec = importlib.util.spec_from_file_location(f"geoagent_script_{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        assert spec.loader is not None
        spec.loader.exec_module(module)
        responder = getattr(module, "reply", None)
        if not callable(responder):
            raise ValueError(f"{path} must define reply(messages) -> str")
        return ScriptedChatModel(
            responder=responder,
            delay=float(getattr(module, "DELAY", 0.0)),
            serial=bool(getattr(module, "SERIAL", False)),
        )
    data = json.loads(path.read_text())
    if isinstance(data, list):
        return ScriptedChatModel(replies=data)
    if isinstance(data, dict) and isinstance(data.get("replies"), list):
        return ScriptedChatModel(
            replies=data["replies"],
            cycle=bool(data.get("cycle", False)),
            delay=float(data.get("delay", 0.0)),
        )
    raise ValueError(f"{path}: expected a JSON list of replies or {{'replies': [...]}}")
