"""Readings of what a request means across wordings, third set: column lists written as "Columns: a, b",
after "<file>:" on the next line, after "add" or "new fields ...:", or as each record's keys; a
measure's unit said in words ("surface in acres"); a total length per group of "one row per" rows;
distinct values counted per group; a ranked top N (rows, or a JSON key's list); a JSON key drawn as a
list; rows of a category the output does not carry; counts of intersecting features; every existing
column kept. Each is derived from a request and checked on real files."""

from __future__ import annotations

import json

import geopandas as gpd
import pandas as pd
from pyproj import Geod
from shapely.geometry import LineString, Point, box

from geoagent_ext.contract import derive_contract

from .test_meaning_readings import facts_of, of_kind, results

GEOD = Geod(ellps="WGS84")
ACRE = 4046.8564224


def _area_m2(geoms):
    return [abs(GEOD.geometry_area_perimeter(g)[0]) for g in geoms]


def _lakes(folder):
    """Six rectangular lakes (reservoirs and ponds) near 46° N, with an id, a name and a kind."""
    lakes = gpd.GeoDataFrame(
        {
            "lake_id": [f"L{i}" for i in range(6)],
            "lake_name": ["Alpha", "Beta", "Gamma", "Delta", "Eps", "Zeta"],
            "kind": ["reservoir", "pond", "reservoir", "pond", "reservoir", "pond"],
        },
        geometry=[box(7 + i * 0.05, 46, 7.01 + i * 0.05 + i * 0.002, 46.01) for i in range(6)],
        crs=4326,
    )
    lakes.to_file(folder / "lakes.geojson")
    return lakes


def test_a_columns_label_line_lists_the_columns_and_a_unit_said_in_words_binds(tmp_path):
    lakes = _lakes(tmp_path)
    request = (
        "Brief: lake sizes\n"
        "1. Input: lakes.geojson\n"
        "2. Fields: lake_id, surface (each lake's area in acres), geometry\n"
        "3. Write lake_sizes.gpkg in lon/lat."
    )
    contract = derive_contract(request, ["lake_sizes.gpkg"], facts_of(tmp_path))
    assert "surface" in [n for r in of_kind(contract, "columns") for n in r.params["names"]]
    (unit,) = of_kind(contract, "measure_units")
    assert (unit.params["name"], unit.params["unit"], unit.params["measure"]) == ("surface", "acre", "area")
    out = lakes[["lake_id", "geometry"]].assign(surface=[a / ACRE for a in _area_m2(lakes.geometry)])
    out.to_file(tmp_path / "lake_sizes.gpkg")
    assert all(ok for ok, _ in results(contract, tmp_path, "measure_units"))
    out.assign(surface=out.surface * ACRE / 1e4).to_file(tmp_path / "lake_sizes.gpkg")  # hectares
    assert not any(ok for ok, _ in results(contract, tmp_path, "measure_units"))


def test_a_column_added_by_name_binds_its_unit(tmp_path):
    lakes = _lakes(tmp_path)
    request = (
        "Open lakes.geojson and add shore_km: the length of each lake's outline, in kilometres. Save lakes_out.geojson."
    )
    contract = derive_contract(request, ["lakes_out.geojson"], facts_of(tmp_path))
    (unit,) = of_kind(contract, "measure_units")
    assert (unit.params["name"], unit.params["unit"], unit.params["measure"]) == ("shore_km", "km", "perimeter")
    km = [GEOD.geometry_area_perimeter(g)[1] / 1000 for g in lakes.geometry]
    lakes.assign(shore_km=km).to_file(tmp_path / "lakes_out.geojson")
    assert all(ok for ok, _ in results(contract, tmp_path, "measure_units"))
    lakes.assign(shore_km=[k * 1000 for k in km]).to_file(tmp_path / "lakes_out.geojson")
    assert not any(ok for ok, _ in results(contract, tmp_path, "measure_units"))


def test_new_fields_named_after_a_colon_are_the_outputs_columns(tmp_path):
    _lakes(tmp_path)
    request = (
        "I'd like three new fields on lakes.geojson: `water_m2` (area), depth_class and survey_year. "
        "Output lakes2.geojson"
    )
    contract = derive_contract(request, ["lakes2.geojson"], facts_of(tmp_path))
    names = [n for r in of_kind(contract, "columns") for n in r.params["names"]]
    assert {"water_m2", "depth_class", "survey_year"} <= set(names)


