"""The small layers the CRS advisor is checked and timed on, one table for both
``tests/kernel/test_crs_advisor.py`` and ``benchmarks/bench_crs_advisor.py``.

Free of ``geoagent_ext``: the benchmark imports it as it is, from the repository root.
"""

from __future__ import annotations

import geopandas as gpd
from shapely.geometry import MultiPolygon, box

# name: (lon/lat box [w, s, e, n] (w > e across the antimeridian), CRS the layer is stored in)
REGIONS = {
    "paris": ((2.25, 48.80, 2.42, 48.90), "EPSG:2154"),
    "london": ((-0.20, 51.45, 0.00, 51.55), "EPSG:4326"),
    "tokyo": ((139.60, 35.60, 139.85, 35.75), "EPSG:4326"),
    "cape_town": ((18.35, -34.00, 18.60, -33.85), "EPSG:4326"),
    "svalbard": ((15.30, 78.10, 15.80, 78.30), "EPSG:4326"),
    "fiji": ((177.00, -18.50, -179.50, -16.00), "EPSG:4326"),
    "antarctica": ((160.00, -78.00, 170.00, -77.00), "EPSG:3031"),
    "new_york": ((-74.05, 40.65, -73.85, 40.80), "EPSG:2263"),
}


def lonlat_geometry(w, s, e, n):
    """The box as a geometry in lon/lat, split at the antimeridian when it crosses it."""
    if w > e:
        return MultiPolygon([box(w, s, 180.0, n), box(-180.0, s, e, n)])
    return box(w, s, e, n)


def lonlat_layer(bounds, crs):
    """A one-row layer covering the lon/lat box ``bounds``, stored in ``crs``."""
    frame = gpd.GeoDataFrame({"id": [1]}, geometry=[lonlat_geometry(*bounds)], crs="EPSG:4326")
    return frame if crs == "EPSG:4326" else frame.to_crs(crs)


def region_layer(name):
    """The layer of one of the REGIONS."""
    return lonlat_layer(*REGIONS[name])
