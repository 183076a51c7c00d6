"""Pull summary, parameters and doctest examples out of a docstring.

Why both docstring-parser and a regex: docstring-parser understands numpydoc,
Google and reST sections (the geo stack mixes all three), but its "examples"
handling differs per style; doctest blocks (``>>>`` lines) are uniform, so we
cut them out ourselves.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import docstring_parser

MAX_EXAMPLE_LINES = 14
MAX_DESCRIPTION_CHARS = 400


@dataclass
class DocInfo:
    summary: str = ""
    description: str = ""
    parameters: list[str] = field(default_factory=list)
    examples: str = ""


def _first_paragraph(doc: str) -> str:
    para = []
    for line in doc.strip().splitlines():
        if not line.strip():
            if para:
                break
            continue
        para.append(line.strip())
    return " ".join(para)


def _clean(text: str | None) -> str:
    return re.sub(r"\s+", " ", text or "").strip()


def doctest_examples(doc: str) -> str:
    """The first doctest blocks (``>>>`` and ``...`` lines, no outputs), capped."""
    lines: list[str] = []
    for raw in doc.splitlines():
        line = raw.strip()
        if line.startswith(">>>") or (line.startswith("...") and lines):
            code = line[4:] if len(line) > 3 else ""
            lines.append(("... " if line.startswith("...") else ">>> ") + code.rstrip())
            if len(lines) >= MAX_EXAMPLE_LINES:
                break
    return "\n".join(lines)


def parse_docstring(doc: str | None) -> DocInfo:
    """Best-effort structured view of a docstring; never raises."""
    if not doc:
        return DocInfo()
    info = DocInfo(examples=doctest_examples(doc))
    try:
        parsed = docstring_parser.parse(doc)
    except Exception:  # malformed sections are common in the wild
        info.summary = _clean(_first_paragraph(doc))[:500]
        return info
    info.summary = _clean(parsed.short_description) or _clean(_first_paragraph(doc))
    info.summary = info.summary[:500]
    long = _clean(parsed.long_description)
    if long and not long.startswith(">>>"):
        info.description = long[:MAX_DESCRIPTION_CHARS]
    for param in parsed.params[:25]:
        name = (param.arg_name or "").strip()
        if not name or " " in name:
            continue
        type_name = _clean(param.type_name)[:80]
        info.parameters.append(f"{name}: {type_name}" if type_name else name)
    return info
