"""``target['c'] = other['s']`` between frames whose rows differ: pandas aligns by index and leaves rows empty."""

from __future__ import annotations

import ast
from typing import Any

from .. import codeinfo
from .base import Diagnosis, Failure, Rule, TrialFacts, for_each


class OwnColumn(Rule):
    """A value assigned from another frame fills the rows whose index labels it holds and leaves the
    others empty (or, when the indexes overlap by chance, gives them another row's value): the trial
    fails such a step, and when the target has the source's column from a join, the value becomes
    the target's own column."""

    strategy = "own_column"
    order = 30

    async def guard(self, kernel: Any, code: str, facts: TrialFacts) -> str:
        return for_each(
            cross_frame_assignments(code),
            "_geoagent_t, _geoagent_tc, _geoagent_s, _geoagent_sc, _geoagent_line",
            [
                "_geoagent_a, _geoagent_b = globals().get(_geoagent_t), globals().get(_geoagent_s)",
                "if _geoagent_a is not _geoagent_b and hasattr(_geoagent_a, 'columns') "
                "and hasattr(_geoagent_b, 'index'):",
                "    _geoagent_empty = int((~_geoagent_a.index.isin(_geoagent_b.index)).sum())",
                "    if _geoagent_empty:",
                "        _geoagent_own = next((c for c in (_geoagent_sc, _geoagent_sc + '_right') "
                "if c != _geoagent_tc and c in _geoagent_a.columns), None)",
                "        " + self.trip({"line": "_geoagent_line", "target": "_geoagent_t", "column": "_geoagent_own"}),
                "        raise ValueError(f'line {_geoagent_line}: `{_geoagent_t}[{_geoagent_tc!r}] = "
                "{_geoagent_s}[{_geoagent_sc!r}]` aligns by index: '",
                "        f'{_geoagent_empty} of the {len(_geoagent_a)} rows of `{_geoagent_t}` have no '",
                "        f'row of `{_geoagent_s}` ({len(_geoagent_b)} rows) and got no value; the others '",
                "        'may hold another row\\'s. '",
                "        + (f'`{_geoagent_t}` has the joined column {_geoagent_own!r}: take it from there.' "
                "if _geoagent_own else",
                "        'Match the rows by a key (merge on it) or by location (sjoin), then take the '",
                "        'column from the result.'))",
            ],
        )

    def diagnose(self, failure: Failure) -> Diagnosis | None:
        seen = self.tripped(failure)
        if seen is None or not seen.get("column"):
            return None
        value = f"{seen['target']}[{seen['column']!r}]"
        own = with_assigned_value(failure.code, int(seen["line"]), value)
        return self.diagnosis(failure, name=value, fixed_code=own) if own else None

    def said(self, diagnosis: Diagnosis) -> str:
        return f"took the values from `{diagnosis.name}`, the frame's own joined column, row by row"


def cross_frame_assignments(code: str) -> list[tuple[str, str, str, str, int]]:
    """(target, column, source, source column, line) of each top-level ``target['column'] =
    source['source column']`` with two different names: pandas aligns such values by index, so
    a source with other rows (the joined layer, not the join's result) fills the wrong rows and
    leaves the rest empty."""
    tree = codeinfo.parse(code)
    found = []
    for stmt in tree.body if tree is not None else []:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target, source = codeinfo.column_of(stmt.targets[0]), codeinfo.column_of(stmt.value)
            if target and source and target[0] != source[0]:
                found.append((*target, *source, stmt.lineno))
    return found


def with_assigned_value(code: str, lineno: int, value: str) -> str | None:
    """``code`` with the value of the top-level assignment on ``lineno`` replaced by ``value``."""
    tree = codeinfo.parse(code)
    stmt = next((s for s in tree.body if isinstance(s, ast.Assign) and s.lineno == lineno), None) if tree else None
    return codeinfo.replaced(code, [(stmt.value, value)]) if stmt is not None else None
