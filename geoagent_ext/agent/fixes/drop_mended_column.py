"""Columns a failing selection names that the contract's mend computes on the written file."""

from __future__ import annotations

import re

from .base import Diagnosis, Failure, Rule

_MISSING_IN_INDEX = re.compile(r"""^["']?\[(?P<names>[^\]]*)\] not in index""")


class DropMendedColumn(Rule):
    """``df[['code', 'station_count']]`` failing on a column the mend computes (``Failure.mended``):
    the selection without it; other missing columns are then the error the model sees."""

    strategy = "drop_mended_column"
    order = 5

    def diagnose(self, failure: Failure) -> Diagnosis | None:
        fixed = without_mended_columns(failure.code, failure.ename, failure.evalue, failure.lineno, failure.mended)
        if fixed is None:
            return None
        return Diagnosis(self.strategy, failure.evalue, name=fixed[1], fixed_code=fixed[0])

    def said(self, diagnosis: Diagnosis) -> str:
        return f"took `{diagnosis.name}` out of the selection: the contract's mend computes it on the written file"


def without_mended_columns(
    code: str, ename: str, evalue: str, lineno: int | None, mended: set[str]
) -> tuple[str, str] | None:
    """(the code with the selection on ``lineno`` without the ``mended`` columns it misses, those
    columns), or None."""
    if lineno is None:
        return None
    match = _MISSING_IN_INDEX.match(evalue) if ename == "KeyError" and lineno else None
    missing = {n.strip().strip("'\"") for n in match.group("names").split(",")} & mended if match else set()
    lines = code.splitlines()
    if not missing or not 0 < lineno <= len(lines):
        return None
    line = lines[lineno - 1]
    for name in missing:
        line = re.sub(rf"""\s*,\s*(['"]){re.escape(name)}\1|(['"]){re.escape(name)}\2\s*,\s*""", "", line)
    if line == lines[lineno - 1]:
        return None
    return "\n".join(lines[: lineno - 1] + [line] + lines[lineno:]), ", ".join(sorted(missing))
