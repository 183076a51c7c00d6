"""A GeoParquet read or written through GDAL, which has no Parquet driver in the pyogrio wheels."""

from __future__ import annotations

import ast
from typing import cast

from .. import codeinfo
from .base import Rule


class ParquetIO(Rule):
    """``to_file``/``read_file`` of a GeoParquet path fails or writes a Shapefile folder under that
    name: geopandas reads and writes GeoParquet with pyarrow, so the call is rewritten before it runs.
    The other way round, ``gpd.read_feather``/``gpd.read_parquet`` of a GeoJSON, GeoPackage or
    Shapefile path can never read it ("Not a Feather V1 or Arrow IPC file"): it is ``read_file``."""

    order = 102

    def before_run(self, code: str, bound_before: set[str]) -> str:
        return with_parquet_io(code)


def with_parquet_io(code: str) -> str:
    """``code`` with each ``x.to_file('out.geoparquet', ...)`` written ``x.to_parquet('out.geoparquet')``
    and each ``gpd.read_file('in.geoparquet', ...)`` written ``gpd.read_parquet('in.geoparquet')``.
    The GDAL of the pyogrio wheels has no (Geo)Parquet driver: with ``driver=`` the write fails, and
    without one it silently writes a Shapefile folder named ``out.geoparquet``; a read fails on a
    missing ``libduckdb.so``. geopandas reads and writes GeoParquet with pyarrow."""
    tree = codeinfo.parse(code)
    calls = (
        [
            node
            for node in ast.walk(tree)
            if isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("to_file", "read_file")
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
            and node.args[0].value.lower().endswith((".parquet", ".geoparquet"))
        ]
        if tree is not None
        else []
    )
    renamed = {"to_file": "to_parquet", "read_file": "read_parquet"}
    code = codeinfo.replaced(
        code,
        [
            (
                call,
                f"{ast.get_source_segment(code, cast(ast.Attribute, call.func).value)}."
                f"{renamed[cast(ast.Attribute, call.func).attr]}("
                f"{ast.get_source_segment(code, call.args[0])})",
            )
            for call in calls
        ],
    )
    return with_vector_read(code)


# What GDAL reads (``read_file``) and pyarrow never does: the vector formats by their suffix
_VECTOR_SUFFIXES = (".geojson", ".json", ".gpkg", ".shp", ".fgb", ".kml", ".gml", ".zip")


def with_vector_read(code: str) -> str:
    """``code`` with each ``gpd.read_feather('in.geojson')`` / ``gpd.read_parquet('in.gpkg', ...)``
    of a vector file's path written ``gpd.read_file('in.geojson', ...)`` (geopandas' module only:
    pandas has no ``read_file``); the rest as written."""
    tree = codeinfo.parse(code)
    calls = [
        node
        for node in (ast.walk(tree) if tree is not None else ())
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("read_feather", "read_parquet")
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id in ("gpd", "geopandas")
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
        and node.args[0].value.lower().endswith(_VECTOR_SUFFIXES)
    ]
    return codeinfo.replaced(code, [(call, _read_file(code, call)) for call in calls])


def _read_file(code: str, call: ast.Call) -> str:
    """``call`` (a pyarrow reader of a vector file) as ``read_file`` of its path, with the keywords
    ``read_file`` takes too (``layer``, ``columns``, ``bbox``)."""
    module = cast(ast.Name, cast(ast.Attribute, call.func).value).id
    kept = [ast.get_source_segment(code, k) for k in call.keywords if k.arg in ("layer", "columns", "bbox")]
    return f"{module}.read_file({', '.join([ast.get_source_segment(code, call.args[0]) or '', *map(str, kept)])})"
