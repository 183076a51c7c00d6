"""Turn a run's events into short markdown for the Jupyter AI chat.

The chat is a summary face: the plan, one line per step outcome, a message when
the run needs the user, and a closing summary. Everything else (attempts,
diffs, the search tree) belongs to the panel, which a button opens.

Chat messages are rendered as untrusted markdown by JupyterLab: HTML is
sanitised, and a ``<button data-commandlinker-command=...>`` survives (the
sanitizer's default ``allowCommandLinker``); JupyterLab asks the user to
confirm before it runs a command from untrusted content. Every text leaving
here is passed through ``redact`` even though events are already redacted, so
a future event field that skips ``Run.emit`` still cannot leak a key.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass

from ..agent.events import Event
from ..redact import redact

OPEN_PANEL_COMMAND = "geoagent:open-panel"
UNDO_RUN_COMMAND = "geoagent:undo-run"  # the panel's Reject all: the run's cells out, in one undoable change
MAX_TEXT = 240
MAX_ERROR = 400
MAX_CODE_LINES = 30


@dataclass
class Post:
    """One piece of chat output: appended to the running message, or a message of its own."""

    text: str
    separate: bool = False  # needs attention (needs you, approval) or closes the run (summary)
    pause: bool = False  # after this the run waits for the user, or has ended


def plain(text: str, limit: int = MAX_TEXT) -> str:
    """One line of escaped text (LLM-written step descriptions may hold markup)."""
    line = " ".join((text or "").split())
    if len(line) > limit:
        line = line[: limit - 1] + "…"
    return html.escape(line, quote=False)


def fenced(text: str, lang: str = "", max_lines: int = MAX_CODE_LINES) -> str:
    """A fenced block whose fence is longer than any backtick run inside (so it cannot break out)."""
    lines = (text or "").rstrip().splitlines() or [""]
    if len(lines) > max_lines:
        lines = lines[:max_lines] + [f"... ({len(lines) - max_lines} more lines in the panel)"]
    body = "\n".join(lines)
    longest = max((len(m) for m in re.findall(r"`+", body)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{lang}\n{body}\n{fence}"


def panel_button(run_id: str, label: str = "Open the GeoAgent panel", command: str = OPEN_PANEL_COMMAND) -> str:
    args = html.escape(json.dumps({"run_id": run_id}), quote=True)
    return f'<button data-commandlinker-command="{command}" data-commandlinker-args="{args}">{label}</button>'


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


class ChatFormatter:
    """Stateful: remembers the plan so outcomes can say "step 2 of 4" and its description."""

    def __init__(self, run_id: str, notebook: str | None = None):
        self.run_id = run_id
        self.notebook = notebook
        self.order: list[str] = []
        self.descriptions: dict[str, str] = {}

    def _step(self, subtask_id: str) -> str:
        number = self.order.index(subtask_id) + 1 if subtask_id in self.order else "?"
        return f"**{number}.** {plain(self.descriptions.get(subtask_id, subtask_id))}"

    def _plan(self, subtasks, start: int = 0) -> str:
        return "\n".join(
            f"{i}. {plain(s.description)}" + (f" — *{plain(s.crs_advice)}*" if s.crs_advice else "")
            for i, s in enumerate(subtasks[start:], start=start + 1)
        )

    def feed(self, event: Event) -> list[Post]:
        posts = self._posts(event)
        return [Post(redact(p.text), p.separate, p.pause) for p in posts]

    def _posts(self, e: Event) -> list[Post]:
        t = e.type
        if t == "run_started":
            where = f" in `{plain(self.notebook or e.notebook or 'the notebook')}`"
            return [Post(f"Working on it{where} (run `{e.run_id}`).")]
        if t == "planned":
            self.order = [s.id for s in e.subtasks]
            self.descriptions.update({s.id: s.description for s in e.subtasks})
            return [Post(f"**Plan**\n\n{self._plan(e.subtasks)}")]
        if t == "replanned":
            known = set(self.order)  # the plan keeps the steps done so far, then new ones
            done = next((i for i, s in enumerate(e.subtasks) if s.id not in known), len(e.subtasks))
            self.order = [s.id for s in e.subtasks]
            self.descriptions.update({s.id: s.description for s in e.subtasks})
            return [Post(f"Plan revised ({plain(e.reason)}). Next:\n\n" + self._plan(e.subtasks, done))]
        if t == "subtask_inserted":
            self.descriptions[e.subtask.id] = e.subtask.description
            at = self.order.index(e.before) if e.before in self.order else len(self.order)
            self.order.insert(at, e.subtask.id)
            return [Post(f"- ➕ {self._step(e.subtask.id)} (added: {plain(e.reason, 160)})")]
        if t == "solved":
            how = "your fix" if e.by == "human" else _plural(e.attempts, "attempt")
            return [Post(f"- ✓ {self._step(e.subtask_id)} ({how})")]
        if t == "skipped":
            return [Post(f"- ⤼ {self._step(e.subtask_id)} skipped")]
        if t == "hint_given":
            return [Post(f"Trying {self._step(e.subtask_id)} again with your hint.")]
        if t == "approval_given":
            verdict = "Approved" if e.approved else "Rejected"
            return [Post(f"{verdict}: {self._step(e.subtask_id)}")]
        if t == "needs_human":
            text = (
                f"⚠ {self._step(e.subtask_id)} **needs you** after {_plural(e.attempts, 'attempt')}:\n\n"
                f"{fenced(e.error[:MAX_ERROR], 'text', 8)}\n\n"
                + _still_missing(e.unmet)
                + "Reply with a hint to try again, `skip` to go on without it, or `cancel`. "
                f"To edit the code yourself: {panel_button(e.run_id)} "
                "(or *GeoAgent: Open panel* in the command palette)."
            )
            return [Post(text, separate=True, pause=True)]
        if t == "approval_requested":
            text = (
                f"⏸ {self._step(e.subtask_id)} waits for your approval before it runs in your kernel:\n\n"
                f"{fenced(e.code, 'python')}\n\n"
                f"Reply `approve`, or tell me what to change; `cancel` stops the run. {panel_button(e.run_id)}"
            )
            return [Post(text, separate=True, pause=True)]
        if t == "crs_advised":
            return [
                Post(
                    "**CRS advice** (from pyproj's database, for this data):\n\n"
                    + "\n".join(plain(line, 400) for line in e.lines)
                )
            ]
        if t == "contract_stated":
            lines = "\n".join(
                f"- `{plain(r.output)}`: {plain(r.text, 300)}"
                + ("" if r.checkable else " *(not checkable)*")
                + (" *(proposed by the model)*" if r.origin == "model" else "")
                for r in e.contract.requirements
            )
            if e.awaiting_review:
                return [
                    Post(
                        f"**What the output must satisfy** (checked on the written files):\n\n{lines}\n\n"
                        "Reply `approve` to go on with these, add requirements (one per line), or edit and "
                        f"delete them in {panel_button(e.run_id)}.",
                        separate=True,
                        pause=True,
                    )
                ]
            who = " (as you left it)" if e.by == "user" else ""
            return [Post(f"**What the output must satisfy**{who}:\n\n{lines}")]
        if t == "declined":
            return [Post(f"I can't do this with the data here: {plain(e.reason, MAX_ERROR)}", separate=True)]
        if t == "finished":
            text = summary(e)
            if e.stats.solved:
                text += (
                    "\n\nNot what you wanted? "
                    + panel_button(e.run_id, "Undo this run", UNDO_RUN_COMMAND)
                    + " takes its cells out of the notebook (Ctrl+Z there brings them back) and offers to "
                    "delete the variables it created."
                )
            return [Post(text, separate=True, pause=True)]
        return []  # progress, code, executions, search nodes: the panel shows those


_STATUS = {
    "succeeded": "✅ Done",
    "partial": "◐ Partly done",
    "failed": "❌ Failed",
    "cancelled": "⏹ Cancelled",
    "declined": "Declined",
    "interrupted": "Interrupted",
}


def summary(e) -> str:
    """The closing line: status, steps, attempts, LLM calls, time."""
    s = e.stats
    head = _STATUS.get(e.status, e.status)
    parts = [
        f"{s.solved}/{_plural(s.subtasks, 'step')}",
        _plural(s.attempts, "attempt"),
        _plural(s.llm_calls, "LLM call"),
        f"{s.seconds:.1f} s",
    ]
    text = f"**{head}** · " + " · ".join(parts)
    if e.unmet:
        text += "\n\nNot met on the written files:\n" + "\n".join(f"- ✗ {plain(u, 300)}" for u in e.unmet)
    elif e.message and e.status not in ("succeeded", "cancelled"):
        text += f"\n\n{plain(e.message, MAX_ERROR)}"
    if e.not_verified:
        text += "\n\nNot verified (no check can tell):\n" + "\n".join(f"- ? {plain(n, 300)}" for n in e.not_verified)
    return text


def _still_missing(unmet: list[str], most: int = 5) -> str:
    """The deliverable's unmet requirements at a hand-over, as a short list (empty when none)."""
    if not unmet:
        return ""
    lines = "\n".join(f"- {plain(u, 200)}" for u in unmet[:most])
    more = f"\n- … and {len(unmet) - most} more" if len(unmet) > most else ""
    return f"The deliverable still lacks:\n{lines}{more}\n\n"
