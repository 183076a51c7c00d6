"""A frame's column selection that leaves out its geometry column, where an output has geometries."""

from __future__ import annotations

import ast
import posixpath
from typing import Any, cast

from .. import codeinfo
from ..probes import run_probe
from .base import Diagnosis, Failure, Rule, TrialFacts, for_each


class KeepGeometry(Rule):
    """``gdf = gdf[['a', 'b']]`` leaves a plain DataFrame, and the spatial file later written from
    it has no geometry: the trial fails such a selection where an output has geometries, and the
    geometry column joins the selection. A selection into a new frame (``out = gdf[['a']]``) is the
    model's own choice (a table may need no geometry) unless the same code writes that frame to one
    of the outputs that have geometries."""

    strategy = "keep_geometry"
    order = 50

    async def guard(self, kernel: Any, code: str, facts: TrialFacts) -> str:
        selected = column_selections(code, facts.spatial_paths) if facts.spatial_output else []
        sources = list(dict.fromkeys(source for _, source in selected))
        geometries = (await run_probe(kernel, "geometry_names", sources) if sources else None) or {}
        checked = [[name, source, geometries[source]] for name, source in selected if source in geometries]
        return for_each(
            checked,
            "_geoagent_name, _geoagent_source, _geoagent_geometry",
            [
                "_geoagent_f = globals().get(_geoagent_name)",
                "if type(_geoagent_f).__name__ == 'DataFrame' and _geoagent_geometry not in _geoagent_f.columns:",
                "    "
                + self.trip({"name": "_geoagent_name", "source": "_geoagent_source", "geometry": "_geoagent_geometry"}),
                "    raise TypeError(f'`{_geoagent_source}` held a GeoDataFrame and this step\\'s column selection '",
                "        f'left out its geometry column {_geoagent_geometry!r}: the spatial output written '",
                "        'from it has no geometry. '",
                "        f'Keep it in the selection: {_geoagent_name} = '",
                "        f'{_geoagent_source}[[..., {_geoagent_geometry!r}]]')",
            ],
        )

    def diagnose(self, failure: Failure) -> Diagnosis | None:
        seen = self.tripped(failure)
        if seen is None:
            return None
        source = seen.get("source", seen["name"])
        fixed = with_geometry_selected(failure.code, seen["name"], seen["geometry"], source)
        return (
            self.diagnosis(failure, name=seen["name"], expression=seen["geometry"], fixed_code=fixed) if fixed else None
        )

    def said(self, diagnosis: Diagnosis) -> str:
        return f"kept the geometry column `{diagnosis.expression}` in `{diagnosis.name}`'s column selection"


def _column_selections(tree: ast.Module) -> list[tuple[str, str, ast.List | ast.Tuple]]:
    """(name, source, the list of column names) of each top-level ``name = source[['a', 'b']]``."""
    found = []
    for stmt in tree.body:
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
            continue
        target, value = stmt.targets[0], stmt.value
        if (
            isinstance(value, ast.Subscript)
            and isinstance(value.value, ast.Name)
            and isinstance(value.slice, (ast.List, ast.Tuple))
            and value.slice.elts
            and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in value.slice.elts)
        ):
            found.append((target.id, value.value.id, value.slice))
    return found


def _written_to(tree: ast.Module, paths: tuple[str, ...]) -> set[str]:
    """The names ``tree`` writes (``name.to_parquet('x.geoparquet')``) to a file named like one of
    ``paths`` (or a .geoparquet file)."""
    bases = {posixpath.basename(p) for p in paths}
    return {
        cast(ast.Name, cast(ast.Attribute, call.func).value).id
        for call in codeinfo.frame_writes(tree)
        if call.args
        and isinstance(call.args[0], ast.Constant)
        and isinstance(call.args[0].value, str)
        and (posixpath.basename(call.args[0].value) in bases or call.args[0].value.lower().endswith(".geoparquet"))
    }


def frame_selections(code: str) -> list[tuple[str, str]]:
    """(name, source) of every top-level ``name = source[['a', 'b']]`` of ``code``."""
    tree = codeinfo.parse(code)
    return [(name, source) for name, source, _ in _column_selections(tree)] if tree is not None else []


def column_selections(code: str, spatial_paths: tuple[str, ...] = ()) -> list[tuple[str, str]]:
    """(name, source) of each selection of a frame's columns ``code`` makes that must keep the
    geometry: one that rebinds the frame (``gdf = gdf[['a', 'b']]``), or one into a new frame the
    code writes to one of ``spatial_paths``."""
    tree = codeinfo.parse(code)
    if tree is None:
        return []
    written = _written_to(tree, spatial_paths)
    return list(
        dict.fromkeys(
            (name, source) for name, source, _ in _column_selections(tree) if name == source or name in written
        )
    )


def with_geometry_selected(code: str, name: str, geometry: str, source: str | None = None) -> str | None:
    """``code`` with ``geometry`` added to each ``name = source[[...]]`` selection (``source``: ``name``
    itself by default) that leaves it out; None when there is none."""
    tree = codeinfo.parse(code)
    lists = (
        [
            names
            for n, s, names in _column_selections(tree)
            if (n, s) == (name, source or name) and geometry not in [cast(ast.Constant, e).value for e in names.elts]
        ]
        if tree is not None
        else []
    )
    edits = [
        (names, ast.unparse(ast.List(elts=[*names.elts, ast.Constant(geometry)], ctx=ast.Load()))) for names in lists
    ]
    return codeinfo.replaced(code, edits) if edits else None
