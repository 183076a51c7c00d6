"""Held-out entries: written after the contract rules were frozen, to measure them; not to be tuned on.

Written blind to the contract code, from the corpus README, ``_entry.py``/``_common.py`` and the inputs
only. If an entry here shows a defect, fix the rules, but do not rephrase these requests to suit them.
"""

from __future__ import annotations

import warnings

import geopandas as gpd
import numpy as np
import pandas as pd

from ._common import (
    EXAMPLES,
    WGS84,
    dev,
    entry,
    geodesic_area_m2,
    geodesic_distance_m,
    geodesic_length_m,
    lonlat,
    planar,
    read,
    read_wkt_csv,
    swap_xy,
    write_csv,
    write_geojson,
    write_json,
)

BANGKOK_GPKG = "bangkok_contractor_delivery.gpkg"
BANGKOK = dev("dd-l2-bangkok-multicrs-audit", BANGKOK_GPKG)
NYC_PARKS = dev("geo-l2-nyc-park-symdiff", "nyc_parks.gpkg")


def _station_districts(mistake):
    stations = read("vienna_stations.geojson")
    districts = read("vienna_districts.geojson")[["district_code", "district_name", "geometry"]]
    if mistake == "unnamed_stations_dropped":
        stations = stations.dropna(subset=["name"])
    out = gpd.sjoin(stations, districts, how="left", predicate="within").drop(columns="index_right")
    out = out[["station_id", "name", "district_code", "district_name", "geometry"]]
    if mistake == "district_name_renamed":
        out = out.rename(columns={"district_name": "bezirk"})
    if mistake == "lat_lon_swapped":
        out = swap_xy(out)
    write_geojson(out, "stations_tagged.geojson")


def _tokyo_plane_ix(mistake):
    b = read("tokyo_buildings_legacy.geojson")[["feature_id", "name_primary", "geometry"]]
    b["footprint_m2"] = (
        planar("area", b.geometry) if mistake == "footprint_square_degrees" else geodesic_area_m2(b.geometry)
    )
    if mistake == "crs_label_only":
        b = b.set_crs(6677, allow_override=True)
    else:
        b = b.to_crs(6676 if mistake == "wrong_zone_viii" else 6677)
    b.to_file("tokyo_buildings_cs9.gpkg", layer="buildings", driver="GPKG")


def _park_class_stats(mistake):
    parks = read("nyc_parks.gpkg", layer="parks_osm" if mistake == "osm_layer_used" else "parks_official")
    m2 = planar("area", parks.geometry) if mistake == "square_feet_as_m2" else geodesic_area_m2(parks.geometry)
    parks["ha"] = m2 / 1e4
    out = parks.groupby("park_class", as_index=False).agg(
        parks=("park_id", "size"),
        mean_ha=("ha", "sum" if mistake == "total_not_mean" else "mean"),
        smallest_ha=("ha", "min"),
    )
    write_csv(out.sort_values("park_class"), "park_class_stats.csv")


def _market_sensor(mistake):
    markets = read(BANGKOK_GPKG, layer="markets")
    sensors = read("bangkok_aq_stations.geojson")
    dist = geodesic_distance_m(markets.geometry, sensors.geometry)
    nearest = dist.argmin(axis=1)
    distance = dist[np.arange(len(markets)), nearest]
    out = pd.DataFrame(
        {
            "market_id": markets["id"],
            "station_id": sensors.station_id.to_numpy()[nearest],
            "distance_m": distance / 1000 if mistake == "distance_in_km" else distance,
        }
    )
    far = distance > 700
    if mistake == "far_markets_dropped":
        out = out[~far]
    elif mistake != "cap_ignored":
        out.loc[far, ["station_id", "distance_m"]] = None
    write_csv(out, "market_sensor.csv")


def _ownership(mistake):
    parcels = read(BANGKOK_GPKG, layer="parcels")
    out = parcels[["owner_class", "geometry"]].dissolve("owner_class", as_index=False)
    counts = parcels.groupby("owner_class").size()
    out["parcels"] = counts.reindex(out.owner_class).to_numpy()
    if mistake == "parcels_as_float":
        out["parcels"] = out.parcels.astype(float)
    area = geodesic_area_m2(out.geometry)
    out["area_ha"] = area if mistake == "area_in_m2" else area / 1e4
    if mistake == "reprojected_to_lonlat":
        out = out.to_crs(WGS84)
    out[["owner_class", "parcels", "area_ha", "geometry"]].to_file("ownership.gpkg", layer="ownership", driver="GPKG")


def _multiunit(mistake):
    if mistake == "wkt_text_not_geometry":
        a = pd.read_csv("nyc_addresses.csv")
        a[a.unit_count >= 5][["id", "street", "number", "unit_count", "geometry_wkt"]].to_parquet(
            "multiunit_addresses.parquet", index=False
        )
        return
    a = read_wkt_csv("nyc_addresses.csv", "geometry_wkt")
    keep = {"filter_lost": a.unit_count >= 0, "five_excluded": a.unit_count > 5}.get(mistake, a.unit_count >= 5)
    a[keep][["id", "street", "number", "unit_count", "geometry"]].to_parquet("multiunit_addresses.parquet", index=False)


