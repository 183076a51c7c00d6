"""The default model that needs no key: Qwen2.5-Coder through llama.cpp, as a langchain chat model.

Weights are joined and verified on first use (``weights.ensure_weights``) and the
model is loaded lazily into one process-wide engine per file, so constructing this
object is cheap and a server starts at once. Every reply carries the sequence
log-probability and token counts in ``response_metadata`` and ``usage_metadata``.

``bind_tools`` returns the model unchanged: a 0.5B/1.5B model has no reliable tool
calling, the agent asks for fenced code / JSON and parses it (``llm.parsing``), and
langchain code that binds tools by habit (e.g. a persona) should still get answers.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Any, ClassVar

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    ChatMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from pydantic import Field

from .llama_engine import DEFAULT_N_CTX, GenerationStats, LlamaEngine, get_engine
from .weights import ensure_weights, get_spec


def to_chat_dicts(messages: Sequence[BaseMessage]) -> list[dict[str, str]]:
    """langchain messages -> role/content dicts for a chat template."""
    out = []
    for m in messages:
        if isinstance(m, SystemMessage):
            role = "system"
        elif isinstance(m, HumanMessage):
            role = "user"
        elif isinstance(m, AIMessage):
            role = "assistant"
        elif isinstance(m, ToolMessage):
            role = "tool"
        elif isinstance(m, ChatMessage):
            role = m.role
        else:
            role = "user"
        out.append({"role": role, "content": m.text})
    return out


def _metadata(stats: GenerationStats, model_id: str) -> dict[str, Any]:
    return {
        "response_metadata": {"model_name": f"local:{model_id}", **stats.as_metadata()},
        "usage_metadata": {
            "input_tokens": stats.tokens_in,
            "output_tokens": stats.tokens_out,
            "total_tokens": stats.tokens_in + stats.tokens_out,
            "input_token_details": {"cache_read": stats.cached_tokens},
        },
    }


class LocalChatModel(BaseChatModel):
    """Qwen2.5-Coder (or any chat GGUF) via llama-cpp-python, with logprobs and prefix reuse."""

    # LLMClient passes a ``deadline`` (time.monotonic) so a timed-out call frees the model.
    accepts_deadline: ClassVar[bool] = True
    # A call's ``json_schema`` (JSON Schema text) constrains the answer by llama.cpp's grammar.
    accepts_json_schema: ClassVar[bool] = True

    model_id: str = "qwen2.5-coder-1.5b"
    cache_dir: str = Field(default_factory=lambda: os.path.expanduser("~/.cache/geoagent/models"))
    model_path: str | None = None  # a GGUF to use directly (skips the part packages)
    instance: str = ""  # a separate engine (context + lock) for the same file, e.g. "inline"
    n_ctx: int = DEFAULT_N_CTX
    n_threads: int | None = None  # None: all cores this process may use
    state_cache_bytes: int = 1 << 30  # 0 disables the saved-prefix store
    temperature: float = 0.2
    max_tokens: int = 1024
    top_p: float = 0.95
    top_k: int = 40
    seed: int | None = None

    @property
    def _llm_type(self) -> str:
        return "geoagent-llama-cpp"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model_id": self.model_id, "n_ctx": self.n_ctx, "temperature": self.temperature}

    @property
    def queue_key(self) -> str:
        """One line of callers per engine (``llm.queue``): weights file and instance. An engine serves
        one call at a time; the inline instance has its own, so suggestions never queue behind a run."""
        path = self.model_path or os.path.join(self.cache_dir, self.model_id)
        return f"local:{path}" + (f"#{self.instance}" if self.instance else "")

    def engine(self) -> LlamaEngine:
        """The shared engine (joins weights and loads the model on first call)."""
        path = self.model_path or str(ensure_weights(get_spec(self.model_id), self.cache_dir))
        return get_engine(
            path,
            instance=self.instance,
            n_ctx=self.n_ctx,
            n_threads=self.n_threads,
            state_cache_bytes=self.state_cache_bytes,
        )

    def bind_tools(self, tools: Sequence[Any], *, tool_choice: str | None = None, **kwargs: Any):
        """Return self: no native tool calls; callers parse code/JSON from the text."""
        return self

    def _run(
        self, messages: list[BaseMessage], stop: list[str] | None, **kwargs: Any
    ) -> Iterator[str | GenerationStats]:
        def arg(name: str) -> Any:  # a call's value, else the model's default
            value = kwargs.get(name)
            return getattr(self, name) if value is None else value

        return self.engine().stream(
            to_chat_dicts(messages),
            max_tokens=int(arg("max_tokens")),
            temperature=float(arg("temperature")),
            top_p=float(arg("top_p")),
            top_k=int(arg("top_k")),
            seed=arg("seed"),
            stop=stop,
            deadline=kwargs.get("deadline"),
            json_schema=kwargs.get("json_schema"),
        )

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        pieces: list[str] = []
        stats = GenerationStats()
        for item in self._run(messages, stop, **kwargs):
            if isinstance(item, GenerationStats):
                stats = item
            else:
                pieces.append(item)
                if run_manager:
                    run_manager.on_llm_new_token(item)
        message = AIMessage(content="".join(pieces), **_metadata(stats, self.model_id))
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        for item in self._run(messages, stop, **kwargs):
            if isinstance(item, GenerationStats):
                yield ChatGenerationChunk(
                    message=AIMessageChunk(content="", chunk_position="last", **_metadata(item, self.model_id))
                )
            else:
                if run_manager:
                    run_manager.on_llm_new_token(item)
                yield ChatGenerationChunk(message=AIMessageChunk(content=item))

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        """langchain's default (each step in a worker thread), plus closing the generator
        when the caller stops early. The default only drops it, and a cancelled call's
        traceback keeps it alive, holding the engine's lock, until a garbage collection:
        a suggestion cancelled by typing must free the model for the next one at once."""
        chunks = self._stream(messages, stop, run_manager.get_sync() if run_manager else None, **kwargs)
        stepping = threading.Lock()  # close() must wait for a next() still running in a worker

        def step() -> ChatGenerationChunk | None:
            with stepping:
                return next(chunks, None)

        def close() -> None:
            with stepping:
                chunks.close()

        finished = False
        try:
            while (chunk := await asyncio.to_thread(step)) is not None:
                yield chunk
            finished = True
        finally:
            if not finished:  # in a worker: close() may wait for a token being computed
                threading.Thread(target=close, name="geoagent-close-stream", daemon=True).start()
