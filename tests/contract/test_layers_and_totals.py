"""An input's layer the request names is the one its facts and checks read; a measure totalled per
group (or over every feature) is checked against the summed geodesic measures of the input."""

from __future__ import annotations

import json

import geopandas as gpd
import numpy as np
import pandas as pd
import pytest
from pyproj import Geod
from shapely.geometry import LineString, Point, box

from geoagent_ext.contract import check_payload, derive_contract
from geoagent_ext.contract.mend import mend_code

from .test_checks import HELPER, PROBES, in_folder

GEOD = Geod(ellps="WGS84")


def facts_of(folder, names):
    return in_folder(folder, PROBES["input_facts"], sorted(names))


def checked(contract, folder):
    """{requirement kind (and its name, if any): (passed, observed)} of the contract's gating requirements."""
    gating = {
        r.id: (r.kind, r.params["name"]) if "name" in r.params else r.kind for r in contract.requirements if r.checkable
    }
    results = in_folder(folder, HELPER.check_contract, check_payload(contract))
    return {gating[r["id"]]: (r["passed"], r["observed"]) for r in results if r["id"] in gating}


def _city(folder):
    """city.gpkg: parcels (polygons, first), roads (lines in UTM 47N), markets (points)."""
    parcels = gpd.GeoDataFrame(
        {"parcel_id": ["P1", "P2"], "owner": ["state", "private"]},
        geometry=[box(100.50, 13.70, 100.51, 13.71), box(100.52, 13.70, 100.53, 13.71)],
        crs=4326,
    )
    lines = [LineString([(100.50 + i * 0.01, 13.70), (100.50 + i * 0.01, 13.72 + i * 0.003)]) for i in range(6)]
    roads = gpd.GeoDataFrame(
        {
            "road_id": [f"R{i}" for i in range(6)],
            "highway": ["primary", "primary", "secondary", "service", "service", "secondary"],
        },
        geometry=lines,
        crs=4326,
    ).to_crs(32647)
    markets = gpd.GeoDataFrame(
        {"market_id": ["M1", "M2", "M3"], "kind": ["night", "fresh", "night"]},
        geometry=[Point(100.50, 13.70), Point(100.51, 13.71), Point(100.52, 13.72)],
        crs=4326,
    )
    path = folder / "city.gpkg"
    parcels.to_file(path, layer="parcels")
    roads.to_file(path, layer="roads")
    markets.to_file(path, layer="markets")
    return roads


def _lengths_m(frame):
    return np.array([GEOD.geometry_length(g) for g in frame.geometry.to_crs(4326)])


def test_facts_of_a_file_of_several_layers_hold_each_layer_and_keep_the_first_at_the_top(tmp_path):
    _city(tmp_path)
    facts = facts_of(tmp_path, ["city.gpkg"])["city.gpkg"]
    assert facts["layers"] == 3 and facts["rows"] is None
    assert facts["columns"] == ["parcel_id", "owner"]  # the first layer's, as before
    roads = facts["layer_facts"]["roads"]
    assert roads["rows"] == 6 and roads["columns"] == ["road_id", "highway"]
    assert roads["geometry_type"] == "LineString" and roads["epsg"] == 32647
    assert facts["layer_facts"]["markets"]["categories"]["kind"] == ["fresh", "night"]


def test_the_named_layer_is_read_by_the_derivation_and_by_every_check_of_the_input(tmp_path):
    roads = _city(tmp_path)
    facts = facts_of(tmp_path, ["city.gpkg"])
    request = (
        'Source: city.gpkg, layer "roads". Report the total road length per highway class in kilometres. '
        "Output: road_km.csv with columns highway and length_km."
    )
    contract = derive_contract(request, ["road_km.csv"], facts)
    reading_input = [r for r in contract.requirements if r.params.get("input") == "city.gpkg"]
    assert {r.kind for r in reading_input} >= {"measure_units", "values_from_input", "measure_totals"}
    assert all(r.params["input_layers"] == {"city.gpkg": "roads"} for r in reading_input)
    assert all("(layer `roads`)" in r.text for r in reading_input)
    # checked on the roads layer: the first layer (parcels) has no `highway` and no lines
    roads["length_m"] = _lengths_m(roads)
    out = roads.groupby("highway", as_index=False).length_m.sum()
    out["length_km"] = out.pop("length_m") / 1000
    out.to_csv(tmp_path / "road_km.csv", index=False)
    seen = checked(contract, tmp_path)
    assert all(passed for passed, _ in seen.values()), seen