def _wells_and_pumps(folder):
    wells = gpd.GeoDataFrame(
        {"well_id": ["W1", "W2", "W3"]}, geometry=[Point(5.0, 52.0), Point(5.02, 52.01), Point(5.1, 52.05)], crs=4326
    )
    wells.to_file(folder / "wells.geojson")
    pumps = pd.DataFrame({"pump_id": ["P1", "P2"], "geom_wkt": ["POINT (5.001 52.001)", "POINT (5.09 52.05)"]})
    pumps.to_csv(folder / "pumps.csv", index=False)
    return wells


def test_columns_on_the_line_after_the_outputs_colon_and_a_nearest_distance_to_a_wkt_table(tmp_path):
    wells = _wells_and_pumps(tmp_path)
    request = (
        "Take wells.geojson and pumps.csv (WKT points in geom_wkt). For each well I need the closest pump.\n"
        "Result wells_pumps.geojson:\n"
        "wells as points with well_id and closest_pump_km"
    )
    contract = derive_contract(request, ["wells_pumps.geojson"], facts_of(tmp_path))
    (near,) = of_kind(contract, "nearest_distance")
    assert (near.params["name"], near.params["unit"], near.params["to"]) == ("closest_pump_km", "km", "pumps.csv")
    utm = wells.estimate_utm_crs()
    pumps = gpd.GeoSeries.from_wkt(pd.read_csv(tmp_path / "pumps.csv").geom_wkt, crs=4326).to_crs(utm)
    km = [pumps.distance(p).min() / 1000 for p in wells.to_crs(utm).geometry]
    wells.assign(closest_pump_km=km).to_file(tmp_path / "wells_pumps.geojson")
    assert all(ok for ok, _ in results(contract, tmp_path, "nearest_distance"))
    wells.assign(closest_pump_km=[k * 1000 for k in km]).to_file(tmp_path / "wells_pumps.geojson")
    assert not any(ok for ok, _ in results(contract, tmp_path, "nearest_distance"))


def _routes(folder):
    """Seven bus routes of three operators, run on dates (two on the same day for operator A)."""
    routes = gpd.GeoDataFrame(
        {
            "route_id": [f"R{i}" for i in range(7)],
            "operator": ["A", "A", "A", "B", "B", "C", "C"],
            "run_date": [
                "2024-05-01",
                "2024-05-01",
                "2024-05-02",
                "2024-05-01",
                "2024-05-03",
                "2024-05-04",
                "2024-05-04",
            ],
        },
        geometry=[LineString([(4 + i * 0.01, 50), (4 + i * 0.01, 50.02 + i * 0.01)]) for i in range(7)],
        crs=4326,
    )
    routes.to_file(folder / "routes.geojson")
    return routes


def test_a_length_total_per_group_of_one_row_per_rows_with_definitions_written_with_equals(tmp_path):
    routes = _routes(tmp_path)
    request = (
        "Operator summary from routes.geojson, written to operators.csv with one row per operator:\n"
        "* runs = how many routes it has\n"
        "* active_days = number of distinct run_date values (two routes on one date = one day)\n"
        "* network_km = its routes' lengths added up, in km\n"
    )
    contract = derive_contract(request, ["operators.csv"], facts_of(tmp_path))
    (total,) = of_kind(contract, "measure_totals")
    assert (total.params["name"], total.params["group"], total.params["unit"]) == ("network_km", "operator", "km")
    assert total.sure
    (days,) = of_kind(contract, "distinct_count")
    assert (days.params["name"], days.params["column"], days.params["group"]) == ("active_days", "run_date", "operator")
    assert days.sure
    km = pd.Series([GEOD.geometry_length(g) / 1000 for g in routes.geometry])
    table = pd.DataFrame({"operator": routes.operator, "km": km, "d": routes.run_date, "r": routes.route_id})
    right = table.groupby("operator", as_index=False).agg(
        runs=("r", "size"), active_days=("d", "nunique"), network_km=("km", "sum")
    )
    right.to_csv(tmp_path / "operators.csv", index=False)
    assert all(ok for ok, _ in results(contract, tmp_path, "measure_totals"))
    assert all(ok for ok, _ in results(contract, tmp_path, "distinct_count"))
    mean = table.groupby("operator").km.mean().values
    right.assign(network_km=mean, active_days=right.runs).to_csv(tmp_path / "operators.csv", index=False)
    assert not any(ok for ok, _ in results(contract, tmp_path, "measure_totals"))
    assert not any(ok for ok, _ in results(contract, tmp_path, "distinct_count"))


