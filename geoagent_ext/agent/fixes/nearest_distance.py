"""A distance read from ``sjoin_nearest``'s result when the call was not asked to write one."""

from __future__ import annotations

import ast
import re

from .. import codeinfo
from .base import Diagnosis, Failure, Rule

_MISSING_KEY = re.compile(r"""^["']([^"']+)["']$""")
_DISTANCE = re.compile(r"dist", re.IGNORECASE)


class NearestDistance(Rule):
    """``gpd.sjoin_nearest(a, b)['distance_m']`` fails on a KeyError: ``sjoin_nearest`` writes the
    distance only into the column its ``distance_col=`` names. A missing column whose name says it is
    a distance, read from the call's result (directly, or through the name it is bound to), becomes
    that call's ``distance_col``."""

    strategy = "nearest_distance"
    order = 148

    def diagnose(self, failure: Failure) -> Diagnosis | None:
        key = _MISSING_KEY.match(failure.evalue.strip()) if failure.ename == "KeyError" else None
        if key is None or not _DISTANCE.search(key.group(1)):
            return None
        fixed = with_distance_col(failure.code, key.group(1))
        return self.diagnosis(failure, name=key.group(1), fixed_code=fixed) if fixed else None

    def said(self, diagnosis: Diagnosis) -> str:
        return f"asked `sjoin_nearest` to write the distance into `{diagnosis.name}` (distance_col=)"


def with_distance_col(code: str, column: str) -> str | None:
    """``code`` with ``distance_col=<column>`` given to each ``sjoin_nearest`` call without one whose
    result is read at ``[column]``, directly or through the name it is bound to; None when none is."""
    tree = codeinfo.parse(code)
    if tree is None:
        return None
    # what is read at [column]: the expressions (a call's result read directly) and the names
    read = [node.value for node in ast.walk(tree) if isinstance(node, ast.Subscript) and _is_key(node.slice, column)]
    read_directly = {id(node) for node in read}
    read_names = {node.id for node in read if isinstance(node, ast.Name)}
    bound = {
        id(stmt.value): stmt.targets[0].id
        for stmt in ast.walk(tree)
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
    }
    edits: list[tuple[ast.expr | ast.stmt, str]] = []
    for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call)):
        if codeinfo.method_of(call) != "sjoin_nearest" or any(k.arg == "distance_col" for k in call.keywords):
            continue
        if id(call) in read_directly or bound.get(id(call)) in read_names:
            text, head = ast.get_source_segment(code, call) or "", ast.get_source_segment(code, call.func) or ""
            if text.startswith(head + "(") and text.endswith(")"):
                inside = text[len(head) + 1 : -1].rstrip().rstrip(",")
                edits.append((call, f"{head}({inside}{', ' if inside else ''}distance_col={column!r})"))
    if not edits:
        return None
    fixed = codeinfo.replaced(code, edits)
    return fixed if codeinfo.parse(fixed) is not None else None


def _is_key(node: ast.expr, column: str) -> bool:
    return isinstance(node, ast.Constant) and node.value == column
