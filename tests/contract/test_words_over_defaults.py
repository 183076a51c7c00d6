"""Where the request's own words contradict a requirement the rules would add (a standard's mend, a
row per input feature, the top-level JSON shape read from a member's value), the requirement does
not gate: the right answer by those words must pass. Checked on real files."""

from __future__ import annotations

import json

import geopandas as gpd
import pandas as pd
from shapely.geometry import LineString, Point

from geoagent_ext.contract import derive_contract

from .test_checks import check, input_facts


def _gating(contract, kind):
    return [r for r in contract.requirements if r.kind == kind and r.sure]


def test_lines_kept_as_they_are_are_not_cut_at_the_antimeridian(tmp_path):
    lines = gpd.GeoDataFrame(
        {"line_id": ["a", "b"]},
        geometry=[LineString([(179.5, -17.0), (-179.5, -17.2)]), LineString([(178.0, -16.0), (178.5, -16.1)])],
        crs=4326,
    )
    lines.to_file(tmp_path / "tracks.geojson")
    facts = input_facts(tmp_path)
    assert facts["tracks.geojson"]["defects"].get("antimeridian")
    kept = (
        "From tracks.geojson write long_tracks.geojson with line_id and km, the geometries untouched (some cross 180°)."
    )
    contract = derive_contract(kept, ["long_tracks.geojson"], facts)
    assert not _gating(contract, "antimeridian_cut"), [r.text for r in contract.requirements]
    lines.assign(km=[100.0, 50.0]).to_file(tmp_path / "long_tracks.geojson")
    failed = {k: v for k, v in check(contract, tmp_path).items() if not v[0]}
    assert not failed, failed
    mended = "From tracks.geojson write long_tracks.geojson with line_id and km; they must display right in web maps."
    assert _gating(derive_contract(mended, ["long_tracks.geojson"], facts), "antimeridian_cut")


def _points(folder):
    gpd.GeoDataFrame(
        {"site_id": [f"s{i}" for i in range(4)]}, geometry=[Point(18.4 + i / 100, -33.9) for i in range(4)], crs=4326
    ).to_file(folder / "sites.geojson")
    gpd.GeoDataFrame(
        {"depot_id": [f"d{i}" for i in range(3)]},
        geometry=[Point(18.45 + i / 50, -33.95) for i in range(3)],
        crs=4326,
    ).to_file(folder / "depots.geojson")
    return input_facts(folder)


def test_each_of_n_features_with_several_rows_each_is_not_one_row_per_feature(tmp_path):
    facts = _points(tmp_path)
    for request in (
        "For each of the 4 sites in sites.geojson list the two nearest depots from depots.geojson: "
        "site_depots.csv, 2 rows per site, with site_id, depot_id, rank.",
        "For each of the 4 sites in sites.geojson give the two nearest depots of depots.geojson as "
        "site_depots.csv (8 rows) with site_id, depot_id, rank.",
    ):
        contract = derive_contract(request, ["site_depots.csv"], facts)
        assert not _gating(contract, "rows_as_input"), (request, [r.text for r in contract.requirements])
    plain = "For each of the 4 sites in sites.geojson write site_depots.csv with site_id and the nearest depot_id."
    assert _gating(derive_contract(plain, ["site_depots.csv"], facts), "rows_as_input")


def test_a_json_array_said_of_a_member_is_not_the_top_level(tmp_path):
    request = (
        "Write summary.json as one JSON object with two members. `total` is the number of sites. "
        '"sites" = a JSON array with one object per site, each {"site_id": ..., "x": ...}.'
    )
    contract = derive_contract(request, ["summary.json"], {})
    shapes = [r.params["shape"] for r in _gating(contract, "json_shape")]
    assert shapes == ["object"], [r.text for r in contract.requirements]
    (tmp_path / "summary.json").write_text(json.dumps({"total": 2, "sites": [{"site_id": "a", "x": 1}]}))
    failed = {k: v for k, v in check(contract, tmp_path).items() if not v[0]}
    assert not failed, failed