def test_a_comparison_with_equals_on_an_input_column_still_selects(tmp_path):
    _routes(tmp_path)
    request = (
        "From routes.geojson, operators.csv with one row per operator:\n"
        "- network_km = the lengths added up, in km, of the routes with run_date = 2024-05-01\n"
    )
    contract = derive_contract(request, ["operators.csv"], facts_of(tmp_path))
    assert all(not r.sure for r in of_kind(contract, "measure_totals"))


def test_distinct_values_of_a_ticked_column_and_a_two_word_noun_in_nested_records(tmp_path):
    rows = [
        ("OAK ST", "12"),
        ("OAK ST", "12"),
        ("OAK ST", "14"),
        ("ELM RD", "3"),
        ("ELM RD", "5"),
        ("ELM RD", "7"),
        ("ASH LN", "1"),
        ("PINE AV", "2"),
    ]
    pd.DataFrame(rows, columns=["road", "house_no"]).assign(pid=range(8)).to_csv(tmp_path / "doors.csv", index=False)
    request = (
        'Summarise doors.csv as roads.json: a JSON object {"roads": <how many roads>, "busiest": [ ... ]}. '
        "busiest: the 2 roads with the most rows, as a list, one object per road.\n"
        "Each record has road, doors (its rows) and numbers (how many distinct values of `house_no` it has)."
    )
    contract = derive_contract(request, ["roads.json"], facts_of(tmp_path))
    (distinct,) = of_kind(contract, "distinct_count")
    assert (distinct.params["name"], distinct.params["column"], distinct.params["group"]) == (
        "numbers",
        "house_no",
        "road",
    )
    lengths = [r.params.get("length") for r in of_kind(contract, "list_value")]
    assert 2 in lengths and None in lengths
    right = {
        "roads": 4,
        "busiest": [{"road": "OAK ST", "doors": 3, "numbers": 2}, {"road": "ELM RD", "doors": 3, "numbers": 3}],
    }
    (tmp_path / "roads.json").write_text(json.dumps(right))
    assert all(ok for ok, _ in results(contract, tmp_path, "distinct_count"))
    assert all(ok for ok, _ in results(contract, tmp_path, "list_value"))
    wrong = dict(right, busiest=[dict(r, numbers=r["doors"]) for r in right["busiest"]])
    (tmp_path / "roads.json").write_text(json.dumps(wrong))
    assert not any(ok for ok, _ in results(contract, tmp_path, "distinct_count"))
    keyed = dict(right, busiest={r["road"]: r for r in right["busiest"]})  # an object keyed by road
    (tmp_path / "roads.json").write_text(json.dumps(keyed))
    assert not any(ok for ok, _ in results(contract, tmp_path, "list_value"))
    three = dict(right, busiest=right["busiest"] + [{"road": "ASH LN", "doors": 1, "numbers": 1}])
    (tmp_path / "roads.json").write_text(json.dumps(three))
    outcome = {
        r.params.get("length"): ok
        for r, (ok, _) in zip(of_kind(contract, "list_value"), results(contract, tmp_path, "list_value"))
    }
    assert outcome == {None: True, 2: False}


def test_a_ranked_top_n_keeps_exactly_n_rows_but_not_per_group_or_with_ties(tmp_path):
    lakes = _lakes(tmp_path)
    request = "From lakes.geojson, write big3.csv listing the three largest lakes (lake_id, lake_name), largest first."
    contract = derive_contract(request, ["big3.csv"], facts_of(tmp_path))
    (top,) = of_kind(contract, "top_rows")
    assert top.params["rows"] == 3 and top.sure
    order = pd.Series(_area_m2(lakes.geometry)).sort_values(ascending=False).index
    lakes.loc[order[:3], ["lake_id", "lake_name"]].to_csv(tmp_path / "big3.csv", index=False)
    assert all(ok for ok, _ in results(contract, tmp_path, "top_rows"))
    lakes.loc[order[:4], ["lake_id", "lake_name"]].to_csv(tmp_path / "big3.csv", index=False)
    assert not any(ok for ok, _ in results(contract, tmp_path, "top_rows"))
    for other in (
        "From lakes.geojson, write big3.csv with the top 2 lakes per kind by area.",
        "From lakes.geojson, write big3.csv with the 3 largest lakes (keep ties).",
        "From lakes.geojson, write big3.csv with at most the 3 largest lakes.",
    ):
        assert not of_kind(derive_contract(other, ["big3.csv"], facts_of(tmp_path)), "top_rows")


