"""geopandas methods called as module functions, and constructors geopandas does not have."""

from __future__ import annotations

import ast

from .. import codeinfo
from .base import Rule


class FrameMethods(Rule):
    """``gpd.estimate_utm_crs(x)``, ``gpd.GeoDataFrame.from_wkt(...)``, ``gpd.points_from_wkt(s)``
    can never run: each is written as the call geopandas has before the code runs."""

    order = 104

    def before_run(self, code: str, bound_before: set[str]) -> str:
        return with_frame_methods(code)


_GEOPANDAS = frozenset({"gpd", "geopandas"})


def _geopandas_path(node: ast.AST) -> list[str] | None:
    """``['gpd', 'GeoDataFrame']`` for ``gpd.GeoDataFrame`` (a dotted name from the geopandas
    module, or a bare ``GeoDataFrame``/``GeoSeries``); None for anything else."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.insert(0, node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.insert(0, node.id)
    return parts if parts[0] in _GEOPANDAS or parts[0] in ("GeoDataFrame", "GeoSeries") else None


def with_frame_methods(code: str) -> str:
    """``code`` with geopandas methods written as module functions called on their frame, and
    constructors geopandas does not have written as the ones it has (small models write them often,
    and none of them can run): ``x.to_crs(gpd.estimate_utm_crs())`` (or ``gpd.GeoDataFrame.estimate_utm_crs()``)
    -> ``x.to_crs(x.estimate_utm_crs())``; ``gpd.estimate_utm_crs(x)`` -> ``x.estimate_utm_crs()``;
    ``gpd.GeoDataFrame.from_wkt(df['wkt'], crs=...)`` -> ``gpd.GeoDataFrame(df, geometry=
    gpd.GeoSeries.from_wkt(df['wkt']), crs=...)`` (from_wkb likewise); ``gpd.points_from_wkt(s)``
    -> ``gpd.GeoSeries.from_wkt(s)``. The rest as written."""
    tree = codeinfo.parse(code)
    if tree is None:
        return code
    edits: list[tuple[ast.expr | ast.stmt, str]] = []
    estimates: set[int] = set()
    for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call)):
        path = _geopandas_path(call.func)
        if isinstance(call.func, ast.Attribute) and call.func.attr == "to_crs":  # x.to_crs(<module>.estimate_utm_crs())
            for arg in call.args[:1] + [kw.value for kw in call.keywords if kw.arg == "crs"]:
                inner = _geopandas_path(arg.func) if isinstance(arg, ast.Call) else None
                if (
                    isinstance(arg, ast.Call)
                    and inner
                    and inner[-1] == "estimate_utm_crs"
                    and len(inner) >= 2
                    and not arg.args
                ):
                    kws = ", ".join(ast.unparse(k) for k in arg.keywords)
                    edits.append((arg, f"{ast.unparse(call.func.value)}.estimate_utm_crs({kws})"))
                    estimates.add(id(arg))
        if not path or id(call) in estimates:
            continue
        rest = ", ".join([ast.unparse(a) for a in call.args[1:]] + [ast.unparse(k) for k in call.keywords])
        if path[1:] == ["estimate_utm_crs"] and call.args:  # gpd.estimate_utm_crs(x)
            edits.append((call, f"{ast.unparse(call.args[0])}.estimate_utm_crs({rest})"))
        elif (
            len(path) == 3
            and path[1] == "GeoDataFrame"
            and path[2] in ("from_wkt", "from_wkb")
            and call.args
            and not any(k.arg == "geometry" for k in call.keywords)
        ):
            source = call.args[0]
            frame = (
                source.value
                if isinstance(source, ast.Subscript)
                and isinstance(source.value, ast.Name)
                and isinstance(source.slice, ast.Constant)
                and isinstance(source.slice.value, str)
                else None
            )
            parsed = f"{path[0]}.GeoSeries.{path[2]}({ast.unparse(source)})"
            edits.append(
                (
                    call,
                    f"{path[0]}.GeoDataFrame({frame.id + ', ' if frame else ''}geometry={parsed}"
                    f"{', ' + rest if rest else ''})",
                )
            )
        elif path[1:] == ["points_from_wkt"]:
            edits.append((call.func, f"{path[0]}.GeoSeries.from_wkt"))
    fixed = codeinfo.replaced(code, codeinfo.outermost(edits)) if edits else code
    return fixed if codeinfo.parse(fixed) is not None else code
