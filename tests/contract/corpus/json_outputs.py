"""JSON deliverables: lists of records, nested objects, GeoJSON with top-level members, summaries."""

from __future__ import annotations

import geopandas as gpd
import pandas as pd

from ._common import (
    EXAMPLES,
    dev,
    entry,
    geodesic_area_m2,
    lonlat,
    planar,
    read,
    read_wkt_csv,
    records,
    swap_xy,
    write_geojson,
    write_json,
)

CLINICS = dev("dd-l1-capetown-clinics-bbox", "capetown_clinics.csv")
TOKYO = dev("dc-l1-tokyo-ring-orientation", "tokyo_buildings_legacy.geojson")


def _district_stats(mistake):
    d = read("vienna_districts.geojson").sort_values("district_code")
    stations = read("vienna_stations.geojson")
    counts = gpd.sjoin(stations, d[["geometry"]], predicate="within").groupby("index_right").size()
    area = planar("area", d.geometry) if mistake == "area_square_degrees" else geodesic_area_m2(d.geometry) / 1e6
    rows = pd.DataFrame(
        {
            "district_code": d.district_code,
            "district_name": d.district_name,
            "area_km2": area,
            "stations": counts.reindex(d.index, fill_value=0),
        }
    )
    summary = {"districts": len(d), "stations": len(stations), "total_area_km2": float(area.sum())}
    if mistake == "zero_station_districts_dropped":
        rows = rows[rows.stations > 0]
    if mistake == "summary_repeated_per_row":
        write_json(records(rows.assign(total_area_km2=summary["total_area_km2"])), "district_stats.json")
    else:
        write_json({"summary": summary, "districts": records(rows)}, "district_stats.json")


def _hospital_records(mistake):
    h = read("capetown_hospitals.parquet").sort_values("name")
    if mistake == "feature_collection":
        write_geojson(h, "hospitals.json")
        return
    lon, lat = lonlat(h)
    table = pd.DataFrame({"hospital_id": h.hospital_id, "name": h.name, "lon": lon, "lat": lat})
    if mistake == "lat_lon_swapped":
        table = table.rename(columns={"lon": "lat", "lat": "lon"})
    if mistake == "column_oriented_object":
        table.to_json("hospitals.json", force_ascii=False)  # pandas' default orient: {column: {index: value}}
    else:
        write_json(records(table), "hospitals.json")


def _stations_with_metadata(mistake):
    s = read("vienna_stations.geojson")
    if mistake == "unnamed_dropped":
        s = s.dropna(subset=["name"])
    metadata = {"source": "OpenStreetMap", "station_count": len(s), "crs": "EPSG:4326"}
    if mistake == "metadata_missing":
        write_geojson(s, "stations_with_metadata.geojson")
    elif mistake == "metadata_in_properties":
        write_geojson(s.assign(**metadata), "stations_with_metadata.geojson")
    else:
        write_geojson(s, "stations_with_metadata.geojson", {"metadata": metadata})


def _clinics_named_collection(mistake):
    c = read_wkt_csv("capetown_clinics.csv", "wkt_geom")
    if mistake == "geometry_left_as_wkt":
        c = pd.read_csv("capetown_clinics.csv").assign(geometry=None)
        c = gpd.GeoDataFrame(c, geometry="geometry", crs=4326)
    if mistake == "lat_lon_swapped":
        c = swap_xy(c)
    members = None if mistake == "name_member_missing" else {"name": "Cape Town clinics"}
    write_geojson(c, "clinics.geojson", members)


def _footprint_summary(mistake):
    b = read("tokyo_buildings_legacy.geojson")
    b["footprint_m2"] = planar("area", b.geometry) if mistake == "square_degrees" else geodesic_area_m2(b.geometry)
    named = b.name_primary.notna() if mistake == "blank_names_counted" else b.name_primary.fillna("").str.strip() != ""
    largest = b.loc[b.footprint_m2.idxmax()]
    summary = {
        "buildings": len(b),
        "named_buildings": int(named.sum()),
        "total_footprint_m2": float(b.footprint_m2.sum()),
        "largest": {"feature_id": int(largest.feature_id), "footprint_m2": float(largest.footprint_m2)},
    }
    if mistake == "list_of_rows":
        rows = b[["feature_id", "footprint_m2"]].assign(total_footprint_m2=summary["total_footprint_m2"])
        write_json(records(rows), "footprint_summary.json")
    else:
        write_json(summary, "footprint_summary.json")


def _clinics_per_subdistrict(mistake):
    c = pd.read_csv("capetown_clinics.csv")
    counts = c.groupby("subdistrict").size().rename("clinics").reset_index()
    by = ["subdistrict"] if mistake == "alphabetical" else ["clinics", "subdistrict"]
    counts = counts.sort_values(by, ascending=[True] if mistake == "alphabetical" else [False, True])
    if mistake == "object_keyed_by_subdistrict":
        write_json(dict(zip(counts.subdistrict, counts.clinics)), "clinics_per_subdistrict.json")
        return
    if mistake == "counts_as_strings":
        counts["clinics"] = counts.clinics.astype(str)
    write_json(records(counts), "clinics_per_subdistrict.json")


