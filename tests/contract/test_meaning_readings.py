"""Readings of what a request means whatever its wording: a cap on distances, rows kept by a
threshold on a named column, a count of distinct values per group and a statistic of a measure per
group, each derived from a request and checked on real files."""

from __future__ import annotations

import geopandas as gpd
import numpy as np
import pandas as pd
from pyproj import Geod
from shapely.geometry import LineString, Point, box

from geoagent_ext.contract import check_payload, derive_contract

from .test_checks import HELPER, PROBES, in_folder

GEOD = Geod(ellps="WGS84")


def facts_of(folder):
    return in_folder(folder, PROBES["input_facts"], sorted(p.name for p in folder.iterdir()))


def of_kind(contract, kind):
    return [r for r in contract.requirements if r.kind == kind]


def results(contract, folder, kind):
    """[(passed, observed)] of the contract's requirements of ``kind`` on the files in ``folder``."""
    ids = {r.id for r in of_kind(contract, kind)}
    answer = in_folder(folder, HELPER.check_contract, check_payload(contract))
    return [(r["passed"], r["observed"]) for r in answer if r["id"] in ids]


# --- a cap on distances


def _schools_and_clinics(folder):
    schools = gpd.GeoDataFrame(
        {"school_id": ["S1", "S2", "S3"]},
        geometry=[Point(2.35, 48.85), Point(2.36, 48.86), Point(2.45, 48.90)],
        crs=4326,
    )
    clinics = gpd.GeoDataFrame(
        {"clinic_id": ["C1", "C2"]}, geometry=[Point(2.351, 48.851), Point(2.37, 48.865)], crs=4326
    )
    schools.to_file(folder / "schools.geojson")
    clinics.to_file(folder / "clinics.geojson")
    return schools, clinics


def _nearest_clinics(schools, clinics, cap_km=None):
    rows = []
    for sid, p in zip(schools.school_id, schools.geometry):
        d = [GEOD.inv(p.x, p.y, q.x, q.y)[2] / 1000 for q in clinics.geometry]
        i = int(np.argmin(d))
        if cap_km is not None and d[i] > cap_km:
            rows.append({"school_id": sid, "clinic_id": None, "dist_km": None})
        else:
            rows.append({"school_id": sid, "clinic_id": clinics.clinic_id.iloc[i], "dist_km": round(d[i], 3)})
    return pd.DataFrame(rows)


def _school_clinic_contract(folder, request):
    """The schools and clinics written to ``folder``, the folder's input facts and the contract of
    ``request`` for `school_clinic.csv`."""
    schools, clinics = _schools_and_clinics(folder)
    facts = facts_of(folder)
    return schools, clinics, facts, derive_contract(request, ["school_clinic.csv"], facts)


def test_a_distance_cap_said_in_other_words_bounds_the_distance_column(tmp_path):
    schools, clinics, _, contract = _school_clinic_contract(
        tmp_path,
        "Match each school in schools.geojson to its closest clinic from clinics.geojson, as long as that clinic "
        "is no farther than 1.5 km; past that, clinic_id and dist_km stay empty. Save school_clinic.csv with "
        "school_id, clinic_id, dist_km.",
    )
    (cap,) = of_kind(contract, "distance_cap")
    assert cap.params["name"] == "dist_km" and cap.params["unit"] == "km" and cap.params["cap_m"] == 1500
    assert cap.sure
    _nearest_clinics(schools, clinics, cap_km=1.5).to_csv(tmp_path / "school_clinic.csv", index=False)
    assert all(ok for ok, _ in results(contract, tmp_path, "distance_cap"))
    _nearest_clinics(schools, clinics).to_csv(tmp_path / "school_clinic.csv", index=False)  # the cap ignored
    ((ok, seen),) = results(contract, tmp_path, "distance_cap")
    assert not ok and "beyond the cap of 1.5 km" in seen


def test_a_distance_said_of_a_count_or_a_buffer_is_not_a_cap_on_the_distance_column():
    for request in (
        "For each school in schools.geojson count the clinics (clinics.geojson) within 800 m, and give dist_m "
        "to the closest one. Save school_clinic.csv with school_id, clinics_800, dist_m.",
        "Buffer the schools in schools.geojson by 500 m and give dist_m to the closest clinic of clinics.geojson "
        "in school_clinic.csv with school_id, dist_m.",
    ):
        contract = derive_contract(request, ["school_clinic.csv"], {})
        assert not of_kind(contract, "distance_cap"), request