def _vessel_log(mistake):
    t = read("fiji_transects_wgs84.geojson")
    vessels = []
    for vessel, g in t.groupby("vessel"):
        ids = sorted(g.transect_id)
        days = len(g) if mistake == "days_counts_transects" else g.survey_date.nunique()
        vessels.append(
            {
                "vessel": vessel,
                "transects": ", ".join(ids) if mistake == "transects_as_string" else ids,
                "survey_days": int(days),
            }
        )
    write_json(vessels if mistake == "bare_list" else {"vessels": vessels}, "vessel_log.json")


def _road_km(mistake):
    roads = read(BANGKOK_GPKG, layer="roads")
    if mistake == "length_in_degrees":
        length = planar("length", roads.geometry.to_crs(WGS84))
    else:
        length = geodesic_length_m(roads.geometry)
        length = length if mistake == "metres_not_km" else length / 1000
    roads["km"] = length
    out = roads.groupby("highway", as_index=False).agg(segments=("id", "size"), km=("km", "sum"))
    if mistake == "segments_as_float":
        out["segments"] = out.segments.astype(float)
    write_csv(out.sort_values("highway"), "road_km_by_type.csv")


def _hospital_reach(mistake):
    hospitals = read("capetown_hospitals.parquet").sort_values("hospital_id")
    addresses = read("capetown_addresses.parquet")
    if mistake == "buffer_in_degrees":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            zones = hospitals.geometry.buffer(650 / 111_320)
        counts = np.array([addresses.within(z).sum() for z in zones])
    else:
        counts = (geodesic_distance_m(hospitals.geometry, addresses.geometry) <= 650).sum(axis=1)
    out = hospitals[["hospital_id", "name"]].assign(addresses_650m=counts)
    if mistake == "zero_hospitals_dropped":
        out = out[out.addresses_650m > 0]
    if mistake == "counts_as_float":
        out["addresses_650m"] = out.addresses_650m.astype(float)
    write_csv(out, "hospital_reach.csv")


def _station_lonlat(mistake):
    s = read("stations.geojson")
    if mistake == "wkt_instead_of_columns":
        write_csv(
            pd.DataFrame({"station_id": s.station_id, "name": s.name, "wkt": s.to_crs(WGS84).geometry.to_wkt()}),
            "station_lonlat.csv",
        )
        return
    if mistake == "not_reprojected":
        lon, lat = s.geometry.x.to_numpy(), s.geometry.y.to_numpy()
    else:
        lon, lat = lonlat(s)
    if mistake == "lon_lat_swapped":
        lon, lat = lat, lon
    write_csv(pd.DataFrame({"station_id": s.station_id, "name": s.name, "lon": lon, "lat": lat}), "station_lonlat.csv")