def test_a_request_that_names_no_layer_derives_what_it_did_before(tmp_path):
    _city(tmp_path)
    facts = facts_of(tmp_path, ["city.gpkg"])
    before = {p: {k: v for k, v in f.items() if k != "layer_facts"} for p, f in facts.items()}
    request = "From city.gpkg write owners.csv with parcel_id and owner for every parcel."
    assert derive_contract(request, ["owners.csv"], facts) == derive_contract(request, ["owners.csv"], before)
    both = 'Compare the "roads" and "markets" layers of city.gpkg: write near.csv with road_id and market_id.'
    assert not any(r.params.get("input_layers") for r in derive_contract(both, ["near.csv"], facts).requirements)


def test_values_from_the_named_layer_pass_and_the_first_layer_is_not_read(tmp_path):
    _city(tmp_path)
    facts = facts_of(tmp_path, ["city.gpkg"])
    request = 'From the "markets" layer of city.gpkg, write markets.csv with market_id and kind.'
    contract = derive_contract(request, ["markets.csv"], facts)
    assert any(r.kind == "values_from_input" and r.params.get("input_layers") for r in contract.requirements)
    pd.DataFrame({"market_id": ["M1", "M2", "M3"], "kind": ["night", "fresh", "night"]}).to_csv(
        tmp_path / "markets.csv", index=False
    )
    assert all(passed for passed, _ in checked(contract, tmp_path).values())
    pd.DataFrame({"market_id": ["P1", "M2", "M3"], "kind": ["night", "fresh", "night"]}).to_csv(
        tmp_path / "markets.csv", index=False
    )
    assert not checked(contract, tmp_path)[("values_from_input", "market_id")][0]


@pytest.mark.parametrize(
    ("mistake", "passes"),
    [(None, True), ("metres_as_km", False), ("planar_degrees", False), ("service_left_out", False)],
)
def test_a_total_per_group_is_the_sum_of_its_features(tmp_path, mistake, passes):
    roads = _city(tmp_path)
    facts = facts_of(tmp_path, ["city.gpkg"])
    request = (
        'Source: city.gpkg, layer "roads". Report the total road length per highway class in kilometres. '
        "Output: road_km.csv with columns highway and length_km."
    )
    contract = derive_contract(request, ["road_km.csv"], facts)
    totals = [r for r in contract.requirements if r.kind == "measure_totals"]
    assert totals and totals[0].sure and totals[0].params["group"] == "highway"
    if mistake == "planar_degrees":
        roads["length_m"] = roads.geometry.to_crs(4326).length.to_numpy() * 1000
    else:
        roads["length_m"] = _lengths_m(roads)
    if mistake == "service_left_out":
        roads.loc[roads.index[3], "length_m"] = 0.0  # one of the class's features not counted
    out = roads.groupby("highway", as_index=False).length_m.sum()
    out["length_km"] = out.pop("length_m") / (1 if mistake == "metres_as_km" else 1000)
    out.to_csv(tmp_path / "road_km.csv", index=False)
    passed, observed = checked(contract, tmp_path)["measure_totals", "length_km"]
    assert passed is passes, observed


def test_overlapping_features_may_be_counted_once(tmp_path):
    parks = gpd.GeoDataFrame(
        {"park_id": ["a", "b"], "park_class": ["park", "park"]},
        geometry=[box(-74.0, 40.70, -73.99, 40.71), box(-73.995, 40.70, -73.985, 40.71)],
        crs=4326,
    )
    parks.to_file(tmp_path / "parks.geojson")
    facts = facts_of(tmp_path, ["parks.geojson"])
    contract = derive_contract(
        "How much park land per park_class in parks.geojson? parks_ha.csv with park_class and hectares.",
        ["parks_ha.csv"],
        facts,
    )
    union = abs(GEOD.geometry_area_perimeter(parks.union_all())[0]) / 1e4
    pd.DataFrame({"park_class": ["park"], "hectares": [union]}).to_csv(tmp_path / "parks_ha.csv", index=False)
    assert checked(contract, tmp_path)["measure_totals", "hectares"][0]


