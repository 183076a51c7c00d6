""" "Leave X alone", "as it is", "don't touch", and negations ("not", "without", "rather than")."""

from __future__ import annotations

import pandas as pd
from shapely.geometry import box

from ._common import (
    EXAMPLES,
    dev,
    entry,
    geodesic_area_m2,
    lonlat,
    planar,
    read,
    write_csv,
    write_geojson,
)

HERITAGE = dev("fio-l2-cairo-mixedgeom-split", "heritage_sites.geojson")
LAGOS_BOX = box(3.35, 6.43, 3.45, 6.50)


def _heritage_utm(mistake):
    h = read("heritage_sites.geojson")
    if mistake != "left_in_lonlat":
        h = h.to_crs(32636)
    if mistake == "multipolygons_exploded":
        h = h.explode(index_parts=False)
    if mistake == "name_ar_dropped":
        h = h.drop(columns="name_ar")
    h.to_file("heritage_utm.gpkg", layer="sites", driver="GPKG", promote_to_multi=mistake == "promoted_to_multi")


def _landuse_clip(mistake):
    lu = read("lagos_landuse.geojson")
    if mistake == "not_cut":
        out = lu[lu.intersects(LAGOS_BOX)]
    else:
        out = lu.clip(LAGOS_BOX, keep_geom_type=True)
        out = out[~out.is_empty].sort_index()
    if mistake == "area_column_added":
        out = out.assign(area_m2=geodesic_area_m2(out.geometry))
    if mistake == "class_renamed":
        out = out.rename(columns={"class": "landuse_class"})
    write_geojson(out, "lagos_landuse_clip.geojson")


def _size_class(mistake):
    b = read("tokyo_buildings_legacy.geojson")
    area = planar("area", b.geometry) if mistake == "sized_by_square_degrees" else geodesic_area_m2(b.geometry)
    b["size_class"] = pd.cut(
        area, [0, 200, 1000, float("inf")], right=False, labels=["small", "medium", "large"]
    ).astype(str)
    if mistake == "written_in_utm":
        b = b.to_crs(32654)
    if mistake == "existing_columns_dropped":
        b = b[["feature_id", "size_class", "geometry"]]
    write_geojson(b, "buildings_sized.geojson")


def _stations_gk(mistake):
    s = read("vienna_stations.geojson")
    if mistake != "left_in_wgs84":
        s = s.to_crs(31256)
    if mistake == "reordered_by_name":
        s = s.sort_values("name")
    if mistake == "unnamed_dropped":
        s = s.dropna(subset=["name"])
    write_geojson(s, "stations_gk.geojson")


def _night_markets(mistake):
    m = read("bangkok_contractor_delivery.gpkg", layer="markets")
    if mistake != "all_kinds":
        m = m[m.kind == "night"]
    lon, lat = lonlat(m)
    out = m[["id", "name_th"]].assign(lon=lon, lat=lat)
    if mistake == "geometry_column_written":
        out["geometry"] = m.geometry.to_wkt()
    write_csv(out, "night_markets.csv", index=mistake == "index_written")


def _counties_only(mistake):
    a = read("london_admin.geojson")
    if mistake != "localities_included":
        a = a[a.subtype == "county"]
    if mistake == "subtype_dropped":
        a = a.drop(columns="subtype")
    write_geojson(a, "london_counties.geojson")


ENTRIES = [
    entry(
        "reproject-but-leave-geometry-types-alone",
        """
        Reproject heritage_sites.geojson to UTM zone 36N (EPSG:32636) for the survey team and write it
        to heritage_utm.gpkg, layer "sites". Leave the geometry types alone — points stay points, lines
        stay lines, polygons stay polygons and multipolygons stay multipolygons, no exploding and no
        converting to multi — and keep the attributes as they are.
        """,
        [HERITAGE],
        ["heritage_utm.gpkg"],
        _heritage_utm,
        ["left_in_lonlat", "multipolygons_exploded", "promoted_to_multi", "name_ar_dropped"],
        notes="Reprojection changes every coordinate; 'leave alone' is about the types and attributes.",
    ),
    entry(
        "clip-to-bbox-attributes-untouched",
        """
        Clip lagos_landuse.geojson to the box 3.35-3.45 E, 6.43-6.50 N: polygons crossing the edge get
        cut at the box, polygons outside go. Leave the attribute table exactly as it is — same columns,
        same names, same values; only the shapes change. -> lagos_landuse_clip.geojson
        """,
        [dev("spa-l2-lagos-hotspot-overlaps", "lagos_landuse.geojson")],
        ["lagos_landuse_clip.geojson"],
        _landuse_clip,
        ["not_cut", "area_column_added", "class_renamed"],
        notes="Polygons only touching the box along its edge leave nothing of area and are dropped.",
    ),
    entry(
        "add-column-do-not-touch-geometry",
        """
        Add a size_class column to tokyo_buildings_legacy.geojson: "small" under 200 m² of footprint,
        "medium" from 200 up to 1000 m², "large" from 1000 m². Don't touch the geometry — the output has
        to overlay exactly on the source file — and keep the other columns. Save buildings_sized.geojson.
        """,
        [dev("dc-l1-tokyo-ring-orientation", "tokyo_buildings_legacy.geojson")],
        ["buildings_sized.geojson"],
        _size_class,
        ["written_in_utm", "sized_by_square_degrees", "existing_columns_dropped"],
    ),
    entry(
        "reproject-everything-else-as-it-is",
        """
        Can I have vienna_stations.geojson in MGI / Austria GK East (EPSG:31256)? stations_gk.geojson.
        Everything else as it is: the same stations, in the same order, with the same columns.
        """,
        [EXAMPLES + "vienna_stations.geojson"],
        ["stations_gk.geojson"],
        _stations_gk,
        ["reordered_by_name", "unnamed_dropped", "left_in_wgs84"],
    ),
    entry(
        "plain-table-no-geometry-column",
        """
        From the "markets" layer of bangkok_contractor_delivery.gpkg, list the night markets (kind =
        night) in night_markets.csv with id, name_th, lon and lat. A plain table: no geometry column,
        no WKT, no index column.
        """,
        [dev("dd-l2-bangkok-multicrs-audit", "bangkok_contractor_delivery.gpkg")],
        ["night_markets.csv"],
        _night_markets,
        ["geometry_column_written", "index_written", "all_kinds"],
    ),
    entry(
        "subset-not-the-others-rest-as-it-is",
        """
        Export the counties from london_admin.geojson, not the localities, to london_counties.geojson.
        Otherwise as it is: same columns, same coordinates.
        """,
        [dev("crs-l1-london-laea-areas", "london_admin.geojson")],
        ["london_counties.geojson"],
        _counties_only,
        ["localities_included", "subtype_dropped"],
    ),
]