ENTRIES = [
    entry(
        "heldout-stations-tagged-with-bezirk",
        """
        GIS-412 · Tag monitoring stations with their Bezirk
        In: vienna_stations.geojson + vienna_districts.geojson
        Out: stations_tagged.geojson
        Every one of the 49 stations stays in the file — a lot of them have no name, keep those too.
        Per station: station_id, name, and the district_code and district_name of the Bezirk it sits in.
        Points stay where they are, plain WGS84 lon/lat.
        """,
        [EXAMPLES + "vienna_stations.geojson", EXAMPLES + "vienna_districts.geojson"],
        ["stations_tagged.geojson"],
        _station_districts,
        ["unnamed_stations_dropped", "district_name_renamed", "lat_lon_swapped"],
        notes="Every station lies inside exactly one district, so a left and an inner join agree here.",
    ),
    entry(
        "heldout-tokyo-footprints-japan-plane-ix",
        """
        hey — our CAD contractor wants the building footprints from tokyo_buildings_legacy.geojson in
        the Japanese plane rectangular system, zone IX on JGD2011 (that's EPSG:6677), so real
        coordinates in metres, not degrees. Could you save them as tokyo_buildings_cs9.gpkg with a
        layer called buildings? Columns feature_id, name_primary and footprint_m2 (each building's
        outline area on the ground, in square metres). Thanks!
        """,
        [dev("dc-l1-tokyo-ring-orientation", "tokyo_buildings_legacy.geojson")],
        ["tokyo_buildings_cs9.gpkg"],
        _tokyo_plane_ix,
        ["crs_label_only", "wrong_zone_viii", "footprint_square_degrees"],
        notes="Areas on the ellipsoid agree with plane IX areas well within 0.1 % at this size.",
    ),
    entry(
        "heldout-park-class-mean-and-smallest-ha",
        """
        Park size statistics
        1. Source: nyc_parks.gpkg, layer parks_official only (the OSM layer is not the reference).
        2. For each park_class: parks = number of parks; mean_ha = average park area in hectares;
           smallest_ha = area of the smallest park of that class, in hectares.
        3. Write park_class_stats.csv, one row per class, classes in alphabetical order.
        """,
        [NYC_PARKS],
        ["park_class_stats.csv"],
        _park_class_stats,
        ["osm_layer_used", "square_feet_as_m2", "total_not_mean"],
        notes="The layers are in EPSG:6539 (US survey feet): its planar area is in square feet.",
    ),
    entry(
        "heldout-market-nearest-sensor-within-700m",
        """
        each market (layer markets, bangkok_contractor_delivery.gpkg) -> nearest air sensor from bangkok_aq_stations.geojson, but only if it's 700 m or closer; further than that leave station_id and distance blank. all markets in the output. market_sensor.csv: market_id, station_id, distance_m
        """,
        [BANGKOK, dev("dc-l1-bangkok-attribute-coercion", "bangkok_aq_stations.geojson")],
        ["market_sensor.csv"],
        _market_sensor,
        ["cap_ignored", "far_markets_dropped", "distance_in_km"],
        notes="""
        Nearest distances closest to the cap: 687.5 m and 712.6 m (1.8 % off); UTM 47N and the
        ellipsoid differ by < 0.01 %. Among markets within the cap the two nearest sensors differ by
        at least 0.87 %, so the nearest one does not depend on the method.
        """,
    ),
    entry(
        "heldout-dissolve-parcels-by-owner-count-ha",
        """
        Hi, could you dissolve the parcels layer of bangkok_contractor_delivery.gpkg by owner_class?
        For each owner class I need the number of parcels that went into it (parcels) and the total
        area in hectares (area_ha). Please save it to ownership.gpkg, layer "ownership", and keep the
        parcels' own projected CRS (EPSG:24047) — no conversion to lat/lon.
        """,
        [BANGKOK],
        ["ownership.gpkg"],
        _ownership,
        ["parcels_as_float", "area_in_m2", "reprojected_to_lonlat"],
    ),
    entry(
        "heldout-multiunit-addresses-geoparquet",
        """
        can I get just the buildings with five or more units (unit_count) from nyc_addresses.csv? the
        points are in geometry_wkt, lon/lat. Need it as GeoParquet: multiunit_addresses.parquet, point
        geometry in EPSG:4326, columns id, street, number, unit_count. thx
        """,
        [dev("fio-l1-nyc-csvwkt-addresses", "nyc_addresses.csv")],
        ["multiunit_addresses.parquet"],
        _multiunit,
        ["filter_lost", "five_excluded", "wkt_text_not_geometry"],
    ),
    entry(
        "heldout-vessel-log-json-nested-transects",
        """
        Survey log for the Fiji cruise. From fiji_transects_wgs84.geojson make vessel_log.json shaped like
        {"vessels": [ {"vessel": ..., "transects": [...], "survey_days": ...}, ... ]}
        - one element per vessel, vessels in alphabetical order
        - transects: a JSON array of that vessel's transect_id values, ascending
        - survey_days: on how many different dates the vessel surveyed (an integer)
        No geometry in this file.
        """,
        [dev("crs-l2-fiji-antimeridian", "fiji_transects_wgs84.geojson")],
        ["vessel_log.json"],
        _vessel_log,
        ["transects_as_string", "bare_list", "days_counts_transects"],
    ),
    entry(
        "heldout-road-km-per-highway-type",
        """
        Quick one: how many kilometres of road per highway type are in the roads layer of
        bangkok_contractor_delivery.gpkg? road_km_by_type.csv with highway, segments (how many road
        pieces) and km. Sort by highway type A–Z, the totals are too close to rank.
        """,
        [BANGKOK],
        ["road_km_by_type.csv"],
        _road_km,
        ["metres_not_km", "length_in_degrees", "segments_as_float"],
        notes="The layer is in UTM 47N; its lengths agree with the ellipsoid's within 0.05 %.",
    ),
    entry(
        "heldout-hospital-addresses-within-650m",
        """
        Ticket: access check. For every hospital in capetown_hospitals.parquet, count the residential
        addresses (capetown_addresses.parquet) within 650 metres of it, straight-line. All 37 hospitals
        must be in the result, including those with no address that close (write 0 for them).
        Deliver hospital_reach.csv with hospital_id, name, addresses_650m, ordered by hospital_id.
        """,
        [EXAMPLES + "capetown_hospitals.parquet", EXAMPLES + "capetown_addresses.parquet"],
        ["hospital_reach.csv"],
        _hospital_reach,
        ["buffer_in_degrees", "zero_hospitals_dropped", "counts_as_float"],
        notes="""
        Hospital-address distances nearest 650 m: 640.4 m and 682 m (> 1.4 % off); UTM 34S and the
        ellipsoid differ by < 0.04 %. A 650/111320 degree buffer changes 4 counts.
        """,
    ),
    entry(
        "heldout-austrian-stations-to-lonlat-columns",
        """
        stations.geojson comes in Austria Lambert. I need station_lonlat.csv — station_id, name, lon,
        lat — with lon/lat as WGS84 decimal degrees (lon east, lat north), one row per station.
        """,
        [dev("spa-l1-vienna-pip-count", "stations.geojson")],
        ["station_lonlat.csv"],
        _station_lonlat,
        ["not_reprojected", "lon_lat_swapped", "wkt_instead_of_columns"],
    ),
]