def test_a_list_and_an_object_both_said_of_the_top_level_leave_the_shape_unchecked():
    request = "Write out.json as a single JSON object. It is a JSON list of records, one per site, with site_id and x."
    contract = derive_contract(request, ["out.json"], {})
    assert not _gating(contract, "json_shape"), [r.text for r in contract.requirements]
    assert pd.Series([r.kind for r in contract.requirements]).isin(["json_shape"]).any()


def test_a_nearest_feature_capped_by_distance_does_not_gate_and_its_blank_distance_is_allowed(tmp_path):
    facts = _points(tmp_path)
    request = (
        "For every site in sites.geojson find the nearest depot of depots.geojson, but only if it is 2 km away "
        "or less; when the nearest is further than that, the site keeps its row with depot_id = none and an "
        "empty distance_m. Write site_depot.csv with site_id, depot_id, distance_m."
    )
    contract = derive_contract(request, ["site_depot.csv"], facts)
    assert not [r for r in contract.requirements if r.kind.startswith("nearest") and r.sure]
    [distance] = [r for r in contract.requirements if r.kind == "non_negative" and r.sure]
    pd.DataFrame({"site_id": ["s0", "s1"], "depot_id": ["d0", "none"], "distance_m": [900.0, None]}).to_csv(
        tmp_path / "site_depot.csv", index=False
    )
    assert check(contract, tmp_path)[distance.text][0]
    uncapped = request.replace("but only if it is 2 km away or less; when the nearest is further than that, ", "")
    assert [
        r for r in derive_contract(uncapped, ["site_depot.csv"], facts).requirements if r.kind.startswith("nearest")
    ]


def test_an_object_of_records_keyed_by_name_is_read_as_a_table(tmp_path):
    request = (
        "Write shares.json: one JSON object keyed by site name, each value an object with `visits` and "
        "`share_pct` (its percentage of the total; the values add up to 100)."
    )
    contract = derive_contract(request, ["shares.json"], {})
    [total] = [r for r in contract.requirements if r.kind == "column_total"]
    right = {"North": {"visits": 3, "share_pct": 75.0}, "South": {"visits": 1, "share_pct": 25.0}}
    (tmp_path / "shares.json").write_text(json.dumps(right))
    assert check(contract, tmp_path)[total.text][0]
    fractions = {k: {**v, "share_pct": v["share_pct"] / 100} for k, v in right.items()}
    (tmp_path / "shares.json").write_text(json.dumps(fractions))
    passed, observed = check(contract, tmp_path)[total.text]
    assert not passed and "adds up to 1" in observed, observed


def _carried(contract, name):
    return [r for r in contract.requirements if r.kind == "values_from_input" and r.params.get("name") == name]


def test_a_placeholder_or_blank_the_request_names_is_allowed_beside_the_inputs_values(tmp_path):
    facts = _points(tmp_path)
    base = (
        "For every site in sites.geojson write nearest.csv with site_id, depot_id and dist_m: "
        "the nearest depot of depots.geojson within 1 km"
    )
    right = pd.DataFrame(
        {"site_id": ["s0", "s1", "s2", "s3"], "depot_id": ["d0", "d1", "d1", None], "dist_m": [1.0, 2.0, 3.0, None]}
    )
    for tail, written in (
        ("; otherwise `depot_id` = none and leave dist_m blank.", "none"),
        ("; set depot_id to 'n/a' where none is that close, dist_m empty.", "n/a"),
        ("; where there is none, leave depot_id and dist_m blank.", None),
        ("; write 'unknown' in depot_id where none is that close, dist_m empty.", "unknown"),
        ('; where none is that close `depot_id` is "far", dist_m empty.', "far"),
    ):
        contract = derive_contract(base + tail, ["nearest.csv"], facts)
        [carried] = _carried(contract, "depot_id")
        right.assign(depot_id=right.depot_id.fillna(written) if written else right.depot_id).to_csv(
            tmp_path / "nearest.csv", index=False
        )
        results = check(contract, tmp_path)
        assert results[carried.text][0], (tail, results[carried.text])
        # another column's values under the name still fail
        right.assign(depot_id=["s0", "s1", "s2", written or ""]).to_csv(tmp_path / "nearest.csv", index=False)
        assert not check(contract, tmp_path)[carried.text][0], tail
