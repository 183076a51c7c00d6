"""A distance in metres applied to degrees puts a lon/lat file's coordinates beyond any place on
Earth: the placement and buffer checks say so, in words a repair can act on, instead of failing to
compare or calling the data near its inputs."""

from __future__ import annotations

import geopandas as gpd
from shapely.geometry import Point

from geoagent_ext.contract import derive_contract

from .test_checks import check, input_facts

REQUEST = (
    "Draw a 400 m buffer around every stop in stops.geojson and save it as catchments.geojson, one polygon per stop."
)


def test_a_buffer_drawn_in_degrees_fails_placement_and_distance_with_the_cause(tmp_path):
    stops = gpd.GeoDataFrame(
        {"stop_id": ["a", "b", "c"]}, geometry=[Point(139.766 + i / 1000, 35.681) for i in range(3)], crs=4326
    )
    stops.to_file(tmp_path / "stops.geojson")
    contract = derive_contract(REQUEST, ["catchments.geojson"], input_facts(tmp_path))
    kinds = {r.kind: r.text for r in contract.requirements}
    assert {"located", "buffer_distance"} <= set(kinds), kinds

    metric = stops.to_crs(stops.estimate_utm_crs())
    right = metric.assign(geometry=metric.buffer(400)).to_crs(4326)
    right.to_file(tmp_path / "catchments.geojson")
    results = check(contract, tmp_path)
    assert results[kinds["located"]][0] and results[kinds["buffer_distance"]][0], results

    stops.assign(geometry=stops.buffer(400)).to_file(tmp_path / "catchments.geojson")  # 400 degrees
    results = check(contract, tmp_path)
    for kind in ("located", "buffer_distance"):
        passed, seen = results[kinds[kind]]
        assert not passed and "beyond any place on Earth" in seen, (kind, seen)
