"""A rename onto a column the frame already has: two columns of one name, which no writer takes."""

from __future__ import annotations

import ast
import re
from typing import Any

from .. import codeinfo
from .base import Diagnosis, Failure, Rule, TrialFacts, for_each

_DUPLICATES = re.compile(r"Duplicate column names found: \[([^\]]*)\]")


class RenameOnto(Rule):
    """``gdf.rename(columns={'seq': 'id'})`` on a frame that already has ``id`` keeps both columns
    under one name (pandas does not refuse), and every later write fails on the pair. The trial
    fails the step that made them, and the rewrite takes those entries out of the mapping: both
    columns keep their own names and values, so nothing is lost; code that means to replace the
    column drops the old one first."""

    strategy = "rename_onto"
    order = 47

    async def guard(self, kernel: Any, code: str, facts: TrialFacts) -> str:
        targets: dict[str, list[str]] = {}
        for frame, mapping in _renames(codeinfo.parse(code)):
            targets.setdefault(frame, [])
            targets[frame] += [new for _, new in _pairs(mapping) if new not in targets[frame]]
        return for_each(
            {frame: names for frame, names in targets.items() if names},
            "_geoagent_name, _geoagent_new",
            [
                "_geoagent_f = globals().get(_geoagent_name)",
                "_geoagent_cols = getattr(_geoagent_f, 'columns', None)",
                "if _geoagent_cols is not None and hasattr(_geoagent_cols, 'duplicated'):",
                "    _geoagent_twice = sorted({str(c) for c in _geoagent_cols[_geoagent_cols.duplicated()]} "
                "& set(_geoagent_new))",
                "    if _geoagent_twice:",
                "        " + self.trip({"name": "_geoagent_name", "columns": "_geoagent_twice"}),
                "        raise ValueError(f'`{_geoagent_name}`: this step renamed a column to '",
                "            f'{_geoagent_twice}, a name the frame already had, so it now has two columns '",
                "            'of that name and no file format takes them. Keep each column under its own '",
                "            'name, or drop the old column before the rename.')",
            ],
        )

    def diagnose(self, failure: Failure) -> Diagnosis | None:
        seen = self.tripped(failure) or _written_twice(failure)
        if seen is None:
            return None
        fixed = without_renames_onto(failure.code, seen["name"], set(seen["columns"]))
        names = ", ".join(f"`{c}`" for c in seen["columns"])
        return self.diagnosis(failure, name=seen["name"], expression=names, fixed_code=fixed) if fixed else None

    def said(self, diagnosis: Diagnosis) -> str:
        return (
            f"left out the rename of a column to {diagnosis.expression} in `{diagnosis.name}`: "
            "the frame already had a column of that name, and keeps both under their own names"
        )


def _written_twice(failure: Failure) -> dict[str, Any] | None:
    """What the guard would have seen when the same step renamed and then wrote the frame: the
    parquet writer names the columns (``Duplicate column names found: ['id', 'id', ...]``), and
    the first frame the step renames to one of the repeated names is the one."""
    listed = _DUPLICATES.search(failure.evalue) if failure.ename == "ValueError" else None
    if listed is None:
        return None
    names = re.findall(r"'([^']*)'", listed.group(1))
    twice = {name for name in names if names.count(name) > 1}
    for frame, mapping in _renames(codeinfo.parse(failure.code)):
        onto = sorted({new for _, new in _pairs(mapping)} & twice)
        if onto:
            return {"name": frame, "columns": onto}
    return None


def _mapping(call: ast.Call) -> ast.Dict | None:
    """The dict literal a ``.rename(...)`` call renames columns with: ``columns={...}``, or the first
    argument with ``axis=1`` / ``axis='columns'``; None for an index rename or a mapping not written out."""
    columns = next((k.value for k in call.keywords if k.arg == "columns"), None)
    if isinstance(columns, ast.Dict):
        return columns
    axis = next((k.value for k in call.keywords if k.arg == "axis"), None)
    if call.args and isinstance(call.args[0], ast.Dict) and isinstance(axis, ast.Constant):
        return call.args[0] if axis.value in (1, "columns") else None
    return None


def _renames(tree: ast.Module | None) -> list[tuple[str, ast.Dict]]:
    """(frame, mapping) of each top-level column rename of ``tree``: the frame is the name a
    ``name = ....rename(...)...`` binds, or the name an in-place ``name.rename(..., inplace=True)`` renames."""
    found: list[tuple[str, ast.Dict]] = []
    for stmt in tree.body if tree is not None else []:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            frame, value = stmt.targets[0].id, stmt.value
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            value = stmt.value
            receiver = value.func.value if isinstance(value.func, ast.Attribute) else None
            if not isinstance(receiver, ast.Name):
                continue
            frame = receiver.id
        else:
            continue
        for node in ast.walk(value):
            if isinstance(node, ast.Call) and codeinfo.method_of(node) == "rename":
                mapping = _mapping(node)
                if mapping is not None:
                    found.append((frame, mapping))
    return found


def _pairs(mapping: ast.Dict) -> list[tuple[ast.expr, str]]:
    """(old-name node, new name) of each entry of ``mapping`` whose new name is a string literal."""
    return [
        (key, value.value)
        for key, value in zip(mapping.keys, mapping.values, strict=True)
        if key is not None and isinstance(value, ast.Constant) and isinstance(value.value, str)
    ]


def without_renames_onto(code: str, frame: str, columns: set[str]) -> str | None:
    """``code`` with each entry renaming a column of ``frame`` to one of ``columns`` taken out of its
    mapping (the other entries kept, in their order); None when ``code`` has none."""
    tree = codeinfo.parse(code)
    edits: list[tuple[ast.expr | ast.stmt, str]] = []
    for renamed, mapping in _renames(tree):
        if renamed != frame or not any(new in columns for _, new in _pairs(mapping)):
            continue
        kept = [
            f"{ast.get_source_segment(code, key)}: {ast.get_source_segment(code, value)}"
            if key is not None
            else f"**{ast.get_source_segment(code, value)}"
            for key, value in zip(mapping.keys, mapping.values, strict=True)
            if not (isinstance(value, ast.Constant) and isinstance(value.value, str) and value.value in columns)
        ]
        edits.append((mapping, "{" + ", ".join(kept) + "}"))
    return codeinfo.replaced(code, edits) if edits else None