def test_the_nearest_for_each_feature_keeps_a_row_for_every_one_unless_some_are_selected(tmp_path):
    request = (
        "For every school in schools.geojson, find the closest clinic of clinics.geojson and the distance in km. "
        "Save school_clinic.csv with school_id, clinic_id, dist_km, and tell me how many schools are more than "
        "1 km from a clinic."
    )
    schools, clinics, facts, contract = _school_clinic_contract(tmp_path, request)
    (rows,) = of_kind(contract, "rows_as_input")
    assert rows.sure and rows.params["input"] == "schools.geojson" and rows.params["rows"] == 3
    table = _nearest_clinics(schools, clinics)
    table.to_csv(tmp_path / "school_clinic.csv", index=False)
    assert all(ok for ok, _ in results(contract, tmp_path, "rows_as_input"))
    table[table.dist_km > 1].to_csv(tmp_path / "school_clinic.csv", index=False)  # the count taken for a filter
    assert not any(ok for ok, _ in results(contract, tmp_path, "rows_as_input"))
    for selecting in (
        request.replace("Save school_clinic.csv", "Save only the schools more than 1 km away to school_clinic.csv"),
        request.replace("the closest clinic", "the three closest clinics"),
    ):
        assert not [
            r for r in of_kind(derive_contract(selecting, ["school_clinic.csv"], facts), "rows_as_input") if r.sure
        ], selecting


# --- rows kept by a threshold on a named column


def _towers(folder):
    towers = pd.DataFrame({"bldg_id": [1, 2, 3, 4, 5, 6], "storeys": [2, 4, 7, 3, 12, 4]})
    towers.to_csv(folder / "towers.csv", index=False)
    return towers


def test_a_threshold_on_a_named_column_keeps_exactly_the_rows_that_pass_it(tmp_path):
    towers = _towers(tmp_path)
    facts = facts_of(tmp_path)
    request = (
        "From towers.csv I only need the buildings having at least 4 storeys (the storeys field). "
        "tall.csv: bldg_id, storeys."
    )
    contract = derive_contract(request, ["tall.csv"], facts)
    (rule,) = of_kind(contract, "threshold_rows")
    assert (rule.params["name"], rule.params["op"], rule.params["value"]) == ("storeys", ">=", 4)
    towers[towers.storeys >= 4].to_csv(tmp_path / "tall.csv", index=False)
    assert results(contract, tmp_path, "threshold_rows") == [
        (True, results(contract, tmp_path, "threshold_rows")[0][1])
    ]
    towers[towers.storeys > 4].to_csv(tmp_path / "tall.csv", index=False)  # the boundary left out
    ((ok, seen),) = results(contract, tmp_path, "threshold_rows")
    assert not ok and "missing" in seen
    towers.to_csv(tmp_path / "tall.csv", index=False)  # no filter at all
    ((ok, seen),) = results(contract, tmp_path, "threshold_rows")
    assert not ok and "do not pass" in seen


def test_a_threshold_is_read_in_other_forms_and_not_where_the_rows_are_grouped(tmp_path):
    _towers(tmp_path)
    facts = facts_of(tmp_path)
    contract = derive_contract(
        "Keep just rows whose storeys exceeds 6. Write high.csv: bldg_id, storeys.", ["high.csv"], facts
    )
    (rule,) = of_kind(contract, "threshold_rows")
    assert (rule.params["op"], rule.params["value"]) == (">", 6)
    contract = derive_contract(
        "storeys of three or fewer only, please: low.csv with bldg_id, storeys", ["low.csv"], facts
    )
    (rule,) = of_kind(contract, "threshold_rows")
    assert (rule.params["op"], rule.params["value"]) == ("<=", 3)
    grouped = derive_contract(
        "Count per storeys value the buildings with at least 4 storeys (storeys): out.csv with storeys, n.",
        ["out.csv"],
        facts,
    )
    assert not of_kind(grouped, "threshold_rows")


# --- a count of distinct values per group


def test_how_many_different_values_per_group_is_a_distinct_count_not_a_row_count(tmp_path):
    visits = pd.DataFrame(
        {
            "visit_id": range(1, 8),
            "inspector": ["ana", "ana", "ana", "bo", "bo", "cy", "cy"],
            "site": ["north", "north", "east", "east", "west", "west", "west"],
        }
    )
    visits.to_csv(tmp_path / "visits.csv", index=False)
    facts = facts_of(tmp_path)
    request = (
        "From visits.csv, for each inspector: in sites_seen, the number of distinct sites they went to. "
        "Write inspector_sites.csv with inspector and sites_seen."
    )
    contract = derive_contract(request, ["inspector_sites.csv"], facts)
    (rule,) = of_kind(contract, "distinct_count")
    assert rule.params["column"] == "site" and rule.params["group"] == "inspector"
    right = visits.groupby("inspector", as_index=False).agg(sites_seen=("site", "nunique"))
    right.to_csv(tmp_path / "inspector_sites.csv", index=False)
    assert all(ok for ok, _ in results(contract, tmp_path, "distinct_count"))
    rows = visits.groupby("inspector", as_index=False).agg(sites_seen=("site", "size"))
    rows.to_csv(tmp_path / "inspector_sites.csv", index=False)
    ((ok, seen),) = results(contract, tmp_path, "distinct_count")
    assert not ok and "distinct `site`" in seen