def test_rows_of_a_category_the_output_does_not_carry_are_checked_by_their_key(tmp_path):
    lakes = _lakes(tmp_path)
    request = "List the reservoirs in lakes.geojson, not the ponds, as reservoirs.csv with lake_id and lake_name."
    contract = derive_contract(request, ["reservoirs.csv"], facts_of(tmp_path))
    (kept,) = of_kind(contract, "rows_in_category")
    assert (kept.params["column"], kept.params["allowed"]) == ("kind", ["reservoir"])
    lakes[lakes.kind == "reservoir"][["lake_id", "lake_name"]].to_csv(tmp_path / "reservoirs.csv", index=False)
    assert all(ok for ok, _ in results(contract, tmp_path, "rows_in_category"))
    lakes[["lake_id", "lake_name"]].to_csv(tmp_path / "reservoirs.csv", index=False)
    ((ok, seen),) = results(contract, tmp_path, "rows_in_category")
    assert not ok and "pond" in seen


def test_a_count_of_intersecting_features_counts_partial_overlaps_and_keeps_zeros(tmp_path):
    zones = gpd.GeoDataFrame(
        {"zone_id": ["Z1", "Z2", "Z3"]},
        geometry=[box(0, 0, 0.01, 0.01), box(0.01, 0, 0.02, 0.01), box(0.05, 0, 0.06, 0.01)],
        crs=4326,
    )
    fields = gpd.GeoDataFrame(
        {"field_no": [1, 2, 3]},
        geometry=[box(0.002, 0.002, 0.004, 0.004), box(0.008, 0.003, 0.012, 0.005), box(0.013, 0.001, 0.014, 0.002)],
        crs=4326,
    )
    zones.to_file(tmp_path / "zones.geojson")
    fields.to_file(tmp_path / "fields.geojson")
    request = (
        "zones.geojson and fields.geojson -> zone_fields.csv, one line per zone:\n"
        "- zone_id\n"
        "- n_fields: the number of fields overlapping the zone (a field that only partially overlaps still counts)\n"
        "- note: anything\n"
        "Zones with no field get 0; they must not be dropped.\n"
    )
    contract = derive_contract(request, ["zone_fields.csv"], facts_of(tmp_path))
    (count,) = of_kind(contract, "counts_within")
    assert (count.params["name"], count.params["distance_m"], count.sure) == ("n_fields", 0.0, True)
    pd.DataFrame({"zone_id": ["Z1", "Z2", "Z3"], "n_fields": [2, 2, 0], "note": ""}).to_csv(
        tmp_path / "zone_fields.csv", index=False
    )
    assert all(ok for ok, _ in results(contract, tmp_path, "counts_within"))
    pd.DataFrame({"zone_id": ["Z1", "Z2", "Z3"], "n_fields": [1, 1, 0], "note": ""}).to_csv(
        tmp_path / "zone_fields.csv", index=False
    )  # each field counted where its centre lies
    assert not any(ok for ok, _ in results(contract, tmp_path, "counts_within"))


def test_every_existing_column_said_to_stay_binds_each_input_column(tmp_path):
    lakes = _lakes(tmp_path)
    request = (
        "Please add area_ha to lakes.geojson, each lake's area in hectares. The rest remains unchanged, "
        "including every original field. Output: lakes_ha.geojson"
    )
    contract = derive_contract(request, ["lakes_ha.geojson"], facts_of(tmp_path))
    names = {n for r in of_kind(contract, "columns") for n in r.params["names"]}
    assert {"lake_id", "lake_name", "kind", "area_ha"} <= names
    ha = [a / 1e4 for a in _area_m2(lakes.geometry)]
    lakes.assign(area_ha=ha).to_file(tmp_path / "lakes_ha.geojson")
    assert all(ok for ok, _ in results(contract, tmp_path, "columns"))
    lakes.drop(columns="kind").assign(area_ha=ha).to_file(tmp_path / "lakes_ha.geojson")
    assert not all(ok for ok, _ in results(contract, tmp_path, "columns"))


