"""Helpers shared by the theme modules: building entries, reading inputs, measuring, writing.

Every builder has the signature ``build(mistake: str | None)``: ``None`` writes the reference
deliverable, a mistake name writes the same deliverable with that one mistake. ``entry`` turns
such a builder into an :class:`Entry`, so a mistake is a branch next to the right code, never a
second copy of it.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable, Iterable
from functools import partial
from textwrap import dedent

import geopandas as gpd
import numpy as np
import pandas as pd
from pyproj import Geod

from ._entry import Entry

GEOD = Geod(ellps="WGS84")
WGS84 = "EPSG:4326"


def entry(
    id: str,
    request: str,
    inputs: Iterable[str],
    outputs: Iterable[str],
    build: Callable[[str | None], None],
    mistakes: Iterable[str],
    notes: str = "",
) -> Entry:
    """An entry whose reference is ``build(None)`` and whose broken variants are ``build(name)``."""
    return Entry(
        id=id,
        request=dedent(request).strip(),
        inputs=tuple(inputs),
        outputs=tuple(outputs),
        reference=partial(build, None),
        broken={m: partial(build, m) for m in mistakes},
        notes=dedent(notes).strip(),
    )


def dev(task: str, file: str) -> str:
    """The input spec of a GeoAgentBench dev task's input file."""
    return f"dev:{task}/inputs/{file}"


EXAMPLES = "examples/data/"


# --- reading -----------------------------------------------------------------------------


def read(name: str, layer: str | None = None) -> gpd.GeoDataFrame:
    """A vector input by base name (GeoParquet, GeoJSON or a GeoPackage layer)."""
    if name.endswith(".parquet"):
        return gpd.read_parquet(name)
    return gpd.read_file(name, layer=layer)


def read_wkt_csv(name: str, column: str) -> gpd.GeoDataFrame:
    """A CSV whose ``column`` holds lon/lat WKT, as a GeoDataFrame without the WKT text."""
    df = pd.read_csv(name)
    geometry = gpd.GeoSeries.from_wkt(df.pop(column), crs=WGS84)
    return gpd.GeoDataFrame(df, geometry=geometry)


# --- measuring: on the ellipsoid, so no projection choice is baked into the truth ---------


def geodesic_area_m2(geoms: gpd.GeoSeries) -> np.ndarray:
    """Area of each geometry on the WGS84 ellipsoid (ring orientation does not matter)."""
    return np.array([abs(GEOD.geometry_area_perimeter(g)[0]) for g in geoms.to_crs(WGS84)])


def geodesic_length_m(geoms: gpd.GeoSeries) -> np.ndarray:
    """Length of each geometry on the WGS84 ellipsoid (a polygon's perimeter, a point's 0)."""
    return np.array([GEOD.geometry_length(g) for g in geoms.to_crs(WGS84)])


def geodesic_distance_m(a: gpd.GeoSeries, b: gpd.GeoSeries) -> np.ndarray:
    """Distance matrix (len(a) x len(b)) in metres between two sets of points, on the ellipsoid."""
    a, b = a.to_crs(WGS84), b.to_crs(WGS84)
    lon1, lat1, lon2, lat2 = np.broadcast_arrays(
        a.x.to_numpy()[:, None], a.y.to_numpy()[:, None], b.x.to_numpy()[None, :], b.y.to_numpy()[None, :]
    )
    distance = GEOD.inv(lon1.ravel(), lat1.ravel(), lon2.ravel(), lat2.ravel())[2]
    return np.asarray(distance).reshape(lon1.shape)


def planar(measure: str, geoms: gpd.GeoSeries) -> np.ndarray:
    """``area``/``length`` in the geometries' own CRS units — the mistake when that CRS is not metric."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return getattr(geoms, measure).to_numpy()


def planar_distance(a: gpd.GeoSeries, b: gpd.GeoSeries) -> np.ndarray:
    """Distance matrix in the CRS units of ``a`` — the mistake in degrees or Web Mercator."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return np.array([b.distance(p).to_numpy() for p in a])


def k_nearest(dist: np.ndarray, k: int) -> np.ndarray:
    """Column indices of the k smallest values of each row, nearest first (stable on ties)."""
    return np.argsort(dist, axis=1, kind="stable")[:, :k]


def count_in(polygons: gpd.GeoDataFrame, points: gpd.GeoDataFrame) -> np.ndarray:
    """How many points fall within each polygon, zeros included, as integers."""
    joined = gpd.sjoin(points.to_crs(polygons.crs), polygons[["geometry"]], predicate="within")
    return joined.groupby("index_right").size().reindex(polygons.index, fill_value=0).to_numpy()


def without_crs(gdf: gpd.GeoDataFrame) -> gpd.GeoDataFrame:
    """The same frame with its CRS forgotten — the mistake of a file written without one."""
    return gdf.set_crs(None, allow_override=True)


def swap_xy(gdf: gpd.GeoDataFrame) -> gpd.GeoDataFrame:
    """Coordinates written lat, lon — the axis-order mistake."""
    from shapely.ops import transform

    return gdf.set_geometry(gdf.geometry.map(lambda g: transform(lambda x, y, z=None: (y, x), g)))


# --- writing ------------------------------------------------------------------------------


def write_csv(df: pd.DataFrame, name: str, index: bool = False) -> None:
    df.to_csv(name, index=index)


def write_json(obj, name: str) -> None:
    with open(name, "w", encoding="utf-8") as f:
        json.dump(obj, f, ensure_ascii=False, indent=1, default=_json_default)


def _json_default(value):
    """numpy scalars as plain JSON numbers/booleans."""
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def write_geojson(gdf: gpd.GeoDataFrame, name: str, members: dict | None = None) -> None:
    """GeoJSON via GDAL; with ``members``, written as JSON with those extra top-level members."""
    if not members:
        gdf.to_file(name, driver="GeoJSON")
        return
    collection = json.loads(gdf.to_json(drop_id=True))
    collection.update(members)
    write_json(collection, name)


def records(df: pd.DataFrame) -> list[dict]:
    """A frame as a JSON list of records with plain Python values."""
    return json.loads(df.to_json(orient="records", force_ascii=False))


def lonlat(gdf: gpd.GeoDataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Point coordinates in WGS84."""
    g = gdf.geometry.to_crs(WGS84)
    return g.x.to_numpy(), g.y.to_numpy()
