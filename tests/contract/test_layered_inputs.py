"""A file of several layers: the contract knows where its data lies, whichever layer is used."""

from __future__ import annotations

import geopandas as gpd
from shapely.geometry import Point, box

from geoagent_ext.contract import check_payload, derive_contract

from .test_checks import HELPER, in_folder, input_facts


def test_a_deliverable_from_one_layer_of_several_must_lie_where_the_file_does(tmp_path):
    parks = gpd.GeoDataFrame({"park_id": [1, 2]}, geometry=[box(0, 0, 100, 100), box(200, 0, 300, 100)], crs=32633)
    parks = parks.set_geometry(parks.translate(600_000, 5_340_000))
    parks.to_file(tmp_path / "city.gpkg", layer="parks")
    stops = gpd.GeoDataFrame({"stop": ["a"]}, geometry=[Point(16.37, 48.21)], crs=4326)
    stops.to_file(tmp_path / "city.gpkg", layer="stops")
    facts = input_facts(tmp_path)
    w, s, e, n = facts["city.gpkg"]["bounds_wgs84"]
    assert 16.2 < w < e < 16.5 and 48.1 < s < n < 48.3
    contract = derive_contract(
        "The parks layer of city.gpkg is in UTM. I just want plain lat/lon: save it as parks.geojson.",
        ["parks.geojson"],
        facts,
    )
    located = [r for r in contract.requirements if r.kind == "located"]
    assert located, contract.requirements

    def located_passes(frame):
        frame.to_file(tmp_path / "parks.geojson")
        answer = in_folder(tmp_path, HELPER.check_contract, check_payload(contract))
        return next(a["passed"] for a in answer if a["id"] == located[0].id)

    right = parks.to_crs(4326)
    assert located_passes(right)
    swapped = right.set_geometry(right.geometry.map(lambda g: type(g)([(y, x) for x, y in g.exterior.coords])))
    assert not located_passes(swapped)


def test_input_facts_give_each_category_column_its_values(tmp_path):
    frame = gpd.GeoDataFrame(
        {"subtype": ["county", "locality", "county", None], "code": ["a1", "b2", "c3", "d4"]},
        geometry=[Point(0, i) for i in range(4)],
        crs=4326,
    )
    frame.to_file(tmp_path / "admin.geojson")
    facts = input_facts(tmp_path)["admin.geojson"]
    assert facts["categories"]["subtype"] == ["county", "locality"]
    assert "county" in facts["values"]


def test_rows_in_the_input_order_pass_and_reordered_or_foreign_rows_fail(tmp_path):
    stations = gpd.GeoDataFrame(
        {"station_id": [3, 1, 2], "name": ["c", "a", "b"]}, geometry=[Point(16.3 + i / 100, 48.2) for i in range(3)]
    ).set_crs(4326)
    stations.to_file(tmp_path / "st.geojson")
    contract = derive_contract(
        "Write st.geojson to out.geojson, with all its columns, in the same order.",
        ["out.geojson"],
        input_facts(tmp_path),
    )
    order = next(r for r in contract.requirements if r.kind == "input_order")

    def passes(frame):
        frame.to_file(tmp_path / "out.geojson")
        answer = in_folder(tmp_path, HELPER.check_contract, check_payload(contract))
        return next(a for a in answer if a["id"] == order.id)["passed"]

    assert passes(stations)
    assert passes(stations.iloc[[0, 2]])  # a selection keeps the order
    assert not passes(stations.sort_values("name"))
    foreign = stations.copy()
    foreign.loc[1, "station_id"] = 9
    assert not passes(foreign)
