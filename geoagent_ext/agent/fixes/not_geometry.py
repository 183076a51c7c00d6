"""An attribute column wrapped in a GeoSeries, which takes only geometries."""

from __future__ import annotations

import ast

from .. import codeinfo
from .base import Diagnosis, Failure, Rule

_CONSTRUCTORS = ("gpd.GeoSeries", "geopandas.GeoSeries", "GeoSeries")
_REFUSED = "Non geometry data passed to GeoSeries constructor"


class NotGeometry(Rule):
    """``gpd.GeoSeries(df['hex_id']).astype(int)``: geopandas refuses a column of numbers or text
    ("Non geometry data passed to GeoSeries constructor"), and the column is what the code works
    on. The failing line's ``GeoSeries(<frame>['<column>'])`` of a column other than the geometry
    becomes the column itself, a pandas Series of the same values."""

    strategy = "not_geometry"
    order = 148

    def diagnose(self, failure: Failure) -> Diagnosis | None:
        if failure.ename != "TypeError" or _REFUSED not in (failure.evalue or ""):
            return None
        found = with_columns_unwrapped(failure.code, failure.lineno)
        return self.diagnosis(failure, expression=found[1], fixed_code=found[0]) if found else None

    def said(self, diagnosis: Diagnosis) -> str:
        return f"used {diagnosis.expression} as the column it is: a GeoSeries holds only geometries"


def with_columns_unwrapped(code: str, lineno: int | None) -> tuple[str, str] | None:
    """(``code`` with each ``GeoSeries(<frame>['<column>'])`` on line ``lineno`` written as the column,
    the first column's source), or None when that line has none (the geometry column stays wrapped)."""
    tree = codeinfo.parse(code)
    if tree is None or lineno is None:
        return None
    edits: list[tuple[ast.expr | ast.stmt, str]] = []
    for node in ast.walk(tree):
        if not (
            isinstance(node, ast.Call)
            and node.lineno <= lineno <= (node.end_lineno or node.lineno)
            and codeinfo.call_name(node.func) in _CONSTRUCTORS
            and len(node.args) == 1
            and not node.keywords
        ):
            continue
        column = codeinfo.column_of(node.args[0])
        source = ast.get_source_segment(code, node.args[0])
        if column is not None and column[1] != "geometry" and source is not None:
            edits.append((node, source))
    if not edits:
        return None
    fixed = codeinfo.replaced(code, codeinfo.outermost(edits))
    return (fixed, f"`{edits[0][1]}`") if codeinfo.parse(fixed) is not None else None