def test_a_semicolon_inside_a_description_does_not_end_the_column_list(tmp_path):
    _lakes(tmp_path)
    request = (
        "From lakes.geojson write kinds.csv, one row per kind, with kind, lakes (count; ponds too) "
        "and water_m2 (their area in square metres)."
    )
    contract = derive_contract(request, ["kinds.csv"], facts_of(tmp_path))
    names = [n for r in of_kind(contract, "columns") for n in r.params["names"]]
    assert "water_m2" in names


def test_a_count_of_one_geometry_family_per_group_counts_only_those_features(tmp_path):
    parks = gpd.GeoDataFrame(
        {"park_code": ["A", "A", "A", "B", "B", "C"], "label": ["gate", "path", "lawn", "gate", "gate", "pond"]},
        geometry=[
            Point(1, 1),
            LineString([(1, 1), (1.01, 1.01)]),
            box(1, 1, 1.01, 1.01),
            Point(2, 2),
            Point(2.001, 2.001),
            box(3, 3, 3.01, 3.01),
        ],
        crs=4326,
    )
    parks.to_file(tmp_path / "park_things.geojson")
    request = (
        "park_things.geojson holds gates, paths and lawns of several parks. Make park_counts.csv with one row "
        "per park_code:\n- park_code\n- gates: the number of points of the park\n"
        "- paths = how many line features it has\n"
    )
    contract = derive_contract(request, ["park_counts.csv"], facts_of(tmp_path))
    counts = {r.params["name"]: r for r in of_kind(contract, "type_counts")}
    assert counts["gates"].params["family"] == "Point" and counts["paths"].params["family"] == "LineString"
    assert counts["gates"].params["group"] == "park_code" and counts["gates"].sure
    right = pd.DataFrame({"park_code": ["A", "B", "C"], "gates": [1, 2, 0], "paths": [1, 0, 0]})
    right.to_csv(tmp_path / "park_counts.csv", index=False)
    assert all(ok for ok, _ in results(contract, tmp_path, "type_counts"))
    right.assign(gates=[3, 2, 1]).to_csv(tmp_path / "park_counts.csv", index=False)  # every feature counted
    outcome = {
        r.params["name"]: ok
        for r, (ok, _) in zip(of_kind(contract, "type_counts"), results(contract, tmp_path, "type_counts"))
    }
    assert outcome == {"gates": False, "paths": True}


def test_ranked_selections_in_other_words_keep_their_number(tmp_path):
    _lakes(tmp_path)
    for said, n in (
        ("write top.csv with the top 4 lakes by area", 4),
        ("write top.csv: the five biggest lakes, biggest first", 5),
        ("top.csv should hold the 3 lakes with the largest area", 3),
        ("put the top-2 lakes by size into top.csv", 2),
    ):
        contract = derive_contract(f"From lakes.geojson, {said}.", ["top.csv"], facts_of(tmp_path))
        assert [r.params["rows"] for r in of_kind(contract, "top_rows")] == [n], said
    for said in (
        "write top.csv with every lake and flag the 3 largest",
        "write top.csv with the 3 largest lakes of each kind",
        "write top.csv with the top 20 lakes",  # more than the file holds
    ):
        assert not of_kind(derive_contract(f"From lakes.geojson, {said}.", ["top.csv"], facts_of(tmp_path)), "top_rows")
    # the ranked things are not the rows: where the rows come from, not how many there are
    said = "From lakes.geojson, write boats.csv listing the boats moored on the 3 largest reservoirs."
    assert all(not r.sure for r in of_kind(derive_contract(said, ["boats.csv"], facts_of(tmp_path)), "top_rows"))


def test_column_lists_written_as_name_and_definition_lines(tmp_path):
    _lakes(tmp_path)
    for request in (
        "From lakes.geojson write sizes.csv with these columns:\nlake_id – the lake's id\n"
        "area_ha – its area in hectares\nlake_name – as given",
        "From lakes.geojson write sizes.csv.\nColumns:\nlake_id: the id\narea_ha: area in hectares\n"
        "lake_name: the name",
        "Read lakes.geojson. Output sizes.csv:\n  lake_id -- id\n  area_ha -- hectares of water\n  lake_name -- name",
    ):
        contract = derive_contract(request, ["sizes.csv"], facts_of(tmp_path))
        names = [n for r in of_kind(contract, "columns") for n in r.params["names"]]
        assert names[:3] == ["lake_id", "area_ha", "lake_name"], request
        assert [r.params["unit"] for r in of_kind(contract, "measure_units")] == ["ha"], request


