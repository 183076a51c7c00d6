"""Per-feature bounds (a DataFrame) used as the layer's one bounding box."""

from __future__ import annotations

import ast
import re
from typing import Any

from .. import codeinfo
from .base import Diagnosis, Failure, Rule

# What pandas says when a frame is used as an array of four numbers: ``.tolist()`` (numpy's) or
# ``.total_bounds`` (a GeoSeries') asked of a DataFrame
_FRAME_AS_BOX = re.compile(r"'DataFrame' object has no attribute '(tolist|total_bounds)'")
# The layer's box from a frame of per-feature bounds: the least minima and the greatest maxima
_BOX_OF_ROWS = "agg({'minx': 'min', 'miny': 'min', 'maxx': 'max', 'maxy': 'max'})"


class LayerBox(Rule):
    """``gdf.geometry.bounds.tolist()`` or ``bbox.tolist()`` with ``bbox = gdf.bounds``: ``.bounds``
    is a DataFrame of one box per feature (minx, miny, maxx, maxy), which has no ``tolist`` or
    ``total_bounds``; asked for one list or one box, the code means the whole layer's, which
    ``total_bounds`` is. ``X.bounds`` becomes ``X.total_bounds``; a name holding such a frame (bound
    in this code, or by an earlier step as the live kernel tells) gives the least minima and the
    greatest maxima of its rows, the same four numbers. A list of per-feature boxes is written
    ``.values.tolist()`` and never reaches this rule."""

    strategy = "layer_box"
    order = 790

    def diagnose(self, failure: Failure) -> Diagnosis | None:
        asked = _FRAME_AS_BOX.search(failure.evalue) if failure.ename == "AttributeError" else None
        if asked is None:
            return None
        fixed = layer_box(failure.code, failure.lineno, asked.group(1), set())
        return self.diagnosis(failure, name=asked.group(1), fixed_code=fixed) if fixed else None

    async def diagnose_live(self, diagnosis: Diagnosis, code: str, lineno: int | None, kernel: Any) -> Diagnosis | None:
        asked = _FRAME_AS_BOX.search(diagnosis.message)
        names = codeinfo.names_read(code, lineno) if asked and lineno and not diagnosis.fixed_code else []
        if not names:
            return None
        try:
            frames = await kernel.probe("bounds_frames", names, probe_timeout=30)
        except Exception:  # introspection is advice; the model's repair still follows
            return None
        fixed = layer_box(code, lineno, asked.group(1), set(frames or [])) if asked else None
        if not fixed:
            return None
        return Diagnosis(self.strategy, diagnosis.message, name=asked.group(1) if asked else None, fixed_code=fixed)

    def said(self, diagnosis: Diagnosis) -> str:
        return "took the whole layer's bounding box (total_bounds) where a frame of per-feature bounds was used as one"


def layer_box(code: str, lineno: int | None, member: str, frames: set[str]) -> str | None:
    """``code`` with ``<X>.bounds.<member>`` on line ``lineno`` asking ``X.total_bounds`` instead, and
    ``<name>.<member>`` asking the box of the rows of ``name`` when it holds per-feature bounds (in
    ``frames``, or bound to ``<X>.bounds`` earlier in ``code``); None when the line has neither."""
    tree = codeinfo.parse(code)
    if tree is None or lineno is None:
        return None
    frames = frames | _bound_to_bounds(tree, lineno)
    edits: list[tuple[ast.expr, str]] = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Attribute) and node.attr == member and node.lineno <= lineno):
            continue
        if (node.end_lineno or node.lineno) < lineno:
            continue
        owner = node.value
        if isinstance(owner, ast.Attribute) and owner.attr == "bounds":
            base = ast.unparse(owner.value)
            edits.append((node, f"{base}.total_bounds" + (".tolist" if member == "tolist" else "")))
        elif isinstance(owner, ast.Name) and owner.id in frames:
            edits.append((node, f"{owner.id}.{_BOX_OF_ROWS}" + (".tolist" if member == "tolist" else ".to_numpy()")))
    if not edits:
        return None
    fixed = codeinfo.replaced(code, edits)
    return fixed if codeinfo.parse(fixed) is not None else None


def _bound_to_bounds(tree: ast.Module, lineno: int) -> set[str]:
    """Names whose last binding before line ``lineno`` is ``<X>.bounds``."""
    bound: dict[str, bool] = {}
    for stmt in sorted(
        (s for s in ast.walk(tree) if isinstance(s, ast.Assign) and s.lineno < lineno), key=lambda s: s.lineno
    ):
        is_bounds = isinstance(stmt.value, ast.Attribute) and stmt.value.attr == "bounds"
        for target in stmt.targets:
            if isinstance(target, ast.Name):
                bound[target.id] = is_bounds
    return {name for name, is_bounds in bound.items() if is_bounds}
