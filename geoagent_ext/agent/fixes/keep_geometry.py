"""A frame's column selection that leaves out its geometry column, where an output has geometries."""

from __future__ import annotations

import ast
from typing import Any, cast

from .. import codeinfo
from ..probes import run_probe
from .base import Diagnosis, Failure, Rule, TrialFacts, for_each


class KeepGeometry(Rule):
    """``gdf = gdf[['a', 'b']]`` leaves a plain DataFrame, and the spatial file later written from
    it has no geometry: the trial fails such a selection where an output has geometries, and the
    geometry column joins the selection."""

    strategy = "keep_geometry"
    order = 50

    async def guard(self, kernel: Any, code: str, facts: TrialFacts) -> str:
        selected = column_selections(code) if facts.spatial_output else []
        geometries = await run_probe(kernel, "geometry_names", selected) if selected else None
        return for_each(
            geometries or {},
            "_geoagent_name, _geoagent_geometry",
            [
                "_geoagent_f = globals().get(_geoagent_name)",
                "if type(_geoagent_f).__name__ == 'DataFrame' and _geoagent_geometry not in _geoagent_f.columns:",
                "    " + self.trip({"name": "_geoagent_name", "geometry": "_geoagent_geometry"}),
                "    raise TypeError(f'`{_geoagent_name}` held a GeoDataFrame and this step\\'s column selection '",
                "        f'left out its geometry column {_geoagent_geometry!r}: the spatial output written '",
                "        'from it has no geometry. '",
                "        f'Keep it in the selection: {_geoagent_name}[[..., {_geoagent_geometry!r}]]')",
            ],
        )

    def diagnose(self, failure: Failure) -> Diagnosis | None:
        seen = self.tripped(failure)
        if seen is None:
            return None
        fixed = with_geometry_selected(failure.code, seen["name"], seen["geometry"])
        return (
            self.diagnosis(failure, name=seen["name"], expression=seen["geometry"], fixed_code=fixed) if fixed else None
        )

    def said(self, diagnosis: Diagnosis) -> str:
        return f"kept `{diagnosis.name}`'s geometry column `{diagnosis.expression}` in its column selection"


def _column_selections(tree: ast.Module) -> list[tuple[str, ast.List | ast.Tuple]]:
    """(name, the list of column names) of each top-level ``x = x[['a', 'b']]``: a selection that
    rebinds the frame it selects from."""
    found = []
    for stmt in tree.body:
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
            continue
        target, value = stmt.targets[0], stmt.value
        if (
            isinstance(value, ast.Subscript)
            and isinstance(value.value, ast.Name)
            and value.value.id == target.id
            and isinstance(value.slice, (ast.List, ast.Tuple))
            and value.slice.elts
            and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in value.slice.elts)
        ):
            found.append((target.id, value.slice))
    return found


def column_selections(code: str) -> list[str]:
    """The names ``code`` rebinds to a selection of their own columns (``gdf = gdf[['a', 'b']]``)."""
    tree = codeinfo.parse(code)
    return list(dict.fromkeys(name for name, _ in _column_selections(tree))) if tree is not None else []


def with_geometry_selected(code: str, name: str, geometry: str) -> str | None:
    """``code`` with ``geometry`` added to each ``name = name[[...]]`` selection that leaves it out;
    None when there is none."""
    tree = codeinfo.parse(code)
    lists = (
        [
            names
            for n, names in _column_selections(tree)
            if n == name and geometry not in [cast(ast.Constant, e).value for e in names.elts]
        ]
        if tree is not None
        else []
    )
    edits = [
        (names, ast.unparse(ast.List(elts=[*names.elts, ast.Constant(geometry)], ctx=ast.Load()))) for names in lists
    ]
    return codeinfo.replaced(code, edits) if edits else None