# --- a statistic of a measure per group


def test_a_median_or_largest_area_per_group_is_checked_against_the_measured_features(tmp_path):
    lakes = gpd.GeoDataFrame(
        {"lake": list("abcde"), "region": ["hill", "hill", "hill", "plain", "plain"]},
        geometry=[box(10, 60, 10 + s, 60 + s) for s in (0.01, 0.02, 0.05, 0.03, 0.04)],
        crs=4326,
    )
    lakes.to_file(tmp_path / "lakes.geojson")
    facts = facts_of(tmp_path)
    request = (
        "Lake sizes by region, from lakes.geojson. lake_stats.csv, one row per region, with\n"
        "- median_km2 — the median lake area in km²\n"
        "- biggest_km2 — area of the largest lake there\n"
    )
    contract = derive_contract(request, ["lake_stats.csv"], facts)
    stats = {r.params["name"]: r for r in of_kind(contract, "measure_stats")}
    assert stats["median_km2"].params["stat"] == "median" and stats["biggest_km2"].params["stat"] == "max"
    assert all(r.params["group"] == "region" and r.sure for r in stats.values())
    km2 = [abs(GEOD.geometry_area_perimeter(g)[0]) / 1e6 for g in lakes.geometry]
    lakes["km2"] = km2
    right = lakes.groupby("region", as_index=False).agg(median_km2=("km2", "median"), biggest_km2=("km2", "max"))
    right.to_csv(tmp_path / "lake_stats.csv", index=False)
    assert [ok for ok, _ in results(contract, tmp_path, "measure_stats")] == [True, True]
    summed = lakes.groupby("region", as_index=False).agg(median_km2=("km2", "sum"), biggest_km2=("km2", "max"))
    summed.to_csv(tmp_path / "lake_stats.csv", index=False)
    assert [ok for ok, _ in results(contract, tmp_path, "measure_stats")] == [False, True]


def test_a_quantity_asked_in_a_unit_per_group_is_the_groups_total_measure(tmp_path):
    trails = gpd.GeoDataFrame(
        {"trail_id": [1, 2, 3], "surface": ["gravel", "paved", "gravel"]},
        geometry=[LineString([(7.0, 46.0), (7.0, 46.01 * (1 + i / 1000))]) for i in range(3)],
        crs=4326,
    )
    trails.to_file(tmp_path / "trails.geojson")
    facts = facts_of(tmp_path)
    request = "How many kilometres of trail are there per surface in trails.geojson? surface_km.csv: surface, km."
    contract = derive_contract(request, ["surface_km.csv"], facts)
    (rule,) = of_kind(contract, "measure_totals")
    assert (rule.params["name"], rule.params["unit"], rule.params["group"]) == ("km", "km", "surface")
    trails["km"] = [GEOD.geometry_length(g) / 1000 for g in trails.geometry]
    trails.groupby("surface", as_index=False).km.sum().to_csv(tmp_path / "surface_km.csv", index=False)
    assert [ok for ok, _ in results(contract, tmp_path, "measure_totals")] == [True]
    metres = trails.groupby("surface", as_index=False).km.sum().assign(km=lambda f: f.km * 1000)
    metres.to_csv(tmp_path / "surface_km.csv", index=False)
    assert [ok for ok, _ in results(contract, tmp_path, "measure_totals")] == [False]


# --- a count of what lies within a distance of each feature


