"""An area column whose name gives its unit (``area_m2``) computed with another unit's factor."""

from __future__ import annotations

import ast
import math
import re

from .. import codeinfo
from .base import Rule

# What one square metre is in the unit a column's name ends with.
_PER_SQUARE_METRE = {"m2": 1.0, "sqm": 1.0, "sq_m": 1.0, "km2": 1e-6, "sqkm": 1e-6, "sq_km": 1e-6, "ha": 1e-4}
_NAME_UNIT = re.compile(r"(?:^|_)(m2|sqm|sq_m|km2|sqkm|sq_km|ha)$", re.IGNORECASE)
# The text of the factor that turns square metres into each unit.
_FACTOR_TEXT = {1e-6: " / 1e6", 1e-4: " / 1e4", 1.0: ""}


class AreaUnits(Rule):
    """``gdf['area_m2'] = gdf.area * 0.000001`` stores km² under a name that says m² (and
    ``area_km2 = gdf.area / 1e4`` hectares): the name is what the user asked for, so the factor
    becomes the one of the unit the name gives, before the code runs. Only a factor between m², ha
    and km² applied to ``.area`` is rewritten; any other factor (a CRS in feet) is left as written."""

    order = 107

    def before_run(self, code: str, bound_before: set[str]) -> str:
        return with_area_units(code)


def _number(node: ast.expr) -> float | None:
    """The value of a numeric constant expression (``0.000001``, ``1e6``, ``10**-6``), else None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return float(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _number(node.operand)
        return -inner if inner is not None else None
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Pow, ast.Mult, ast.Div)):
        left, right = _number(node.left), _number(node.right)
        if left is None or right is None or (isinstance(node.op, ast.Div) and right == 0):
            return None
        if isinstance(node.op, ast.Pow):
            return left**right if abs(right) <= 12 else None
        return left * right if isinstance(node.op, ast.Mult) else left / right
    return None


def _scaled_area(value: ast.expr) -> tuple[ast.expr, float] | None:
    """(the ``.area`` read, the factor applied to it) of ``<x>.area * c``, ``c * <x>.area`` or
    ``<x>.area / c``; None for anything else."""
    if not isinstance(value, ast.BinOp) or not isinstance(value.op, (ast.Mult, ast.Div)):
        return None

    def is_area(node: ast.expr) -> bool:
        return isinstance(node, ast.Attribute) and node.attr == "area"

    if is_area(value.left):
        factor = _number(value.right)
        if factor is None or factor == 0:
            return None
        return value.left, factor if isinstance(value.op, ast.Mult) else 1 / factor
    if isinstance(value.op, ast.Mult) and is_area(value.right):
        factor = _number(value.left)
        return (value.right, factor) if factor is not None else None
    return None


def _known(factor: float) -> float | None:
    return next((known for known in _FACTOR_TEXT if math.isclose(factor, known, rel_tol=1e-9)), None)


def with_area_units(code: str) -> str:
    """``code`` with each ``frame['<name>_<unit>'] = <x>.area * <factor>`` whose factor is another
    unit's (m², ha, km²) given the factor of the unit its name says; ``code`` as written otherwise."""
    tree = codeinfo.parse(code)
    if tree is None:
        return code
    edits: list[tuple[ast.expr | ast.stmt, str]] = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
            continue
        target = node.targets[0]
        column = codeinfo.column_of(target) if isinstance(target, ast.Subscript) else None
        unit = _NAME_UNIT.search(column[1]) if column else None
        scaled = _scaled_area(node.value) if unit else None
        if unit is None or scaled is None:
            continue
        area, factor = scaled
        applied, wanted = _known(factor), _PER_SQUARE_METRE[unit.group(1).lower()]
        read = ast.get_source_segment(code, area)
        if applied is None or applied == wanted or read is None:
            continue
        edits.append((node.value, read + _FACTOR_TEXT[wanted]))
    fixed = codeinfo.replaced(code, edits) if edits else code
    return fixed if codeinfo.parse(fixed) is not None else code
