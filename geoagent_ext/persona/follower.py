"""Follow one run's events and write them into the chat, for the whole life of the run.

The follower is a task of its own, not part of one chat turn: the user may
resolve a stuck step in the panel instead of the chat, and the chat should
still show how the run went on. It tells the persona when the run pauses
(waits for the user, or ends) so a turn knows when to hand the chat back.
"""

from __future__ import annotations

import asyncio
import logging
from time import time
from typing import Any

from jupyterlab_chat.models import Message, NewMessage

from ..agent.events import Event
from ..llm.queue import place_text
from .chat_format import ChatFormatter, Post

log = logging.getLogger(__name__)


class RunFollower:
    def __init__(self, persona: Any, run: Any, quiet_until: int = 0):
        """``quiet_until``: events up to this seq were shown already (by an earlier
        persona instance); they only rebuild the formatter's state."""
        self.persona = persona
        self.run = run
        self.format = ChatFormatter(run.id, run.notebook)
        self.quiet_until = quiet_until
        self._resumed_at = 0  # pauses at or before this seq are old news
        self.idle = asyncio.Event()
        self._message_id: str | None = None
        self.task = asyncio.ensure_future(self._follow())

    @property
    def done(self) -> bool:
        return self.task.done()

    def resume(self) -> None:
        """The user acted: only a pause emitted after this moment ends the turn."""
        history = self.run.bus.history
        self._resumed_at = history[-1].seq if history else 0
        self.idle.clear()

    async def wait_pause(self) -> None:
        """Until the run waits for the user or has ended."""
        waiter = asyncio.ensure_future(self.idle.wait())
        try:
            await asyncio.wait([waiter, self.task], return_when=asyncio.FIRST_COMPLETED)
        finally:
            waiter.cancel()

    async def _follow(self) -> None:
        try:
            with self.persona._keep_chat_alive():
                async for event in self.run.bus.subscribe(replay=True):
                    self._on_event(event)
        except Exception:  # the chat went away or a bug: never take the run down with us
            log.exception("GeoAgent persona: stopped following run %s", self.run.id)
        finally:
            self._status(None)
            self.idle.set()

    def _on_event(self, event: Event) -> None:
        posts = self.format.feed(event)
        if event.seq <= self.quiet_until:
            return
        if event.type == "progress":
            self._status(f"is {event.message[:60]}…")
        elif event.type == "model_waiting" and event.place:
            self._status(f"is {place_text(event.place)}…")
        elif event.type in ("subtask_started", "hint_given", "approval_given"):
            self.idle.clear()
            self._status("is working…")
        for post in posts:
            self._post(post)
            if post.pause and event.seq > self._resumed_at:
                self._status(None)
                self.idle.set()

    def _post(self, post: Post) -> None:
        chat, sender = self.persona.chat, self.persona.id
        if post.separate or self._message_id is None:
            message_id = chat.add_message(NewMessage(body=post.text, sender=sender))
            self._message_id = None if post.separate else message_id
            return
        chat.update_message(
            Message(id=self._message_id, body="\n\n" + post.text, time=time(), sender=sender, raw_time=False),
            append=True,
            trigger_actions=[],
        )

    def _status(self, text: str | None) -> None:
        try:
            if text is None:
                self.persona.clear_status()
            else:
                self.persona.set_status(text)
        except Exception:  # a status indicator is cosmetic
            pass
