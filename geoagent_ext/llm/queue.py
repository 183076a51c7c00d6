"""Fair turns on a model that serves one call at a time (the local llama.cpp engine).

Why: the engine is one process-wide context behind a ``threading.Lock``. Concurrent runs
(different kernels) would wait on that lock in an order the OS picks, a busy run could
take it again and again, and the wait would count towards each call's timeout. Here a
call first takes a turn in a first-come-first-served line (a call that comes back for
more goes to the back, so no run starves), waiting costs no timeout, and each waiter
hears its place in the line whenever it changes ("2nd in line").

Models say they are serial with a ``queue_key`` (one line per key, so two objects over
the same weights share it); models without one (cloud providers) are not queued.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

# place -> None; 1 = next in line; 0 = the turn has come (sent only after a wait)
OnPlace = Callable[[int], Any]


@dataclass(eq=False)
class _Ticket:
    on_place: OnPlace | None
    granted: asyncio.Future = field(default_factory=lambda: asyncio.get_running_loop().create_future())
    place: int = 0


class ModelQueue:
    """First come, first served turns on one serial model."""

    def __init__(self) -> None:
        self._line: deque[_Ticket] = deque()
        self._busy: _Ticket | None = None

    @property
    def waiting(self) -> int:
        return len(self._line)

    @property
    def busy(self) -> bool:
        return self._busy is not None

    @asynccontextmanager
    async def turn(self, on_place: OnPlace | None = None) -> AsyncIterator[None]:
        """Hold the model for the body; waits (without a deadline) behind earlier callers."""
        ticket = _Ticket(on_place)
        if self._busy is None and not self._line:
            self._busy = ticket
        else:
            self._line.append(ticket)
            self._announce()
            try:
                await ticket.granted
            except BaseException:  # cancelled while waiting (or just after being granted)
                if self._busy is ticket:
                    self._next()
                else:
                    self._line.remove(ticket)
                    self._announce()
                raise
            _tell(ticket, 0)
        try:
            yield
        finally:
            self._next()

    def _next(self) -> None:
        self._busy = None
        while self._line:
            ticket = self._line.popleft()
            if not ticket.granted.done():
                self._busy = ticket
                ticket.granted.set_result(None)
                break
        self._announce()

    def _announce(self) -> None:
        for place, ticket in enumerate(self._line, 1):
            if ticket.place != place:
                ticket.place = place
                _tell(ticket, place)


def _tell(ticket: _Ticket, place: int) -> None:
    if ticket.on_place is not None:
        try:
            ticket.on_place(place)
        except Exception:  # a listener's bug must not break the line
            pass


def place_text(place: int) -> str:
    """ "waiting for the model: 2nd in line", the words every face shows for a ``model_waiting``."""
    suffix = "th" if 10 <= place % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(place % 10, "th")
    return f"waiting for the model: {place}{suffix} in line"


_QUEUES: dict[str, ModelQueue] = {}


def queue_for(chat_model: Any) -> ModelQueue | None:
    """The process-wide line of a serial model, None for models that serve calls in parallel."""
    key = getattr(chat_model, "queue_key", None)
    if not key:
        return None
    return _QUEUES.setdefault(str(key), ModelQueue())


def queue_stats() -> dict[str, dict[str, int | bool]]:
    """Every line in this process: {key: {busy, waiting}} (for the status endpoint)."""
    return {key: {"busy": q.busy, "waiting": q.waiting} for key, q in _QUEUES.items()}
