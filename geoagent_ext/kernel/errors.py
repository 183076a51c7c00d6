"""Shorten a traceback into one clear line.

LLMs repair better from ``NameError: name 'x' is not defined (line 3: y = x + 1)``
than from 60 lines of ANSI-coloured frames inside pandas. What a GIS failure means
is the agent's (``agent/gis_hints.py``): this layer only carries errors.
"""

from __future__ import annotations

import re

from ..redact import redact
from .results import ExecutionError

_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[@-Z\\-_]")
# IPython >= 8 names the submitted cell "Cell In[7], line 3"; older ones use the
# ipykernel temp file. The first such frame is the submitted code itself.
_CELL_FRAME = re.compile(r"(?:Cell In\s*\[\s*\d*\s*\]|ipykernel_\d+[/\\]\d+\.py|<geoagent-trial>)[^\n]*?line (\d+)")
_SYNTAX_LINE = re.compile(r"\(.*?, line (\d+)\)\s*$")


def strip_ansi(text: str) -> str:
    return _ANSI.sub("", text)


def failing_line(ename: str, evalue: str, traceback: list[str], code: str | None) -> int | None:
    """Line number, in the submitted code, of the statement that failed."""
    text = strip_ansi("\n".join(traceback))
    m = _CELL_FRAME.search(text)
    if m:
        return int(m.group(1))
    if ename in ("SyntaxError", "IndentationError", "TabError"):
        m = _SYNTAX_LINE.search(evalue)
        if m:
            return int(m.group(1))
    return None


def shorten_error(
    ename: str,
    evalue: str,
    traceback: list[str] | None = None,
    code: str | None = None,
    *,
    lineno: int | None = None,
) -> ExecutionError:
    """Build an :class:`ExecutionError` with the short message and hints."""
    traceback = list(traceback or [])
    evalue_clean = strip_ansi(evalue).strip()
    if lineno is None:
        lineno = failing_line(ename, evalue_clean, traceback, code)
    # SyntaxErrors name the temp file: "(2845466573.py, line 2)" is noise once we give the line.
    evalue_short = _SYNTAX_LINE.sub("", evalue_clean).strip() if ename.endswith("Error") else evalue_clean
    # Redacted before the cut: a cut through a secret leaves a piece no rule recognises.
    first = redact(evalue_short.splitlines()[0]) if evalue_short else ""
    if len(first) > 300:
        first = first[:297] + "..."
    message = f"{ename}: {first}" if first else ename
    if lineno is not None and code:
        lines = code.splitlines()
        if 1 <= lineno <= len(lines):
            src = redact(lines[lineno - 1].strip())
            if len(src) > 120:
                src = src[:117] + "..."
            message += f" (line {lineno}: {src})"
        else:
            message += f" (line {lineno})"
    return ExecutionError(
        ename=ename,
        evalue=evalue,
        traceback=traceback,
        message=message,
        lineno=lineno,
    )
