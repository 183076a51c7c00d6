"""File formats by extension and units by their worth in metres: what the rules, the mends and the
requirement kinds all read, kept apart so that none of them imports another for it."""

from __future__ import annotations

import posixpath

FORMATS = {
    ".json": "json",
    ".geojson": "geojson",
    ".csv": "csv",
    ".gpkg": "gpkg",
    ".parquet": "parquet",
    ".geoparquet": "geoparquet",
    ".shp": "shp",
    ".fgb": "fgb",
}
SPATIAL = {"geojson", "gpkg", "geoparquet", "shp", "fgb"}
# A unit in its base (m² or m): what one of it is worth, for measures and rates.
UNIT_IN_BASE = {"km2": 1e6, "sqkm": 1e6, "m2": 1.0, "sqm": 1.0, "ha": 1e4, "km": 1e3, "m": 1.0}
UNIT_IN_BASE.update({"acre": 4046.8564224, "ft2": 0.09290304, "mi2": 2589988.110336, "ft": 0.3048, "mi": 1609.344})


def file_format(path: str) -> str:
    return FORMATS.get(posixpath.splitext(path)[1].lower(), "unknown")


def layer_kinds(facts: dict) -> set[str]:
    """The geometry types of an input's layer as its facts give them ("MultiPolygon,Polygon" -> both;
    "3D Point" -> Point; GDAL's "Unknown" -> none)."""
    found = {k.strip().removeprefix("3D ").strip() for k in str(facts.get("geometry_type") or "").split(",")}
    return found - {"", "Unknown"}
