"""How much of a step's output an event carries.

Every event is kept in the run's history, sent to each open panel and written to the run
log, and one step's output rides in several events (its trial, its live execution, its
``solved``): a step that prints megabytes would cost that many times over. Events carry
each text field up to ``FIELD_LIMIT`` characters, its start and its end around a marker
that says how long it was; the full outputs of an accepted step stay with the run
(``Run.results``) for its notebook cell (``Run.full_outputs``).
"""

from __future__ import annotations

import json
from typing import Any

# Characters per text field of an event (stdout, stderr, the error, each output's text or
# mime value): about 400 lines of 80 characters, more than anyone reads in the panel, and
# room for a typical plot's base64 PNG; an event with a few such fields stays well under 1 MB.
FIELD_LIMIT = 32_000
# Characters over all of one result's outputs: a step that displays in a loop is one event
# of bounded size too; the outputs past it are left out with a marker.
OUTPUTS_LIMIT = 3 * FIELD_LIMIT

_WHERE = "the full output of an accepted step is in its notebook cell"


def marker(length: int) -> str:
    return f"\n… [output truncated: {length:,} characters; {_WHERE}] …\n"


def shortened(text: str, limit: int = FIELD_LIMIT) -> str:
    """``text`` when it fits, else its start and its end around a marker: a failure's message
    is at the end of what a step printed, what it was doing at the start."""
    if len(text) <= limit:
        return text
    half = limit // 2
    return text[:half] + marker(len(text)) + text[len(text) - half :]


def bounded_outputs(outputs: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], bool]:
    """(nbformat outputs within ``FIELD_LIMIT`` per text and ``OUTPUTS_LIMIT`` in all, whether
    anything was cut). A binary mime value (an image) that does not fit is left out whole:
    half of a base64 image is no image."""
    kept: list[dict[str, Any]] = []
    room, cut = OUTPUTS_LIMIT, False
    for index, output in enumerate(outputs):
        if room <= 0:
            left = len(outputs) - index
            kept.append(
                {
                    "output_type": "stream",
                    "name": "stdout",
                    "text": f"\n… [{left:,} more output(s) left out; {_WHERE}] …\n",
                }
            )
            return kept, True
        bounded, size = _bounded_output(output, min(room, FIELD_LIMIT))
        cut = cut or bounded is not output
        kept.append(bounded)
        room -= size
    return kept, cut


def _bounded_output(output: dict[str, Any], limit: int) -> tuple[dict[str, Any], int]:
    """(the output with each text within ``limit``, its size in characters); the same dict
    when nothing was cut."""
    changed: dict[str, Any] = {}
    size = 0
    for key, value in output.items():
        if key == "data" and isinstance(value, dict):
            bundle, bundle_size = _bounded_bundle(value, limit)
            if bundle is not value:
                changed[key] = bundle
            size += bundle_size
        elif key == "text" and isinstance(value, (str, list)):
            text = "".join(value)
            size += min(len(text), limit)
            if len(text) > limit:
                changed[key] = shortened(text, limit)
        elif key == "traceback" and isinstance(value, list):
            text = "\n".join(map(str, value))
            size += min(len(text), limit)
            if len(text) > limit:
                changed[key] = shortened(text, limit).split("\n")
    return ({**output, **changed} if changed else output), size


def _bounded_bundle(data: dict[str, Any], limit: int) -> tuple[dict[str, Any], int]:
    """A mime bundle with text values shortened and other values that do not fit left out,
    said in its ``text/plain``."""
    bundle, size, notes = {}, 0, []
    for mime, value in data.items():
        shortenable = isinstance(value, str) or (isinstance(value, list) and all(isinstance(v, str) for v in value))
        text = "".join(value) if shortenable else json.dumps(value, default=str)
        if len(text) <= limit:
            bundle[mime], size = value, size + len(text)
        elif shortenable and _is_text(mime):
            bundle[mime], size = shortened(text, limit), size + limit
        else:
            notes.append(f"{marker(len(text)).strip()} ({mime} left out)")
    if bundle.keys() == data.keys() and all(bundle[m] is data[m] for m in data):
        return data, size
    if notes:
        bundle["text/plain"] = "\n".join([*_lines(bundle.get("text/plain")), *notes])
    return bundle, size


def _lines(text: Any) -> list[str]:
    return ["".join(text)] if isinstance(text, (str, list)) and text else []


def _is_text(mime: str) -> bool:
    return mime.startswith("text/") or mime.endswith(("json", "+xml", "javascript"))
