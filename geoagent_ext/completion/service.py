"""``Completer``: one suggestion per request, streamed as it is generated.

The model is the ``inline_model`` setting (a small local one by default), as its
own instance from the services' model cache (``chat_model(spec, instance="inline")``):
loaded only once suggestions are wanted (JupyterLab's settings turn them on, or the
first suggestion arrives; ``inline_warm`` loads it at server start), then kept, and
with a llama.cpp context and lock of its own, so a suggestion never waits for a
run's planner or coder call on the main model (a llama.cpp context serves one call
at a time). Each suggestion is a short, low-temperature call without retries: a
late suggestion is worthless, the user has typed on. Cancelling the task that
iterates ``stream`` stops the generation (``LLMClient`` closes the model's stream,
which frees the local model for the next request).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ..kernel import KernelNotFoundError, KernelService, kernel_for_notebook
from ..llm.choices import ChatModels, inline_model_spec
from ..llm.client import LLMClient
from ..llm.local import LocalChatModel
from .context import ContextGatherer, CursorContext
from .prompt import clean_completion, completion_messages

MAX_TOKENS = 96
TIMEOUT_S = 60.0
MAX_PREVIOUS_CELLS = 8
INSTANCE = "inline"  # the suggestions' own model instance in the services' model cache

log = logging.getLogger("geoagent.completion")


class CompletionRequest(BaseModel):
    """The cell at the cursor and where it lives (notebook path or kernel id)."""

    model_config = ConfigDict(extra="forbid")

    cell_text_before: str = Field(max_length=100_000, description="Cell text before the cursor.")
    cell_text_after: str = Field("", max_length=100_000, description="Cell text after the cursor.")
    previous_cells: list[str] = Field(
        default_factory=list, max_length=200, description="Sources of the code cells above, oldest first."
    )
    notebook_path: str | None = Field(None, max_length=4096)
    kernel_id: str | None = Field(None, max_length=200)
    model: str | None = Field(None, max_length=200, description="provider:model; default: the configured inline_model.")


@dataclass
class Suggestion:
    text: str = ""
    seconds: float = 0.0
    first_token_s: float | None = None  # latency until the model's first text (queueing shows here)
    first_text_s: float | None = None  # latency until the first visible text
    context: CursorContext = field(default_factory=CursorContext)


class Completer:
    """Completions over the process's chat models, kernels and knowledge index (one per server:
    ``services.completer``; the services hand them in, this layer never imports the services)."""

    def __init__(
        self,
        settings: Any,
        kernels: KernelService,
        models: ChatModels,
        knowledge_index: Callable[[], Awaitable[Any]],
        *,
        session_manager: Any = None,
        budget: float = 1.5,
    ):
        self.settings = settings
        self.kernels = kernels
        self.models = models
        self.session_manager = session_manager  # finds a notebook's kernel (server only)
        self.context = ContextGatherer(kernels, knowledge_index, budget=budget)
        self._warming: asyncio.Future | None = None
        self.loaded = False  # the inline model has answered (a warm-up or a suggestion): kept from now on

    def inline_spec(self, requested: str | None = None) -> str:
        """A request's model (only one the server offers, else RunManagerError 400), or the
        configured inline model (empty: the main model)."""
        if requested:
            return self.models.model_spec(requested)
        return inline_model_spec(self.settings)

    async def model(self, requested: str | None = None) -> Any:
        """The suggestions' own instance of the model (RunManagerError 400 on a bad spec)."""
        return await self.models.chat_model(self.inline_spec(requested), instance=INSTANCE)

    def warm_in_background(self) -> asyncio.Future:
        """Start :meth:`warm` unless it is under way or done: JupyterLab says so at every page
        load with suggestions on, and one load is enough."""
        task = self._warming
        if task is None or task.done() and (task.cancelled() or not task.result()):
            self._warming = asyncio.ensure_future(self.warm())
        return self._warming

    async def warm(self) -> bool:
        """Load the inline model and read the prompt's fixed start now, so the first
        suggestion does not pay seconds of loading; whether it loaded. Failures only log:
        a suggestion will report the same error to the user."""
        try:
            model = await self.model()
            if isinstance(model, LocalChatModel):  # a cloud model has nothing to load
                client = LLMClient(model, timeout=TIMEOUT_S, retries=0)
                await client.complete(completion_messages("", "", []), temperature=0.1, max_tokens=1)
            self.loaded = True
            return True
        except Exception as exc:
            log.warning("GeoAgent: inline model not loaded (%s)", exc)
            return False

    async def _kernel_id(self, request: CompletionRequest) -> str | None:
        """The kernel to ask about variables; suggestions work without one."""
        if request.kernel_id:
            return request.kernel_id if request.kernel_id in self.kernels.kernel_manager else None
        if request.notebook_path and self.session_manager is not None:
            try:
                return await kernel_for_notebook(request.notebook_path, self.session_manager)
            except KernelNotFoundError:
                return None
        return None

    async def stream(self, request: CompletionRequest, suggestion: Suggestion | None = None) -> AsyncIterator[str]:
        """Yield the whole suggestion so far each time it grows (not deltas: cleaning
        may still change its start, e.g. when a fence turns out to be one)."""
        suggestion = suggestion if suggestion is not None else Suggestion()
        started = time.perf_counter()
        chat_model = await self.model(request.model)
        kernel_id = await self._kernel_id(request)
        ctx = await self.context.gather(kernel_id, request.cell_text_before)
        suggestion.context = ctx
        messages = completion_messages(
            request.cell_text_before,
            request.cell_text_after,
            request.previous_cells[-MAX_PREVIOUS_CELLS:],
            variables=ctx.variables,
            expression=ctx.expression,
            members=ctx.members,
            docs=ctx.docs,
        )
        client = LLMClient(chat_model, timeout=TIMEOUT_S, retries=0)
        queue: asyncio.Queue[str | None] = asyncio.Queue()
        raw: list[str] = []

        def on_text(piece: str) -> None:
            if not raw:
                suggestion.first_token_s = round(time.perf_counter() - started, 3)
            raw.append(piece)
            queue.put_nowait("".join(raw))

        async def generate() -> None:
            try:
                await client.complete(messages, temperature=0.1, max_tokens=MAX_TOKENS, on_text=on_text)
            finally:
                queue.put_nowait(None)

        task = asyncio.ensure_future(generate())
        shown = ""
        try:
            while True:
                so_far = await queue.get()
                if so_far is None:
                    break
                text = clean_completion(so_far, request.cell_text_before, request.cell_text_after)
                if text and text != shown:
                    if suggestion.first_text_s is None:
                        suggestion.first_text_s = round(time.perf_counter() - started, 3)
                    shown = text
                    yield text
            await task  # raises the model's error, if any
            if self.inline_spec(request.model) == self.inline_spec():
                self.loaded = True  # a request naming another model loads nothing of the inline one
            final = clean_completion("".join(raw), request.cell_text_before, request.cell_text_after, final=True)
            suggestion.text = final
            suggestion.seconds = round(time.perf_counter() - started, 3)
            if final != shown:
                yield final
        finally:
            if not task.done():
                task.cancel()  # the consumer went away: stop generating now

    async def complete(self, request: CompletionRequest) -> Suggestion:
        suggestion = Suggestion()
        async for _ in self.stream(request, suggestion):
            pass
        return suggestion