def test_a_count_within_a_distance_is_checked_in_metres_on_the_ground(tmp_path):
    stops = gpd.GeoDataFrame({"stop_id": ["A", "B"]}, geometry=[Point(13.40, 52.52), Point(13.42, 52.52)], crs=4326)
    # kiosks 100, 250 and 400 m east of stop A (1° of longitude is ~67.8 km at 52.52° N)
    kiosks = gpd.GeoDataFrame(
        {"kiosk": [1, 2, 3]},
        geometry=[Point(13.40 + d / 67_800, 52.52) for d in (100, 250, 400)],
        crs=4326,
    )
    stops.to_parquet(tmp_path / "stops.parquet")
    kiosks.to_parquet(tmp_path / "kiosks.parquet")
    facts = facts_of(tmp_path)
    request = (
        "For each stop in stops.parquet, how many kiosks of kiosks.parquet are no farther than 300 m away? "
        "Write stop_kiosks.csv with stop_id and kiosks_near; stops with none get 0."
    )
    contract = derive_contract(request, ["stop_kiosks.csv"], facts)
    (rule,) = of_kind(contract, "counts_within")
    assert rule.params["name"] == "kiosks_near" and rule.params["distance_m"] == 300
    assert rule.params["around"] == "stops.parquet" and rule.params["counted"] == "kiosks.parquet"
    pd.DataFrame({"stop_id": ["A", "B"], "kiosks_near": [2, 0]}).to_csv(tmp_path / "stop_kiosks.csv", index=False)
    assert [ok for ok, _ in results(contract, tmp_path, "counts_within")] == [True]
    # a 300 m radius taken as 300/111320 degrees reaches only ~180 m east here
    pd.DataFrame({"stop_id": ["A", "B"], "kiosks_near": [1, 0]}).to_csv(tmp_path / "stop_kiosks.csv", index=False)
    ((ok, seen),) = results(contract, tmp_path, "counts_within")
    assert not ok and "2 lie within 300 m" in seen


def test_a_cap_is_read_from_what_is_left_blank_past_it_or_from_a_search_radius():
    for request, name, cap in (
        (
            "Nearest clinic (clinics.geojson) for every school in schools.geojson; clinic_id and dist_m stay "
            "blank where it is more than 900 m away. school_clinic.csv: school_id, clinic_id, dist_m",
            "dist_m",
            900,
        ),
        (
            "For each school (schools.geojson) the closest clinic of clinics.geojson, search radius 1.2 km. "
            "school_clinic.csv: school_id, clinic_id, distance_km",
            "distance_km",
            1200,
        ),
    ):
        (rule,) = of_kind(derive_contract(request, ["school_clinic.csv"], {}), "distance_cap")
        assert (rule.params["name"], rule.params["cap_m"]) == (name, cap), request
    long_roads = "Drop the roads more than 500 m long, leave the rest; out.csv: road_id, dist_m to the nearest school"
    assert not of_kind(derive_contract(long_roads, ["out.csv"], {}), "distance_cap")


def test_a_statistic_said_by_a_columns_name_is_read_as_that_statistic_per_group(tmp_path):
    plots = gpd.GeoDataFrame(
        {"plot": [1, 2, 3], "farm": ["x", "x", "y"]},
        geometry=[box(5, 50, 5.01, 50.01), box(5, 50, 5.02, 50.02), box(5, 50, 5.005, 50.005)],
        crs=4326,
    )
    plots.to_file(tmp_path / "plots.geojson")
    request = (
        "From plots.geojson write farm_plots.csv with farm, plots, mean_area_ha and max_area_ha, one line per farm."
    )
    contract = derive_contract(request, ["farm_plots.csv"], facts_of(tmp_path))
    stats = {r.params["name"]: r.params["stat"] for r in of_kind(contract, "measure_stats")}
    assert stats == {"mean_area_ha": "mean", "max_area_ha": "max"}
    assert all(r.sure for r in of_kind(contract, "measure_stats"))
    plots["ha"] = [abs(GEOD.geometry_area_perimeter(g)[0]) / 1e4 for g in plots.geometry]
    right = plots.groupby("farm", as_index=False).agg(
        plots=("plot", "size"), mean_area_ha=("ha", "mean"), max_area_ha=("ha", "max")
    )
    right.to_csv(tmp_path / "farm_plots.csv", index=False)
    assert [ok for ok, _ in results(contract, tmp_path, "measure_stats")] == [True, True]
    right.assign(max_area_ha=right.max_area_ha * 1e4).to_csv(tmp_path / "farm_plots.csv", index=False)  # m², not ha
    assert [ok for ok, _ in results(contract, tmp_path, "measure_stats")] == [True, False]


def test_a_threshold_beside_an_exclusion_or_a_flag_is_not_read_as_the_whole_selection(tmp_path):
    _towers(tmp_path)
    facts = facts_of(tmp_path)
    for request in (
        "Only the towers with at least 4 storeys (storeys), but not bldg_id 5. tall.csv with bldg_id, storeys.",
        "Keep all rows; flag those with storeys of 4 or more in is_tall. tall.csv: bldg_id, storeys, is_tall.",
    ):
        assert not of_kind(derive_contract(request, ["tall.csv"], facts), "threshold_rows"), request
