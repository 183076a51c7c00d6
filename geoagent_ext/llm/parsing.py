"""Pull code and JSON out of model replies.

Local models return no structured tool calls, and small ones are sloppy: they
wrap JSON in fences, add a sentence after it, forget to close a fence when they
hit ``max_tokens``, or write Python literals (single quotes, ``True``) instead of
JSON. These helpers accept those quirks and return ``None`` when nothing usable
is there, so the caller can retry instead of running prose as code.
"""

from __future__ import annotations

import ast
import json
import re
from typing import Any

_FENCE = re.compile(
    r"^[ \t]*(`{3,}|~{3,})[ \t]*([\w+\-.]*)[^\n]*\n(.*?)(?:^[ \t]*\1[ \t]*$|\Z)",
    re.DOTALL | re.MULTILINE,
)
_PYTHON_TAGS = {"python", "py", "python3", "ipython", "ipython3"}


def fenced_blocks(text: str) -> list[tuple[str, str]]:
    """(language tag, body) of each fenced block; an unclosed last fence runs to the end."""
    return [(m.group(2).lower(), m.group(3).rstrip("\n")) for m in _FENCE.finditer(text or "")]


def _parses(code: str) -> bool:
    try:
        ast.parse(code)
    except (SyntaxError, ValueError):
        return False
    return True


def extract_code(text: str) -> str | None:
    """Python code from ```python fences (several are joined), else unfenced code, else None.

    An untagged fence counts only when it parses as Python and is not a bare
    literal (a JSON object is valid Python too, but it is not code to run).
    """
    blocks = fenced_blocks(text)
    tagged = [body for tag, body in blocks if tag in _PYTHON_TAGS and body.strip()]
    if not tagged:
        tagged = [body for tag, body in blocks if not tag and body.strip() and _parses(body) and not _is_literal(body)]
    if not tagged:
        return None if blocks else _unfenced_code(text or "")
    return "\n\n".join(b.strip("\n") for b in tagged)


_CODE_START = re.compile(r"^(?:import\s|from\s+[\w.]+\s+import\s|[A-Za-z_][\w.]*(?:\[[^\]]*\])?\s*(?:=|\())")
_ACTIONS = (ast.Import, ast.ImportFrom, ast.Assign, ast.AugAssign, ast.Call, ast.With, ast.For)


def _unfenced_code(text: str) -> str | None:
    """Code a small model wrote without a fence (typically after a 'Cause:' line).

    The longest run of lines that starts like a statement, parses, and does
    something (imports, assigns or calls); prose never parses as such.
    """
    lines = text.splitlines()
    for start, line in enumerate(lines):
        if not _CODE_START.match(line):
            continue
        for end in range(len(lines), start, -1):
            body = "\n".join(lines[start:end]).strip()
            if not body or not _parses(body) or _is_literal(body):
                continue
            if any(isinstance(node, _ACTIONS) for node in ast.walk(ast.parse(body))):
                return body
    return None


def _is_literal(code: str) -> bool:
    try:
        ast.literal_eval(code.strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False
    return True


_TRAILING_COMMA = re.compile(r",\s*([}\]])")


def _loads_lenient(candidate: str) -> Any:
    """json.loads, then without trailing commas, then as a Python literal."""
    decoder = json.JSONDecoder()
    for attempt in (candidate, _TRAILING_COMMA.sub(r"\1", candidate)):
        try:
            value, _ = decoder.raw_decode(attempt)
            return value
        except ValueError:
            pass
    try:
        value = ast.literal_eval(_balanced_prefix(candidate))
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        raise ValueError("not JSON") from None
    if isinstance(value, (dict, list)):
        return value
    raise ValueError("not a JSON object or array")


def _balanced_prefix(text: str) -> str:
    """The shortest prefix whose brackets balance (ignores brackets inside strings)."""
    depth, quote, escape = 0, "", False
    for i, ch in enumerate(text):
        if quote:
            if escape:
                escape = False
            elif ch == "\\":
                escape = True
            elif ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
            if depth == 0:
                return text[: i + 1]
    return text


def extract_json(text: str) -> Any | None:
    """The first JSON object or array in a reply (fenced or not), else None."""
    if not text:
        return None
    sources = [body for tag, body in fenced_blocks(text) if tag in ("json", "", "jsonc")]
    sources.append(text)
    for source in sources:
        for match in re.finditer(r"[{\[]", source):
            try:
                return _loads_lenient(source[match.start() :])
            except ValueError:
                continue
    return None