def test_a_key_of_each_record_drawn_as_a_list_holds_a_list_in_every_record(tmp_path):
    _lakes(tmp_path)
    request = (
        'From lakes.geojson write near.json as [{"lake_id": "L0", "neighbours": ["L1", ...]}, ...]: '
        "one record per lake with the ids of the lakes next to it."
    )
    contract = derive_contract(request, ["near.json"], facts_of(tmp_path))
    assert [r.params["name"] for r in of_kind(contract, "list_value")] == ["neighbours"]
    right = [{"lake_id": f"L{i}", "neighbours": [f"L{j}" for j in (i - 1, i + 1) if 0 <= j < 6]} for i in range(6)]
    (tmp_path / "near.json").write_text(json.dumps(right))
    assert all(ok for ok, _ in results(contract, tmp_path, "list_value"))
    joined = [dict(r, neighbours=",".join(r["neighbours"])) for r in right]  # a text, not a list
    (tmp_path / "near.json").write_text(json.dumps(joined))
    assert not any(ok for ok, _ in results(contract, tmp_path, "list_value"))


def test_a_last_row_labelled_in_a_column_is_there(tmp_path):
    lakes = _lakes(tmp_path)
    for request in (
        "From lakes.geojson write by_kind.csv with kind and lakes (how many), one row per kind, then a final row "
        'with kind = "ALL" for every lake.',
        "From lakes.geojson write by_kind.csv with kind and lakes (how many) per kind, plus a totals row labelled "
        "'ALL' in kind.",
    ):
        contract = derive_contract(request, ["by_kind.csv"], facts_of(tmp_path))
        (row,) = of_kind(contract, "labelled_row")
        assert (row.params["name"], row.params["label"], row.sure) == ("kind", "ALL", True)
        table = lakes.groupby("kind", as_index=False).size().rename(columns={"size": "lakes"})
        table.to_csv(tmp_path / "by_kind.csv", index=False)
        assert not any(ok for ok, _ in results(contract, tmp_path, "labelled_row"))
        pd.concat([table, pd.DataFrame({"kind": ["ALL"], "lakes": [6]})]).to_csv(tmp_path / "by_kind.csv", index=False)
        assert all(ok for ok, _ in results(contract, tmp_path, "labelled_row"))


def test_a_measure_named_with_an_imperial_unit_binds_it(tmp_path):
    lakes = _lakes(tmp_path)
    request = "lakes.geojson -> lake_acres.geojson with lake_id and area_acres for each lake."
    contract = derive_contract(request, ["lake_acres.geojson"], facts_of(tmp_path))
    (unit,) = of_kind(contract, "measure_units")
    assert (unit.params["name"], unit.params["unit"]) == ("area_acres", "acre")
    acres = [a / ACRE for a in _area_m2(lakes.geometry)]
    lakes[["lake_id", "geometry"]].assign(area_acres=acres).to_file(tmp_path / "lake_acres.geojson")
    assert all(ok for ok, _ in results(contract, tmp_path, "measure_units"))
    lakes[["lake_id", "geometry"]].assign(area_acres=[a * ACRE for a in acres]).to_file(tmp_path / "lake_acres.geojson")
    assert not any(ok for ok, _ in results(contract, tmp_path, "measure_units"))


def test_a_top_n_by_area_keeps_the_largest_not_any_n(tmp_path):
    lakes = _lakes(tmp_path)
    request = "4 biggest lakes by surface area from lakes.geojson -> big4.geojson (lake_id, lake_name), lon/lat."
    contract = derive_contract(request, ["big4.geojson"], facts_of(tmp_path))
    (top,) = of_kind(contract, "top_rows")
    assert (top.params["rows"], top.params["measure"], top.params["largest"]) == (4, "area", True)
    order = pd.Series(_area_m2(lakes.geometry)).sort_values(ascending=False).index
    lakes.loc[order[:4]].to_file(tmp_path / "big4.geojson")
    assert all(ok for ok, _ in results(contract, tmp_path, "top_rows"))
    lakes.loc[order[-4:]].to_file(tmp_path / "big4.geojson")  # the four smallest
    ((ok, seen),) = results(contract, tmp_path, "top_rows")
    assert not ok and "largest" in seen


