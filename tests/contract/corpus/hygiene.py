"""Data hygiene: deduplication, invalid geometry repair, single-part geometry, rows kept, numbers stored as text."""

from __future__ import annotations

import pandas as pd

from ._common import dev, entry, geodesic_area_m2, read, write_csv, write_geojson
from ._inputs import BANGKOK_AQ

CAIRO = dev("dc-l2-cairo-invalid-dedup", "cairo_parcels_legacy.geojson")
TOKYO = dev("dc-l1-tokyo-ring-orientation", "tokyo_buildings_legacy.geojson")


def _one_row_per_building(mistake):
    a = pd.read_csv("nyc_addresses.csv", dtype=str, keep_default_na=False)  # every value as written
    if mistake != "duplicates_kept":
        a = a.sort_values("recorded_at")
        a = a.drop_duplicates(["street", "number"], keep="last" if mistake == "latest_kept" else "first")
    a = a.sort_values(["street", "number"], key=lambda c: c.astype(int) if c.name == "number" else c)
    write_csv(a, "nyc_buildings.csv")


def _enclosure_parts(mistake):
    h = read("heritage_sites.geojson")
    if mistake != "non_polygons_included":
        h = h[h.geom_type.isin(["Polygon", "MultiPolygon"])]
    h = h[["site_id", "name_en", "geometry"]]
    if mistake != "multipart_kept":
        h = h.explode(index_parts=False)
    h = h.assign(part=h.groupby("site_id").cumcount() + 1)
    write_geojson(h[["site_id", "name_en", "part", "geometry"]], "enclosure_parts.geojson")


def _cairo_valid(mistake):
    p = read("cairo_parcels_legacy.geojson")
    if mistake == "invalid_dropped":
        p = p[p.is_valid]
    elif mistake != "invalid_left":
        p = p.set_geometry(p.make_valid())
    if mistake == "duplicates_removed":
        p = p[~p.geometry.to_wkb().duplicated()]
    p.to_file("cairo_parcels_valid.gpkg", layer="parcels", driver="GPKG", promote_to_multi=False)


def _cairo_measured(mistake):
    p = read("cairo_parcels_legacy.geojson")
    if mistake == "measured_before_repair":  # a self-crossing outline measures about nothing
        p["area_m2"] = p.to_crs(32636).area
    p = p.set_geometry(p.make_valid())[["parcel_id", "parcel_class", "district", "area_m2", "geometry"]]
    if mistake != "measured_before_repair":
        p["area_m2"] = geodesic_area_m2(p.geometry) / (1e4 if mistake == "hectares" else 1)
    p.to_file("cairo_parcels_measured.gpkg", driver="GPKG", promote_to_multi=False)


def _named_buildings(mistake):
    b = read("tokyo_buildings_legacy.geojson")
    b = b[b.name_primary.notna()] if mistake == "blank_names_kept" else b[b.name_primary.fillna("").str.strip() != ""]
    if mistake == "attributes_dropped":
        b = b[["feature_id", "name_primary", "geometry"]]
    write_geojson(b, "named_buildings.geojson")


def _numeric_readings(mistake):
    s = read("bangkok_aq_stations.geojson")
    if mistake != "left_as_text":
        s["station_id"] = s["station_id"].astype(int)
        for c in ("sensor_value", "pm25_ug_m3", "elevation_m"):
            s[c] = pd.to_numeric(s[c], errors="coerce")
            if mistake == "decimals_cut":
                s[c] = s[c].fillna(0).astype(int)
    s.to_file("bangkok_aq_numeric.gpkg", driver="GPKG")


ENTRIES = [
    entry(
        "dedupe-on-key-keep-earliest-values-as-written",
        """
        nyc_addresses.csv lists some buildings more than once (same street and number, different
        units). Keep one row per street + number: the earliest by recorded_at. All columns stay, values
        exactly as in the file (geometry_wkt included). Save nyc_buildings.csv sorted by street, then
        by house number numerically.
        """,
        [dev("fio-l1-nyc-csvwkt-addresses", "nyc_addresses.csv")],
        ["nyc_buildings.csv"],
        _one_row_per_building,
        ["duplicates_kept", "latest_kept"],
        notes="Read as text so that ZIP codes and timestamps are written back exactly as given.",
    ),
    entry(
        "readings-exported-as-text-made-numeric",
        """
        Every reading in bangkok_aq_stations.geojson came out of the vendor's export as text, so
        nothing can be averaged. Turn them into proper numeric fields and save the stations as
        bangkok_aq_numeric.gpkg; the Thai and English station names stay text, untouched.
        """,
        [BANGKOK_AQ],
        ["bangkok_aq_numeric.gpkg"],
        _numeric_readings,
        ["left_as_text", "decimals_cut"],
        notes="A reading is the number its text writes: 84.55 stays 84.55, not 84.",
    ),
    entry(
        "explode-to-single-part-polygons-only",
        """
        From heritage_sites.geojson take only the polygon features and split every multi-polygon into
        its separate parts: one single Polygon per row, never a MultiPolygon. Columns site_id, name_en
        and part (1, 2, ... within each site). Output: enclosure_parts.geojson
        """,
        [dev("fio-l2-cairo-mixedgeom-split", "heritage_sites.geojson")],
        ["enclosure_parts.geojson"],
        _enclosure_parts,
        ["multipart_kept", "non_polygons_included"],
    ),
    entry(
        "repair-invalid-keep-every-record",
        """
        QA ticket: some outlines in cairo_parcels_legacy.geojson are invalid (self-intersections).
        Make every geometry valid without dropping any part of it. Do NOT remove any record — duplicates
        and slivers are handled in a later ticket — and keep attributes and the CRS as they are.
        Deliver cairo_parcels_valid.gpkg, layer "parcels".
        """,
        [CAIRO],
        ["cairo_parcels_valid.gpkg"],
        _cairo_valid,
        ["invalid_left", "invalid_dropped", "duplicates_removed"],
        notes="make_valid turns each bow-tie into a MultiPolygon of both triangles.",
    ),
    entry(
        "repair-outlines-then-measure-them",
        """
        A few parcel outlines in cairo_parcels_legacy.geojson cross themselves, so their area_m2 is
        worthless: repair every outline without losing any part of it and recompute area_m2 (square
        metres) for all parcels from the repaired shapes. Keep every record. Save
        cairo_parcels_measured.gpkg with parcel_id, parcel_class, district, area_m2 and the repaired
        outlines.
        """,
        [CAIRO],
        ["cairo_parcels_measured.gpkg"],
        _cairo_measured,
        ["measured_before_repair", "hectares"],
        notes="A bow-tie measured before its repair has almost no area; after it, both of its triangles.",
    ),
    entry(
        "filter-rows-blank-is-missing",
        """
        Only the buildings that have a name: keep the rows of tokyo_buildings_legacy.geojson whose
        name_primary is not empty (blank strings count as empty), with all their attributes, in
        named_buildings.geojson.
        """,
        [TOKYO],
        ["named_buildings.geojson"],
        _named_buildings,
        ["blank_names_kept", "attributes_dropped"],
    ),
]
