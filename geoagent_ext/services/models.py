"""The process's chat models, each made once per (spec, instance) and kept.

A model can take seconds to make (a local model joins and maps its weights), and a
local one is a llama.cpp context that serves one call at a time: runs share the
instance ``""``, inline suggestions have their own (``"inline"``, see
``llm.factory.make_chat_model``), so a suggestion never queues behind a run's call.
"""

from __future__ import annotations

import asyncio
from typing import Any

from ..llm.factory import make_chat_model


class ModelCache:
    """Chat models by (spec, instance); ``(spec, instance) in cache`` once one is made."""

    def __init__(self, settings: Any):
        self.settings = settings
        self._models: dict[tuple[str, str], Any] = {}
        self._loading: dict[tuple[str, str], asyncio.Future] = {}

    def __contains__(self, key: object) -> bool:
        return key in self._models

    def __len__(self) -> int:
        return len(self._models)

    async def get(self, spec: str, *, instance: str = "") -> Any:
        """The chat model for ``spec``. Making one runs off the loop, and callers that
        arrive meanwhile (a warm-up and the first suggestion) share that one load;
        a failed load raises its error to each of them and is tried again next time."""
        key = (spec, instance)
        if key not in self._models:
            task = self._loading.get(key)
            if task is None or task.done():
                task = self._loading[key] = asyncio.ensure_future(
                    asyncio.to_thread(make_chat_model, spec, self.settings, instance=instance)
                )
            try:
                model = await asyncio.shield(task)
            finally:
                if task.done() and self._loading.get(key) is task:
                    del self._loading[key]
            self._models.setdefault(key, model)
        return self._models[key]