def test_a_ticket_written_with_dot_leaders_reads_its_labels(tmp_path):
    _routes(tmp_path)
    request = (
        "[OPS-7] Route lengths\n"
        "Input ........ routes.geojson\n"
        "Output ....... route_km.csv\n"
        "Columns ...... route_id, operator, km\n"
        "km ........... the route's length in kilometres\n"
        "Order ........ longest route first\n"
    )
    contract = derive_contract(request, ["route_km.csv"], facts_of(tmp_path))
    assert [n for r in of_kind(contract, "columns") for n in r.params["names"]][:3] == ["route_id", "operator", "km"]
    assert [(r.params["name"], r.params["unit"]) for r in of_kind(contract, "measure_units")] == [("km", "km")]
    assert [(r.params["name"], r.params["descending"]) for r in of_kind(contract, "sorted")] == [("km", True)]


def test_a_total_area_per_group_in_acres(tmp_path):
    lakes = _lakes(tmp_path)
    request = "From lakes.geojson, water.csv with kind and acres: the total area of its lakes per kind, in acres."
    contract = derive_contract(request, ["water.csv"], facts_of(tmp_path))
    (total,) = of_kind(contract, "measure_totals")
    assert (total.params["name"], total.params["unit"], total.params["group"]) == ("acres", "acre", "kind")
    table = pd.DataFrame({"kind": lakes.kind, "acres": [a / ACRE for a in _area_m2(lakes.geometry)]})
    right = table.groupby("kind", as_index=False).acres.sum()
    right.to_csv(tmp_path / "water.csv", index=False)
    assert all(ok for ok, _ in results(contract, tmp_path, "measure_totals"))
    right.assign(acres=right.acres * ACRE / 1e4).to_csv(tmp_path / "water.csv", index=False)  # hectares
    assert not any(ok for ok, _ in results(contract, tmp_path, "measure_totals"))


def test_an_order_said_of_a_records_nested_list_does_not_gate_an_order_across_records(tmp_path):
    """A JSON list of records whose drawn shape puts `distance_m` in each record's nested list: "nearest
    first" orders each list, so the flattened rows are not sorted across records. The reading is
    shown, not gating; a key drawn at the record's own level still sorts the records."""
    gpd.GeoDataFrame(
        {"site_id": [1, 2, 3]}, geometry=[Point(16.30, 48.20), Point(16.31, 48.20), Point(16.40, 48.21)], crs=4326
    ).to_file(tmp_path / "sites.geojson")
    request = (
        "For each site in sites.geojson list the two nearest other sites. Write near.json as a JSON list, one "
        'element per site, shaped like {"site_id": 1, "near": [{"site_id": 2, "distance_m": 760.5}, ...]}, '
        "with the neighbours nearest first."
    )
    contract = derive_contract(request, ["near.json"], facts_of(tmp_path))
    assert [(r.params["name"], r.sure) for r in of_kind(contract, "sorted")] == [("distance_m", False)]
    near = [
        {"site_id": 1, "near": [{"site_id": 2, "distance_m": 743.0}, {"site_id": 3, "distance_m": 7458.0}]},
        {"site_id": 2, "near": [{"site_id": 1, "distance_m": 743.0}, {"site_id": 3, "distance_m": 6725.0}]},
        {"site_id": 3, "near": [{"site_id": 2, "distance_m": 6725.0}, {"site_id": 1, "distance_m": 7458.0}]},
    ]
    (tmp_path / "near.json").write_text(json.dumps(near))
    assert all(
        r.sure is False for r in contract.requirements if not all(ok for ok, _ in results(contract, tmp_path, r.kind))
    )
    flat = request.replace(
        '{"site_id": 1, "near": [{"site_id": 2, "distance_m": 760.5}, ...]}', '{"site_id": 1, "distance_m": 760.5}'
    )
    flat = flat.replace("list the two nearest other sites", "give the distance to its nearest other site")
    flat = flat.replace("with the neighbours nearest first", "with the sites nearest first")
    contract = derive_contract(flat, ["near.json"], facts_of(tmp_path))
    assert [(r.params["name"], r.sure) for r in of_kind(contract, "sorted")] == [("distance_m", True)]
