"""In-process fan-out of a run's events to any number of live subscribers.

A subscriber first receives the history (so a late panel or a reconnecting
websocket catches up), then live events, and its iterator ends after the
terminal ``finished`` event. Slow subscribers get their own unbounded queue so
one stalled browser tab never blocks the agent.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable

from .events import TERMINAL_TYPES, Event


class EventBus:
    def __init__(self) -> None:
        self.history: list[Event] = []
        self._queues: list[asyncio.Queue[Event]] = []
        self._listeners: list[Callable[[Event], None]] = []

    @property
    def finished(self) -> bool:
        return bool(self.history) and self.history[-1].type in TERMINAL_TYPES

    def publish(self, event: Event) -> None:
        self.history.append(event)
        for queue in list(self._queues):
            queue.put_nowait(event)
        for listener in list(self._listeners):
            listener(event)

    def add_listener(self, listener: Callable[[Event], None]) -> None:
        """Synchronous callback for every new event (run log, CLI progress)."""
        self._listeners.append(listener)

    async def subscribe(self, replay: bool = True, after_seq: int = 0) -> AsyncIterator[Event]:
        queue: asyncio.Queue[Event] = asyncio.Queue()
        if replay:
            for event in self.history:
                if event.seq > after_seq:
                    queue.put_nowait(event)
        if self.finished and queue.empty():
            return
        self._queues.append(queue)
        try:
            while True:
                event = await queue.get()
                yield event
                if event.type in TERMINAL_TYPES:
                    return
        finally:
            self._queues.remove(queue)
