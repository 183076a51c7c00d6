"""The completion prompt, and turning a chat model's reply into text to insert.

Chat (instruct) models, local ones above all, rarely answer with just the
continuation: they wrap it in a fence, repeat the line being typed, or go on
past the code that follows the cursor. ``clean_completion`` undoes each of
those, so the ghost text is exactly what Tab should insert.
"""

from __future__ import annotations

import re

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

CURSOR = "<CURSOR>"
MAX_LINES = 8
MAX_PREVIOUS = 2500
MAX_CELL = 3000

COMPLETION_SYSTEM = f"""You are GeoAgent's code completion inside a Jupyter notebook cell.
Continue the Python code exactly at {CURSOR}.
Rules:
- Answer with only the text to insert at {CURSOR}: no explanation, no repetition of the code
  before {CURSOR}.
- Insert a short, useful continuation: finish the current statement, or at most a few lines.
- Use only the variables, members and functions listed below; keep their exact names.
- Distances, buffers and areas need a projected (metric) CRS."""

_OPEN_FENCE = re.compile(r"^\s*(`{3,}|~{3,})[\w+\-.]*[^\n]*\n?")


def _clip_tail(text: str, limit: int) -> str:
    return text if len(text) <= limit else "...\n" + text[-limit:]


def completion_messages(
    before: str,
    after: str,
    previous_cells: list[str],
    *,
    variables: list[str] | None = None,
    expression: str = "",
    members: list[str] | None = None,
    docs: list[str] | None = None,
) -> list[BaseMessage]:
    """Stable parts first (earlier cells, variables), the cell with the cursor last."""
    parts: list[str] = []
    cells = "\n\n".join(c.strip() for c in previous_cells if c and c.strip())
    if cells:
        parts.append(f"## Earlier cells of the notebook\n```python\n{_clip_tail(cells, MAX_PREVIOUS)}\n```")
    if variables:
        parts.append("## Variables in the kernel\n" + "\n".join(f"- {v}" for v in variables))
    if members and expression:
        parts.append(f"## Members of `{expression}`\n" + "\n".join(f"- {m}" for m in members))
    if docs:
        parts.append("## API documentation\n" + "\n".join(f"- {d}" for d in docs))
    cell = _clip_tail(before, MAX_CELL) + CURSOR + after[:MAX_CELL]
    parts.append(f"## The cell being written\n```python\n{cell}\n```\nWrite the text to insert at {CURSOR}.")
    return [SystemMessage(COMPLETION_SYSTEM), HumanMessage("\n\n".join(parts))]


def clean_completion(raw: str, before: str, after: str = "", *, final: bool = False) -> str:
    """The part of ``raw`` that belongs at the cursor.

    ``final=False`` is for a reply still streaming: text that could be the
    start of a fence or of the echoed line is held back instead of shown.
    """
    text = raw.replace("\r\n", "\n")
    fence = _OPEN_FENCE.match(text)
    if fence:
        if "\n" not in text[fence.start() :] and not final:
            return ""  # "```pyth": the fence line is not complete yet
        text = text[fence.end() :]
    elif not final and text.lstrip().startswith("`") and len(text.strip()) < 3:
        return ""
    close = re.search(r"^\s*(`{3,}|~{3,})", text, re.MULTILINE)
    if close:
        text = text[: close.start()]
    elif not final and text.endswith(("`", "``")):
        text = text.rstrip("`")
    line = before.rsplit("\n", 1)[-1].lstrip()
    if not final and line and line.startswith(text.lstrip()):
        return ""  # so far only a repetition of the line being typed
    text = _strip_echo(text, before)
    text = text.replace(CURSOR, "")
    text = _cut_at_suffix(text, after)
    lines = text.split("\n")
    if len(lines) > MAX_LINES:
        lines = lines[:MAX_LINES]
    # Trailing blanks carry nothing yet, and dropping them keeps a streamed
    # suggestion growing monotonically (each text a prefix of the next).
    return "\n".join(lines).rstrip()


def _strip_echo(text: str, before: str) -> str:
    """Drop what the model repeated of the code before the cursor."""
    if not before:
        return text
    if text.startswith(before):
        return text[len(before) :]
    line = before.rsplit("\n", 1)[-1]
    stripped = line.lstrip()
    if stripped and text.lstrip().startswith(stripped):
        rest = text.lstrip()[len(stripped) :]
        return rest
    # The model restarted the cell: drop the leading lines equal to earlier lines.
    earlier = {ln.strip() for ln in before.split("\n")[:-1] if ln.strip()}
    lines = text.split("\n")
    while len(lines) > 1 and lines[0].strip() and lines[0].strip() in earlier:
        lines.pop(0)
    text = "\n".join(lines)
    if stripped and text.lstrip().startswith(stripped):
        return text.lstrip()[len(stripped) :]
    return text


def _cut_at_suffix(text: str, after: str) -> str:
    """Stop where the reply reaches code that already follows the cursor."""
    first = next((ln.strip() for ln in after.split("\n") if ln.strip()), "")
    if not first:
        return text
    same_line = after.split("\n", 1)[0]
    if same_line.strip() and text.endswith(same_line):
        text = text[: len(text) - len(same_line)]
    lines = text.split("\n")
    for i, ln in enumerate(lines):
        if i > 0 and ln.strip() == first:
            return "\n".join(lines[:i]).rstrip("\n")
    return text
