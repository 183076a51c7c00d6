"""What a suggestion may know, gathered within a small time budget.

Suggestions come on every pause in typing, so nothing here may make the user
wait for the kernel: the kernel may be busy with the user's own cell or with an
agent step (which holds the connection lock for minutes). Each source runs as a
background task whose result is cached for a few seconds; a request waits at
most ``budget`` seconds and otherwise goes on without it. The task keeps
running (``asyncio.shield``), so the next keystroke finds the cache warm
instead of starting the same probe again.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger("geoagent.completion")

CACHE_SECONDS = 15.0
MAX_VARIABLES = 25
MAX_MEMBERS = 40

# `parcels.to_` or `gdf.geometry.ar` at the cursor: a dotted name of plain
# identifiers only, so introspecting it can never call user code.
_ATTRIBUTE_AT_CURSOR = re.compile(r"([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\.(\w*)$")
_NAME = re.compile(r"[A-Za-z_]\w{2,}")


@dataclass
class CursorContext:
    """Context found for one request (each part may be empty)."""

    variables: list[str] = field(default_factory=list)  # "parcels: GeoDataFrame 120 rows ..."
    expression: str = ""  # the object before the dot at the cursor, if any
    members: list[str] = field(default_factory=list)  # "to_crs(crs=None, epsg=None): Transform ..."
    docs: list[str] = field(default_factory=list)  # "geopandas.GeoDataFrame.to_crs(...): summary"
    waited: dict[str, float] = field(default_factory=dict)  # seconds spent per source

    def counts(self) -> dict[str, int]:
        return {"variables": len(self.variables), "members": len(self.members), "docs": len(self.docs)}


def attribute_at_cursor(before: str) -> tuple[str, str] | None:
    """(expression, typed member prefix) when the cursor follows ``name.``/``name.pre``."""
    line = before.rsplit("\n", 1)[-1]
    match = _ATTRIBUTE_AT_CURSOR.search(line)
    if not match:
        return None
    # `1.5` or `"a.b"` are not attribute accesses worth introspecting.
    start = match.start()
    if start > 0 and (line[start - 1].isdigit() or line[start - 1] in "'\""):
        return None
    return match.group(1), match.group(2)


def docs_query(before: str) -> str:
    """The statement being written, which is what the API docs should match."""
    lines = [ln for ln in before.splitlines() if ln.strip()]
    return "\n".join(lines[-2:])[-300:]


class _Cache:
    """Results (or still-running tasks) per key, for ``CACHE_SECONDS``."""

    def __init__(self) -> None:
        self._entries: dict[Any, tuple[float, asyncio.Task]] = {}

    def task(self, key: Any, make: Callable[[], Awaitable[Any]]) -> asyncio.Task:
        now = time.monotonic()
        entry = self._entries.get(key)
        if entry is not None:
            started, task = entry
            failed = task.done() and (task.cancelled() or task.exception() is not None)
            if now - started < CACHE_SECONDS and not failed:
                return task
        task = asyncio.ensure_future(make())
        # Retrieve the exception so asyncio does not log "never retrieved".
        task.add_done_callback(lambda t: t.cancelled() or t.exception())
        self._entries[key] = (now, task)
        if len(self._entries) > 256:  # many kernels/objects over a long session
            oldest = min(self._entries, key=lambda k: self._entries[k][0])
            self._entries.pop(oldest, None)
        return task


async def _within(task: asyncio.Task, budget: float) -> Any:
    """The task's result if it is ready within ``budget`` seconds, else None (it keeps running)."""
    try:
        return await asyncio.wait_for(asyncio.shield(task), budget)
    except asyncio.TimeoutError:
        return None
    except asyncio.CancelledError:
        if task.cancelled():  # the source was cancelled, not we
            return None
        raise
    except Exception as exc:  # a dead kernel, a probe error: suggest without it
        log.debug("completion context source failed: %s", exc)
        return None


class ContextGatherer:
    """Collects kernel variables, members at the cursor and API docs for a request.

    ``kernels`` is the run manager's ``KernelService``; ``index`` an async
    callable returning the ``KnowledgeIndex`` or None (the run manager's
    ``index``).
    """

    def __init__(self, kernels: Any, index: Callable[[], Awaitable[Any]], *, budget: float = 1.5):
        self.kernels = kernels
        self.index = index
        self.budget = budget
        self._cache = _Cache()
        self._index_task: asyncio.Task | None = None
        self._index_started = 0.0

    async def gather(self, kernel_id: str | None, before: str) -> CursorContext:
        ctx = CursorContext()
        attribute = attribute_at_cursor(before)
        jobs: dict[str, asyncio.Task] = {}
        if kernel_id:
            jobs["variables"] = self._cache.task(("vars", kernel_id), lambda: self.kernels.variables(kernel_id))
            if attribute:
                ctx.expression = attribute[0]
                jobs["members"] = self._cache.task(
                    ("members", kernel_id, attribute[0]), lambda: self.kernels.members(kernel_id, attribute[0])
                )
        query = docs_query(before)
        index = await self._ready_index() if query else None
        if index is not None:
            jobs["docs"] = self._cache.task(("docs", query), lambda: self._retrieve(index, query))
        started = time.monotonic()

        async def timed(name: str) -> Any:
            result = await _within(jobs[name], self.budget)
            ctx.waited[name] = round(time.monotonic() - started, 3)
            return result

        names = list(jobs)
        results = await asyncio.gather(*(timed(n) for n in names))
        for name, result in zip(names, results):
            if not result:
                continue
            if name == "variables":
                ctx.variables = [f"{v.name}: {v.summary or v.type}" for v in result[:MAX_VARIABLES]]
            elif name == "members":
                prefix = attribute[1] if attribute else ""
                chosen = [m for m in result if m.name.startswith(prefix)] or list(result)
                ctx.members = [_member_line(m) for m in chosen[:MAX_MEMBERS]]
            elif name == "docs":
                ctx.docs = result
        return ctx

    async def _ready_index(self) -> Any:
        """The index once it is loaded and ready, else None (and warm it up meanwhile).

        Opening it the first time costs seconds to minutes (importing chromadb,
        loading vectors); suggestions go on without docs until then instead of
        each paying the whole budget. A missing index is looked at again after
        a minute (the user may have run `jupyter geoagent index build`).
        """
        task = self._index_task
        stale = (
            task is not None
            and task.done()
            and (task.cancelled() or task.exception() or task.result() is None)
            and time.monotonic() - self._index_started > 60
        )
        if task is None or stale:
            self._index_started = time.monotonic()
            task = self._index_task = asyncio.ensure_future(self._open_index())
            task.add_done_callback(lambda t: t.cancelled() or t.exception())
        if not task.done() or task.cancelled() or task.exception() is not None:
            return None
        return task.result()

    async def _open_index(self) -> Any:
        index = await self.index()
        if index is None:
            return None
        try:
            await asyncio.to_thread(index.ensure_ready)
        except Exception as exc:  # missing or broken: suggestions without docs
            log.info("completion: no API docs (%s)", exc)
            return None
        return index

    async def _retrieve(self, index: Any, query: str) -> list[str]:
        # chromadb and the embedding model block: keep them off the event loop.
        records = await asyncio.to_thread(index.retrieve, query, k=3)
        return [f"{r.qualified_name}{r.signature or ''}: {(r.summary or '')[:160]}" for r in records]


def _member_line(member: Any) -> str:
    head = member.signature or member.name
    if not head.startswith(member.name):
        head = f"{member.name}{head}"
    doc = (member.doc or "").strip()
    return f"{head}: {doc[:100]}" if doc else head