def _vessel_summary(mistake):
    t = read("fiji_transects_wgs84.geojson")
    out = t.groupby("vessel", as_index=False).agg(transects=("transect_id", "size"), last_survey=("survey_date", "max"))
    out = out.sort_values(["transects", "vessel"], ascending=[False, True])
    if mistake == "dates_as_epoch_ms":
        out.to_json("vessel_summary.json", orient="records")  # pandas writes datetimes as epoch milliseconds
        return
    out["last_survey"] = out.last_survey.dt.strftime("%Y-%m-%d")
    if mistake == "object_keyed_by_vessel":
        write_json(out.set_index("vessel").to_dict(orient="index"), "vessel_summary.json")
    else:
        write_json(records(out), "vessel_summary.json")


ENTRIES = [
    entry(
        "nested-json-summary-plus-district-list",
        """
        From vienna_districts.geojson and vienna_stations.geojson build district_stats.json shaped like
        {"summary": {"districts": <n>, "stations": <n>, "total_area_km2": <x>},
         "districts": [{"district_code": .., "district_name": .., "area_km2": .., "stations": ..}, ...]}
        with every district in the list (stations = 0 where there is none), ordered by district_code.
        The total area goes in the summary only, once.
        """,
        [EXAMPLES + "vienna_districts.geojson", EXAMPLES + "vienna_stations.geojson"],
        ["district_stats.json"],
        _district_stats,
        ["summary_repeated_per_row", "zero_station_districts_dropped", "area_square_degrees"],
    ),
    entry(
        "json-list-of-records-not-geojson",
        """
        Could you export capetown_hospitals.parquet as a plain JSON list of records —
        [{"hospital_id": "...", "name": "...", "lon": ..., "lat": ...}, ...] — sorted by name?
        Just the list instead of GeoJSON. File name: hospitals.json.
        """,
        [EXAMPLES + "capetown_hospitals.parquet"],
        ["hospitals.json"],
        _hospital_records,
        ["feature_collection", "column_oriented_object", "lat_lon_swapped"],
    ),
    entry(
        "geojson-top-level-metadata-member",
        """
        Write the Vienna stations (vienna_stations.geojson) to stations_with_metadata.geojson as a
        FeatureCollection, all stations with their attributes, and add a top-level "metadata" member
        next to "features": {"source": "OpenStreetMap", "station_count": <number of stations>,
        "crs": "EPSG:4326"}.
        """,
        [EXAMPLES + "vienna_stations.geojson"],
        ["stations_with_metadata.geojson"],
        _stations_with_metadata,
        ["metadata_missing", "metadata_in_properties", "unnamed_dropped"],
    ),
    entry(
        "csv-wkt-to-geojson-with-name-member",
        """
        Turn capetown_clinics.csv into clinics.geojson: one point feature per clinic built from the
        wkt_geom column (lon/lat), with clinic_id, name and subdistrict as properties. Give the
        FeatureCollection a top-level "name": "Cape Town clinics".
        """,
        [CLINICS],
        ["clinics.geojson"],
        _clinics_named_collection,
        ["name_member_missing", "geometry_left_as_wkt", "lat_lon_swapped"],
    ),
    entry(
        "summary-object-not-per-row-total",
        """
        Summary of tokyo_buildings_legacy.geojson as a single JSON object in footprint_summary.json:
          - buildings: number of buildings
          - named_buildings: how many have a name_primary (a blank name doesn't count)
          - total_footprint_m2: total footprint area in m²
          - largest: {"feature_id": ..., "footprint_m2": ...} for the biggest footprint
        No per-building rows.
        """,
        [TOKYO],
        ["footprint_summary.json"],
        _footprint_summary,
        ["list_of_rows", "square_degrees", "blank_names_counted"],
    ),
    entry(
        "counts-json-records-sorted-with-tiebreak",
        """
        clinics per subdistrict from capetown_clinics.csv -> clinics_per_subdistrict.json, a JSON list
        of records [{"subdistrict": "...", "clinics": <int>}, ...], most clinics first, ties by
        subdistrict name A-Z
        """,
        [CLINICS],
        ["clinics_per_subdistrict.json"],
        _clinics_per_subdistrict,
        ["object_keyed_by_subdistrict", "counts_as_strings", "alphabetical"],
    ),
    entry(
        "records-with-iso-dates-per-group",
        """
        Per survey vessel in fiji_transects_wgs84.geojson: how many transects it ran and the date of
        its latest survey. Write vessel_summary.json as a list of records with keys vessel, transects
        and last_survey (ISO date, YYYY-MM-DD), busiest vessel first (ties: vessel name A-Z).
        """,
        [dev("crs-l2-fiji-antimeridian", "fiji_transects_wgs84.geojson")],
        ["vessel_summary.json"],
        _vessel_summary,
        ["dates_as_epoch_ms", "object_keyed_by_vessel"],
    ),
]
