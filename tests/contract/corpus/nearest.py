"""k nearest neighbours and distance thresholds, with distances in metres."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ._common import (
    EXAMPLES,
    entry,
    geodesic_distance_m,
    k_nearest,
    planar_distance,
    read,
    write_csv,
    write_json,
)

CAPE_TOWN = [EXAMPLES + "capetown_addresses.parquet", EXAMPLES + "capetown_hospitals.parquet"]


def _address_hospital_distances(mistake):
    """Addresses, hospitals and the address x hospital distance matrix as the mistake computes it."""
    addresses = read("capetown_addresses.parquet")
    hospitals = read("capetown_hospitals.parquet")
    if mistake == "degrees":
        dist = planar_distance(addresses.geometry, hospitals.geometry)
    elif mistake == "web_mercator_distances":
        dist = planar_distance(addresses.geometry.to_crs(3857), hospitals.geometry.to_crs(3857))
    else:
        dist = geodesic_distance_m(addresses.geometry, hospitals.geometry)
    return addresses, hospitals, dist / (1000 if mistake == "kilometres" else 1)


def _nearest3_table(mistake):
    addresses, hospitals, dist = _address_hospital_distances(mistake)
    k = 1 if mistake == "nearest_only" else 3
    idx = k_nearest(dist, k)
    rows = np.repeat(np.arange(len(addresses)), k)
    out = pd.DataFrame(
        {
            "address_id": addresses.address_id.to_numpy()[rows],
            "rank": np.tile(np.arange(1, k + 1), len(addresses)),
            "hospital_id": hospitals.hospital_id.to_numpy()[idx.ravel()],
            "hospital_name": hospitals.name.to_numpy()[idx.ravel()],
            "distance_m": dist[rows, idx.ravel()],
        }
    )
    write_csv(out.sort_values(["address_id", "rank"]), "nearest3.csv")


def _nearest3_nested(mistake):
    addresses, hospitals, dist = _address_hospital_distances(mistake)
    idx = k_nearest(dist, 2 if mistake == "two_per_address" else 3)
    nearest = {
        a: [{"hospital_id": hospitals.hospital_id.iloc[j], "distance_m": dist[i, j]} for j in idx[i]]
        for i, a in enumerate(addresses.address_id)
    }
    if mistake == "object_keyed_by_address":
        write_json(nearest, "nearest_hospitals.json")
    else:
        write_json([{"address_id": a, "nearest": n} for a, n in nearest.items()], "nearest_hospitals.json")


def _within_2km(mistake):
    addresses, _, dist = _address_hospital_distances(mistake)
    nearest = dist.min(axis=1)
    out = pd.DataFrame(
        {
            "address_id": addresses.address_id,
            "nearest_hospital_m": nearest,
            "near_hospital": nearest <= (1.5 if mistake == "degrees" else 1500),
        }
    )
    if mistake == "far_addresses_dropped":
        out = out[out.near_hospital]
    if mistake == "flags_as_yes_no":
        out["near_hospital"] = out.near_hospital.map({True: "yes", False: "no"})
    write_csv(out, "address_flags.csv")


def _nearest_hospital_points(mistake):
    addresses, hospitals, dist = _address_hospital_distances(mistake)
    j = k_nearest(dist, 1)[:, 0]
    out = addresses[["address_id", "geometry"]].assign(
        hospital_name=hospitals.name.to_numpy()[j], gap_m=dist[np.arange(len(addresses)), j]
    )
    if mistake == "join_columns_left":  # what a whole sjoin_nearest leaves beside the asked columns
        out = out.assign(index_right=j, hospital_id=hospitals.hospital_id.to_numpy()[j])
    out[[c for c in out.columns if c != "geometry"] + ["geometry"]].to_file("address_nearest.gpkg", driver="GPKG")


def _closest_hospital_told_far_ones(mistake):
    addresses, hospitals, dist = _address_hospital_distances(mistake)
    j = k_nearest(dist, 1)[:, 0]
    out = addresses[["address_id", "geometry"]].assign(
        closest_hospital=hospitals.name.to_numpy()[j], dist_m=dist[np.arange(len(addresses)), j]
    )
    if mistake == "only_the_far_ones_written":  # the count asked beside the file, taken for a filter
        out = out[out.dist_m > 1000]
    out[["address_id", "closest_hospital", "dist_m", "geometry"]].to_file("address_hospital.gpkg", driver="GPKG")


def _nearest_other_station(mistake):
    s = read("vienna_stations.geojson")
    dist = (
        planar_distance(s.geometry, s.geometry) if mistake == "degrees" else geodesic_distance_m(s.geometry, s.geometry)
    )
    if mistake != "itself_matched":
        np.fill_diagonal(dist, np.inf)
    j = k_nearest(dist, 1)[:, 0]
    out = pd.DataFrame(
        {
            "station_id": s.station_id,
            "nearest_station_id": s.station_id.to_numpy()[j],
            "gap_m": dist[np.arange(len(s)), j],
        }
    )
    write_csv(out, "station_neighbours.csv")


ENTRIES = [
    entry(
        "three-nearest-hospitals-long-table-m",
        """
        For every address in capetown_addresses.parquet, find the three closest hospitals from
        capetown_hospitals.parquet with the straight-line distance in metres. Output nearest3.csv, one
        row per address and rank: address_id, rank (1 = closest, up to 3), hospital_id,
        hospital_name, distance_m. Sort by address_id, then rank.
        """,
        CAPE_TOWN,
        ["nearest3.csv"],
        _nearest3_table,
        ["degrees", "kilometres", "nearest_only"],
        notes="Geodesic distances; UTM 34S distances agree within 0.1 % and give the same ranks.",
    ),
    entry(
        "three-nearest-hospitals-nested-json-list",
        """
        I need a JSON file, nearest_hospitals.json, that is a list with one object per address:
        {"address_id": ..., "nearest": [{"hospital_id": ..., "distance_m": ...}, ...]} where
        "nearest" holds the 3 closest hospitals, closest first, distances in metres as the crow flies.
        Inputs: capetown_addresses.parquet and capetown_hospitals.parquet.
        """,
        CAPE_TOWN,
        ["nearest_hospitals.json"],
        _nearest3_nested,
        ["object_keyed_by_address", "web_mercator_distances", "two_per_address"],
    ),
    entry(
        "flag-within-distance-keep-all-rows",
        """
        Flag each Cape Town address (capetown_addresses.parquet): is there a hospital
        (capetown_hospitals.parquet) within 1.5 km in a straight line? Write address_flags.csv with
        address_id, nearest_hospital_m (distance to the closest hospital, metres) and near_hospital
        (True/False). Don't drop the addresses that have no hospital nearby.
        """,
        CAPE_TOWN,
        ["address_flags.csv"],
        _within_2km,
        ["degrees", "far_addresses_dropped", "flags_as_yes_no"],
        notes="1.5 km, not 2 km: one address lies 3 cm from 2 km; the nearest to 1.5 km is 20 m off.",
    ),
    entry(
        "nearest-hospital-per-address-points-gpkg",
        """
        Give each address of capetown_addresses.parquet its closest hospital (capetown_hospitals.parquet),
        as the crow flies. Save address_nearest.gpkg with address_id, hospital_name, gap_m (metres) and
        the address locations.
        """,
        CAPE_TOWN,
        ["address_nearest.gpkg"],
        _nearest_hospital_points,
        ["join_columns_left", "kilometres"],
        notes="A closed list of columns for a spatial file: its geometry is its own, a join's leftovers are not.",
    ),
    entry(
        "closest-hospital-each-address-and-a-count-told",
        """
        For each address in capetown_addresses.parquet, work out which hospital of
        capetown_hospitals.parquet is closest as the crow flies and how far away it is in metres. Save
        address_hospital.gpkg with address_id, closest_hospital, dist_m and the address points; also
        let me know how many addresses are farther than 1 km from any hospital.
        """,
        CAPE_TOWN,
        ["address_hospital.gpkg"],
        _closest_hospital_told_far_ones,
        ["only_the_far_ones_written", "kilometres"],
        notes="The count is told, not written: the file keeps every address.",
    ),
    entry(
        "nearest-other-station-gap-m",
        """
        station spacing check: for each station in vienna_stations.geojson give the nearest OTHER
        station (not itself) and the gap between them in metres -> station_neighbours.csv with
        station_id, nearest_station_id, gap_m. same order as the input file.
        """,
        [EXAMPLES + "vienna_stations.geojson"],
        ["station_neighbours.csv"],
        _nearest_other_station,
        ["itself_matched", "degrees"],
    ),
]
