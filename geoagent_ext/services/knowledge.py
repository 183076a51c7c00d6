"""The knowledge index, opened on first use and kept (or None: runs go on without retrieval)."""

from __future__ import annotations

import asyncio
import importlib
import logging
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)

BUILD_HINT = "Build it with `jupyter geoagent index build`."


def _log_warning(message: str) -> None:
    log.warning("GeoAgent: %s", message)


class LazyKnowledgeIndex:
    """Opens the configured ``KnowledgeIndex`` once, on first ``get()``.

    Opening imports chromadb (~20 s on a busy 2-core box), so it runs in a thread and
    the event loop keeps serving. ``auto_build`` is the index's own: the server never
    builds (a request must not wait minutes), the CLI does. Why it is unavailable goes
    to ``warn`` once (the server's log, the CLI's console).
    """

    def __init__(
        self,
        settings: Any,
        *,
        enabled: bool = True,
        auto_build: bool = False,
        warn: Callable[[str], None] | None = None,
    ):
        self.settings = settings
        self.enabled = enabled
        self.auto_build = auto_build
        self.warn = warn or _log_warning
        self._index: Any = None
        self._tried = not enabled

    async def get(self) -> Any:
        """The index, or None when disabled or unavailable (then the caller goes on without)."""
        if not self._tried:
            self._tried = True
            try:
                await asyncio.to_thread(importlib.import_module, "geoagent_ext.rag")
                from ..rag import KnowledgeIndex

                self._index = await asyncio.to_thread(KnowledgeIndex.open, self.settings, auto_build=self.auto_build)
            except Exception as exc:
                self.warn(f"API index unavailable ({exc}); runs continue without retrieval. {BUILD_HINT}")
        return self._index
