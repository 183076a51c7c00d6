"""File formats by extension and units by their worth in metres: what the rules, the mends and the
requirement kinds all read, kept apart so that none of them imports another for it."""

from __future__ import annotations

import posixpath
import re

from .checker import _CONTRACT_UNIT_IN_BASE

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
# The word that makes a `.parquet` file GeoParquet when a sentence naming it says it
GEOPARQUET_WORD = re.compile(r"\bgeo-?parquet\b", re.IGNORECASE)
# A unit in its base (m² or m): what one of it is worth, for measures and rates (one table with the
# in-kernel checker's, which ships as source)
UNIT_IN_BASE = _CONTRACT_UNIT_IN_BASE


def file_format(path: str) -> str:
    return FORMATS.get(posixpath.splitext(path)[1].lower(), "unknown")


def layer_kinds(facts: dict) -> set[str]:
    """The geometry types of an input's layer as its facts give them ("MultiPolygon,Polygon" -> both;
    "3D Point" -> Point; GDAL's "Unknown" -> none)."""
    found = {k.strip().removeprefix("3D ").strip() for k in str(facts.get("geometry_type") or "").split(",")}
    return found - {"", "Unknown"}
