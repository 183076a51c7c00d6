"""A feature's area or length read as a column (``gdf['area']``) of a GeoDataFrame that has none."""

from __future__ import annotations

import ast
import re
from typing import Any

from .. import codeinfo
from .base import Diagnosis, Rule

_MISSING_MEASURE = re.compile(r"KeyError: ['\"](area|length)['\"]")

# The measure in metres of each feature of ``{name}``, by the frame's CRS: its own units when they
# are metres; on the ellipsoid when it is geographic (an equal-area CRS for areas, the frame's own
# UTM zone for lengths), never in degrees.
MEASURE_IN_METRES = {
    ("area", "metre"): "{name}.area",
    ("area", "geographic"): "{name}.to_crs(6933).area",
    ("length", "metre"): "{name}.length",
    ("length", "geographic"): "{name}.to_crs({name}.estimate_utm_crs()).length",
}


class MeasureColumn(Rule):
    """``gdf['area']`` of a GeoDataFrame with no such column: what it reads is each feature's area
    (or length), so the read becomes the geometry's measure in metres (``MEASURE_IN_METRES``). The
    units depend on the frame's CRS, which only the live kernel knows: this rule answers after the
    others, of a KeyError they left to the model with the data's profile."""

    strategy = "measure_column"
    order = 805

    async def diagnose_live(self, diagnosis: Diagnosis, code: str, lineno: int | None, kernel: Any) -> Diagnosis | None:
        missing = _MISSING_MEASURE.search(diagnosis.message)
        if diagnosis.fixed_code or diagnosis.strategy != "data_profile" or missing is None:
            return None
        column = missing.group(1)
        names = measure_reads(code, column)
        if not names:
            return None
        try:
            units = await kernel.probe("measure_units", names, column, probe_timeout=30)
        except Exception:  # introspection is advice; the model's repair still follows
            return None
        fixed = with_measures(code, column, units or {})
        if fixed == code:
            return None
        return Diagnosis(self.strategy, diagnosis.message, name=column, fixed_code=fixed)

    def said(self, diagnosis: Diagnosis) -> str:
        return f"read each feature's {diagnosis.name} from its geometry, in metres, where the frame has no such column"


def _reads(tree: ast.Module, column: str) -> dict[str, list[ast.Subscript]]:
    """name -> its reads ``name['column']``, for names the code never assigns that column of."""
    reads: dict[str, list[ast.Subscript]] = {}
    written: set[str] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Subscript):
            continue
        picked = codeinfo.column_of(node)
        if picked is None or picked[1] != column:
            continue
        if isinstance(node.ctx, ast.Load):
            reads.setdefault(picked[0], []).append(node)
        else:
            written.add(picked[0])
    return {name: found for name, found in reads.items() if name not in written}


def measure_reads(code: str, column: str) -> list[str]:
    """The names ``code`` reads ``column`` of (``gdf['area']``) and never assigns it of."""
    tree = codeinfo.parse(code)
    return list(_reads(tree, column)) if tree is not None else []


def with_measures(code: str, column: str, units: dict[str, str]) -> str:
    """``code`` with each ``name['column']`` read written as the geometry's measure in metres, for
    the names ``units`` gives the CRS kind of (``measure_units``); the rest as written."""
    tree = codeinfo.parse(code)
    if tree is None:
        return code
    edits: list[tuple[ast.expr | ast.stmt, str]] = [
        (node, MEASURE_IN_METRES[(column, units[name])].format(name=name))
        for name, nodes in _reads(tree, column).items()
        if (column, units.get(name)) in MEASURE_IN_METRES
        for node in nodes
    ]
    return codeinfo.replaced(code, edits) if edits else code
