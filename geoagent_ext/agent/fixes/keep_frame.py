"""A frame's name rebound to its own geometry (``gdf = gdf.simplify(10)``): its other columns are lost."""

from __future__ import annotations

import ast
from typing import Any

from .. import codeinfo
from ..probes import run_probe
from .base import Diagnosis, Failure, Rule, TrialFacts, for_each


class KeepFrame(Rule):
    """A step that leaves a GeoSeries in a name that held a GeoDataFrame with other columns ran, but
    every later step misses those columns: the trial fails it, and the new geometry is set on the
    frame (``gdf = gdf.set_geometry(gdf.simplify(10))``)."""

    strategy = "keep_frame"
    order = 10

    async def guard(self, kernel: Any, code: str, facts: TrialFacts) -> str:
        rebinds = frame_rebinds(code)
        frames = await run_probe(kernel, "geo_frames", rebinds) if rebinds else None
        return for_each(
            {name: columns for name, columns in (frames or {}).items() if columns},
            "_geoagent_name, _geoagent_columns",
            [
                "if type(globals().get(_geoagent_name)).__name__ == 'GeoSeries':",
                "    " + self.trip({"name": "_geoagent_name"}),
                "    raise TypeError(f'`{_geoagent_name}` held a GeoDataFrame with the columns '",
                "        f'{_geoagent_columns} and '",
                "        'this step made it a GeoSeries (its geometry alone): those columns are lost. Keep the '",
                "        f'frame: {_geoagent_name} = {_geoagent_name}.set_geometry(<its new geometry>)')",
            ],
        )

    def diagnose(self, failure: Failure) -> Diagnosis | None:
        seen = self.tripped(failure)
        if seen is None:
            return None
        kept = with_frame_kept(failure.code, seen["name"])
        return self.diagnosis(failure, name=seen["name"], fixed_code=kept) if kept else None

    def said(self, diagnosis: Diagnosis) -> str:
        return f"kept `{diagnosis.name}` a GeoDataFrame: the step's geometry is set on it, its other columns stay"


# Members of a GeoDataFrame (or its geometry) that give one geometry per row, in the frame's
# order: ``gdf = gdf.simplify(10)`` leaves a GeoSeries of the same rows, and
# ``gdf.set_geometry(...)`` of it keeps every other column.
ROW_GEOMETRY_MEMBERS = {
    "geometry",
    "to_crs",
    "set_crs",
    "simplify",
    "simplify_coverage",
    "buffer",
    "centroid",
    "boundary",
    "convex_hull",
    "concave_hull",
    "envelope",
    "exterior",
    "representative_point",
    "make_valid",
    "normalize",
    "segmentize",
    "minimum_rotated_rectangle",
    "minimum_bounding_circle",
    "offset_curve",
    "remove_repeated_points",
    "reverse",
    "set_precision",
    "force_2d",
    "force_3d",
    "affine_transform",
    "rotate",
    "scale",
    "skew",
    "translate",
    "line_merge",
    "orient_polygons",
    "extract_unique_points",
    "clip_by_rect",
    "get_geometry",
    "interpolate",
}


def row_geometry_of(node: ast.expr) -> str | None:
    """The name ``node`` starts from when it is a chain of ``ROW_GEOMETRY_MEMBERS`` (attributes,
    calls of them, ``['geometry']``-style column picks) on it: ``gdf.to_crs(3857).buffer(5)``
    -> ``gdf``; None for anything else (a filter, a dissolve, a plain name)."""
    members = 0
    while True:
        if isinstance(node, ast.Call):
            node = node.func
            if not isinstance(node, ast.Attribute):
                return None
        if isinstance(node, ast.Attribute) and node.attr in ROW_GEOMETRY_MEMBERS:
            node, members = node.value, members + 1
        elif (
            isinstance(node, ast.Subscript)
            and isinstance(node.slice, ast.Constant)
            and isinstance(node.slice.value, str)
        ):
            node = node.value
        else:
            break
    return node.id if isinstance(node, ast.Name) and members else None


def _frame_rebinds(tree: ast.Module) -> dict[str, ast.Assign]:
    """name -> its last top-level binding, for names whose last binding is ``name = <chain of
    row geometry members on name>``."""
    last: dict[str, ast.Assign] = {}
    for stmt in tree.body:
        target = stmt.targets[0] if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 else None
        if isinstance(stmt, ast.Assign) and isinstance(target, ast.Name) and row_geometry_of(stmt.value) == target.id:
            last[target.id] = stmt
            continue
        for name in codeinfo.bound_names(ast.unparse(stmt)):
            last.pop(name, None)
    return last


def frame_rebinds(code: str) -> list[str]:
    """Names ``code`` rebinds to a geometry operation of themselves (``gdf = gdf.simplify(10)``):
    when such a name held a GeoDataFrame, the step leaves only its geometry (``with_frame_kept``)."""
    tree = codeinfo.parse(code)
    return list(_frame_rebinds(tree)) if tree is not None else []


def with_frame_kept(code: str, name: str) -> str | None:
    """``code`` with the last ``name = <geometry of name>`` written as ``name =
    name.set_geometry(<geometry of name>)``: the frame keeps its other columns and takes the new
    geometry (and its CRS). None when ``code`` has no such binding of ``name``."""
    tree = codeinfo.parse(code)
    stmt = _frame_rebinds(tree).get(name) if tree is not None else None
    if stmt is None:
        return None
    value = ast.get_source_segment(code, stmt.value)
    return codeinfo.replaced(code, [(stmt.value, f"{name}.set_geometry({value})")]) if value else None
