"""A GeoDataFrame rebuilt from a frame's own geometry and ``columns=``: every value is lost."""

from __future__ import annotations

import ast

from .. import codeinfo
from .base import Rule
from .keep_frame import row_geometry_of


class RebuiltFrame(Rule):
    """``gpd.GeoDataFrame(geometry=gdf.geometry, crs=gdf.crs, columns=gdf.columns)`` has ``gdf``'s
    rows and column names but no data: pandas fills named columns it is given no values for with
    NaN. What it asks for is ``gdf`` with that geometry, so it is written ``gdf.set_geometry(...)``
    before the code runs (the ``EmptiedColumns`` guard fails the forms this does not know)."""

    order = 105

    def before_run(self, code: str, bound_before: set[str]) -> str:
        return with_frames_kept(code)


def _subject(call: ast.Call) -> tuple[str, ast.expr] | None:
    """(frame name, geometry expression) of a ``GeoDataFrame(...)`` call with no data,
    ``columns=<frame>.columns``, a geometry of that same frame (a chain of its row-geometry
    members, or one of its columns by name) and no CRS but the frame's own; None for any other
    call (another CRS is geopandas' to accept or refuse, so that call is left as written)."""
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
    if name != "GeoDataFrame" or call.args:
        return None
    keywords = {k.arg: k.value for k in call.keywords}
    if None in keywords or not {"geometry", "columns"} <= set(keywords) <= {"geometry", "columns", "crs"}:
        return None
    columns, geometry = keywords["columns"], keywords["geometry"]
    frame = columns.value.id if isinstance(columns, ast.Attribute) and isinstance(columns.value, ast.Name) else ""
    if not _is_attribute_of(columns, frame, "columns"):
        return None
    picked = isinstance(geometry, ast.Subscript) and isinstance(geometry.value, ast.Name) and geometry.value.id == frame
    if not picked and row_geometry_of(geometry) != frame:
        return None
    crs = keywords.get("crs")
    if crs is not None and not _is_attribute_of(crs, frame, "crs"):
        return None
    if crs is not None and any(  # a geometry in another CRS than the one it is told: geopandas refuses it
        isinstance(node, ast.Attribute) and node.attr in ("to_crs", "set_crs") for node in ast.walk(geometry)
    ):
        return None
    return frame, geometry


def _is_attribute_of(node: ast.expr, name: str, attr: str) -> bool:
    """``node`` is ``<name>.<attr>``."""
    return (
        isinstance(node, ast.Attribute)
        and node.attr == attr
        and isinstance(node.value, ast.Name)
        and node.value.id == name
    )


def with_frames_kept(code: str) -> str:
    """``code`` with each ``GeoDataFrame(geometry=<geometry of gdf>, columns=gdf.columns[,
    crs=gdf.crs])`` written ``gdf.set_geometry(<that geometry>)``: the frame keeps its values and
    takes the geometry. ``code`` unchanged when it has none."""
    tree = codeinfo.parse(code)
    if tree is None:
        return code
    edits: list[tuple[ast.expr | ast.stmt, str]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or (found := _subject(node)) is None:
            continue
        frame, geometry = found
        said = ast.get_source_segment(code, geometry)
        if said is not None:
            edits.append((node, f"{frame}.set_geometry({said})"))
    fixed = codeinfo.replaced(code, edits) if edits else code
    return fixed if codeinfo.parse(fixed) is not None else code
