"""A measure reprojected instead of the geometries it measures."""

from __future__ import annotations

import ast

from .. import codeinfo
from .base import Rule

_MEASURES = ("area", "length")


class MeasureReprojected(Rule):
    """``gdf.area.to_crs(6933)`` (often ``gdf.geometry.area.to_crs(6933).area``) can never run: a
    measure is a pandas Series of numbers, which has no CRS. What it means is the measure of the
    reprojected geometries, so it is written ``gdf.to_crs(6933).area`` before the code runs."""

    order = 108

    def before_run(self, code: str, bound_before: set[str]) -> str:
        return with_reprojection_measured(code)


def with_reprojection_measured(code: str) -> str:
    """``code`` with each ``X.<measure>.to_crs(...)`` and ``X.<measure>.to_crs(...).<measure>`` written
    ``X.to_crs(...).<measure>`` (``<measure>``: area or length); the rest as written."""
    tree = codeinfo.parse(code)
    if tree is None:
        return code
    parent = codeinfo.parents(tree)
    edits: list[tuple[ast.expr | ast.stmt, str]] = []
    for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call)):
        func = call.func
        if not (
            isinstance(func, ast.Attribute)
            and func.attr == "to_crs"
            and isinstance(func.value, ast.Attribute)
            and func.value.attr in _MEASURES
        ):
            continue
        measure, base = func.value.attr, func.value.value
        whole, arguments = ast.get_source_segment(code, call), ast.get_source_segment(code, func)
        if whole is None or arguments is None:
            continue
        outer = parent.get(call)
        node: ast.expr = outer if isinstance(outer, ast.Attribute) and outer.attr == measure else call
        edits.append((node, f"{ast.get_source_segment(code, base)}.to_crs{whole[len(arguments) :]}.{measure}"))
    fixed = codeinfo.replaced(code, codeinfo.outermost(edits)) if edits else code
    return fixed if codeinfo.parse(fixed) is not None else code