@pytest.mark.parametrize(
    "request_words",
    [
        "the total road length per highway class in kilometres, leaving out the service roads",
        "the total road length per highway class in kilometres, only for roads longer than 1 km",
        "the total length of night roads per highway class in kilometres",
        "the average road length per highway class in kilometres",
        "the longest road's length per highway class in kilometres, with the total number of roads",
        "the total road length per highway class in kilometres, roads shorter than 100 m left out",
    ],
)
def test_a_total_over_selected_features_is_not_a_sure_requirement(tmp_path, request_words):
    _city(tmp_path)
    facts = facts_of(tmp_path, ["city.gpkg"])
    facts["city.gpkg"]["layer_facts"]["roads"]["categories"]["surface"] = ["night", "day"]
    request = f'Source: city.gpkg, layer "roads". Report {request_words}. Output: road_km.csv with highway, length_km.'
    contract = derive_contract(request, ["road_km.csv"], facts)
    assert not [r for r in contract.requirements if r.kind == "measure_totals" and r.sure]


def test_a_summary_total_is_the_measure_of_every_feature(tmp_path):
    buildings = gpd.GeoDataFrame(
        {"feature_id": [1, 2, 3]},
        geometry=[box(139.70 + i * 0.001, 35.68, 139.7005 + i * 0.001, 35.6805) for i in range(3)],
        crs=4326,
    )
    buildings.to_file(tmp_path / "buildings.geojson")
    facts = facts_of(tmp_path, ["buildings.geojson"])
    request = (
        "Summary of buildings.geojson as a single JSON object in summary.json:\n"
        "  - buildings: number of buildings\n"
        "  - total_footprint_m2: total footprint area in m²"
    )
    contract = derive_contract(request, ["summary.json"], facts)
    assert [r.sure for r in contract.requirements if r.kind == "measure_totals"] == [True]
    total = sum(abs(GEOD.geometry_area_perimeter(g)[0]) for g in buildings.geometry)
    for value, passes in ((total, True), (float(buildings.geometry.area.sum()), False)):
        (tmp_path / "summary.json").write_text(json.dumps({"buildings": 3, "total_footprint_m2": value}))
        assert checked(contract, tmp_path)["measure_totals", "total_footprint_m2"][0] is passes


def test_a_measure_in_the_records_a_request_sketches_is_each_features(tmp_path):
    districts = gpd.GeoDataFrame(
        {"code": ["A", "B"]}, geometry=[box(16.3, 48.2, 16.32, 48.21), box(16.33, 48.2, 16.34, 48.22)], crs=4326
    )
    districts.to_file(tmp_path / "districts.geojson")
    facts = facts_of(tmp_path, ["districts.geojson"])
    sketched = 'From districts.geojson write stats.json shaped like {"districts": [{"code": .., "area_km2": ..}, ...]}.'
    plain = "From districts.geojson write stats.json with code and area_km2."
    sure = {
        words: [r.sure for r in derive_contract(words, ["stats.json"], facts).requirements if r.kind == "measure_units"]
        for words in (sketched, plain)
    }
    assert sure == {sketched: [True], plain: [False]}


def test_a_mend_reads_the_named_layer(tmp_path):
    _city(tmp_path)
    facts = facts_of(tmp_path, ["city.gpkg"])
    request = (
        'Source: city.gpkg, layer "roads". Write road_lengths.csv with road_id, highway and length_km, '
        "the length of each road."
    )
    contract = derive_contract(request, ["road_lengths.csv"], facts)
    failed = [r for r in contract.requirements if r.kind == "measure_units"]
    assert failed and failed[0].params["input_layers"] == {"city.gpkg": "roads"}
    code, _ = mend_code(contract, "road_lengths.csv", failed)
    assert "gpd.read_file('city.gpkg', layer='roads')" in code and "gpd.read_file('city.gpkg')" not in code


def test_a_requirement_reading_one_file_twice_is_left_on_its_first_layer():
    from geoagent_ext.contract.input_layers import on_layers
    from geoagent_ext.contract.model import Contract, Requirement

    two = Requirement(
        id="r1",
        output="counts.csv",
        text="counts",
        kind="point_counts",
        params={"name": "n", "points": "city.gpkg", "polygons": "city.gpkg"},
    )
    one = Requirement(
        id="r2", output="counts.csv", text="ids", kind="values_from_input", params={"name": "id", "input": "city.gpkg"}
    )
    on_layers(Contract(requirements=[two, one]), {"city.gpkg": "markets"})
    assert "input_layers" not in two.params and one.params["input_layers"] == {"city.gpkg": "markets"}
