"""Readings of what rows an output keeps and how its values are written, each derived from a
request's words and checked by the in-kernel checker on real files: the right file passes, the
file with the one mistake fails, and near-miss wordings add nothing."""

from __future__ import annotations

import json

import geopandas as gpd
import pandas as pd
from shapely.geometry import Point, box

from geoagent_ext.contract import derive_contract

from .test_checks import check, input_facts


def reqs(contract, kind):
    return [r for r in contract.requirements if r.kind == kind]


def only_result(contract, workdir, kind):
    """(passed, observed) of the one requirement of ``kind``."""
    (r,) = reqs(contract, kind)
    return check(contract, workdir)[r.text]


def write_fields(folder):
    """Four fields in lon/lat, two of them reaching past 10.2 E."""
    fields = gpd.GeoDataFrame(
        {"field_id": [1, 2, 3, 4], "crop": ["wheat", "rye", "wheat", "oats"]},
        geometry=[
            box(10.0, 50.0, 10.1, 50.05),
            box(10.15, 50.0, 10.3, 50.05),
            box(10.05, 50.06, 10.1, 50.09),
            box(10.18, 50.06, 10.25, 50.08),
        ],
        crs=4326,
    )
    fields.to_file(folder / "fields.geojson")
    return fields


def test_a_clip_to_a_box_in_lon_lat_keeps_everything_inside_it(tmp_path):
    fields = write_fields(tmp_path)
    request = "Crop fields.geojson to the window lon 10.0 to 10.2, lat 50.0 to 50.1 and write crop.geojson."
    c = derive_contract(request, ["crop.geojson"], input_facts(tmp_path))
    assert reqs(c, "within_box")[0].params["bounds"] == [10.0, 50.0, 10.2, 50.1]
    gpd.clip(fields, box(10.0, 50.0, 10.2, 50.1)).to_crs(32632).to_file(tmp_path / "crop.geojson")
    assert only_result(c, tmp_path, "within_box")[0]  # measured in lon/lat whatever the CRS
    fields[fields.intersects(box(10.0, 50.0, 10.2, 50.1))].to_file(tmp_path / "crop.geojson")
    passed, seen = only_result(c, tmp_path, "within_box")
    assert not passed and "reaches out of" in seen
    both = derive_contract("Clip fields.geojson to 10.0-10.2 E, 50.0-50.1 N -> crop.geojson", ["crop.geojson"])
    assert reqs(both, "within_box")[0].params["bounds"] == [10.0, 50.0, 10.2, 50.1]


def test_selecting_what_touches_a_box_is_not_a_clip():
    c = derive_contract(
        "Keep the fields of fields.geojson that touch the box lon 10.0 to 10.2, lat 50.0 to 50.1 -> near.geojson",
        ["near.geojson"],
    )
    assert not reqs(c, "within_box")


def test_an_attribute_table_left_exactly_as_it_is_gains_no_column(tmp_path):
    fields = write_fields(tmp_path)
    request = (
        "Simplify the outlines of fields.geojson; the attribute table stays exactly as it is. Save simple.geojson."
    )
    c = derive_contract(request, ["simple.geojson"], input_facts(tmp_path))
    assert reqs(c, "no_new_columns")[0].params["input"] == "fields.geojson"
    fields.assign(geometry=fields.simplify(0.001)).to_file(tmp_path / "simple.geojson")
    assert only_result(c, tmp_path, "no_new_columns")[0]
    fields.assign(area=fields.to_crs(32632).area).to_file(tmp_path / "simple.geojson")
    passed, seen = only_result(c, tmp_path, "no_new_columns")
    assert not passed and "area" in seen
    added = derive_contract(
        "Add an acres column to fields.geojson; the other columns stay exactly as they are. Save sized.geojson.",
        ["sized.geojson"],
        input_facts(tmp_path),
    )
    assert not reqs(added, "no_new_columns")  # a column the request adds is not in the input


def test_no_record_removed_keeps_every_row_unless_it_names_an_exception(tmp_path):
    write_fields(tmp_path)
    facts = input_facts(tmp_path)
    kept = derive_contract(
        "Repair fields.geojson into fixed.geojson. Do not remove any record - overlaps are a job for later.",
        ["fixed.geojson"],
        facts,
    )
    assert [r.params["rows"] for r in reqs(kept, "rows_as_input")] == [4]
    excepted = derive_contract(
        "Repair fields.geojson into fixed.geojson. Do not remove any record except the duplicates.",
        ["fixed.geojson"],
        facts,
    )
    assert not reqs(excepted, "rows_as_input")


def test_every_feature_of_a_category_listed_counts_that_category(tmp_path):
    admin = gpd.GeoDataFrame(
        {
            "id": ["a", "b", "c", "d"],
            "name": ["Ash", "Birch", "Cedar", "Dale"],
            "level": ["ward", "ward", "ward", "town"],
        },
        geometry=[box(0, 0, 1, 1), box(1, 0, 2, 1), box(2, 0, 3, 1), Point(0.5, 0.5).buffer(0.1)],
        crs=4326,
    )
    admin.to_file(tmp_path / "admin.geojson")
    request = (
        'admin.geojson holds wards (level "ward") and towns (level "town"). Count the towns in each ward. '
        "Wards with no town must still be listed. Save ward_towns.csv with id, name and towns."
    )
    c = derive_contract(request, ["ward_towns.csv"], input_facts(tmp_path))
    (r,) = reqs(c, "rows_as_category")
    assert (r.params["column"], r.params["value"]) == ("level", "ward")
    pd.DataFrame({"id": ["a", "b", "c"], "name": ["Ash", "Birch", "Cedar"], "towns": [1, 0, 0]}).to_csv(
        tmp_path / "ward_towns.csv", index=False
    )
    assert check(c, tmp_path)[r.text][0]
    pd.DataFrame({"id": ["a"], "name": ["Ash"], "towns": [1]}).to_csv(tmp_path / "ward_towns.csv", index=False)
    passed, seen = check(c, tmp_path)[r.text]
    assert not passed and "has 3" in seen


def test_sorted_by_a_nouns_name_sorts_by_the_name_column():
    c = derive_contract("Save wards.csv with id, name, towns — sorted by ward name Z to A.", ["wards.csv"])
    (r,) = reqs(c, "sorted")
    assert (r.params["name"], r.params["descending"], r.sure) == ("name", True, True)


def test_whole_numbers_shown_by_example_are_read_from_the_written_text(tmp_path):
    request = (
        "Count shops per zip in shops.csv into per_zip.csv with zip and shops. Zips are codes: 10002, not 10002.0."
    )
    c = derive_contract(request, ["per_zip.csv"])
    (r,) = reqs(c, "whole_numbers")
    assert r.params["name"] == "zip"
    (tmp_path / "per_zip.csv").write_text("zip,shops\n10002,3\n,1\n")  # a blank cell: read back as floats
    assert check(c, tmp_path)[r.text][0]
    (tmp_path / "per_zip.csv").write_text("zip,shops\n10002.0,3\n")
    passed, seen = check(c, tmp_path)[r.text]
    assert not passed and "10002.0" in seen


def test_a_flag_shown_as_true_false_holds_booleans(tmp_path):
    c = derive_contract("Write flags.csv with site_id and near_river (True/False).", ["flags.csv"])
    (r,) = reqs(c, "booleans")
    pd.DataFrame({"site_id": [1, 2], "near_river": [True, False]}).to_csv(tmp_path / "flags.csv", index=False)
    assert check(c, tmp_path)[r.text][0]
    pd.DataFrame({"site_id": [1, 2], "near_river": ["yes", "no"]}).to_csv(tmp_path / "flags.csv", index=False)
    assert not check(c, tmp_path)[r.text][0]


def test_one_row_per_two_columns_is_unique_on_both_together(tmp_path):
    (tmp_path / "visits.csv").write_text("street,number,unit\nMain,1,a\nMain,1,b\nMain,2,a\n")
    c = derive_contract(
        "visits.csv repeats buildings. Keep one row per street + number in buildings.csv.",
        ["buildings.csv"],
        input_facts(tmp_path),
    )
    (r,) = reqs(c, "unique")
    assert (r.params["name"], r.params["together"]) == ("street", ["number"])
    (tmp_path / "buildings.csv").write_text("street,number,unit\nMain,1,a\nMain,2,a\n")
    assert check(c, tmp_path)[r.text][0]
    (tmp_path / "buildings.csv").write_text("street,number,unit\nMain,1,a\nMain,1,b\nMain,2,a\n")
    assert not check(c, tmp_path)[r.text][0]


def test_a_second_output_with_the_same_attributes_has_the_first_ones_columns():
    c = derive_contract(
        "Two files:\n1. shops.csv — shop_id, name, ward_id, ward_name (the ward it is in). No geometry.\n"
        "2. shops.geojson — the same attributes plus the shop points.",
        ["shops.csv", "shops.geojson"],
    )
    columns = {r.output: r.params["names"] for r in c.requirements if r.kind == "columns" and r.sure}
    assert columns == {n: ["shop_id", "name", "ward_id", "ward_name"] for n in ("shops.csv", "shops.geojson")}


def test_every_feature_listed_in_a_nested_json_counts_the_records(tmp_path):
    wards = gpd.GeoDataFrame(
        {"ward_code": [1, 2, 3]}, geometry=[box(0, 0, 1, 1), box(1, 0, 2, 1), box(2, 0, 3, 1)], crs=4326
    )
    wards.to_file(tmp_path / "wards.geojson")
    request = (
        'From wards.geojson build stats.json like {"summary": {"wards": <n>}, "wards": [{"ward_code": .., '
        '"shops": ..}, ...]} with every ward in the list, shops = 0 where there is none.'
    )
    c = derive_contract(request, ["stats.json"], input_facts(tmp_path))
    (r,) = reqs(c, "rows_as_input")
    assert r.params["name"] == "ward_code"
    doc = {"summary": {"wards": 3}, "wards": [{"ward_code": i, "shops": 0} for i in (1, 2, 3)]}
    (tmp_path / "stats.json").write_text(json.dumps(doc))
    assert check(c, tmp_path)[r.text][0]
    doc["wards"] = doc["wards"][:1]
    (tmp_path / "stats.json").write_text(json.dumps(doc))
    assert not check(c, tmp_path)[r.text][0]


def test_the_row_kept_of_each_duplicate_set_is_the_one_the_request_names(tmp_path):
    (tmp_path / "visits.csv").write_text(
        "street,number,seen\nMain,1,2024-03-01\nMain,1,2024-01-05\nMain,2,2024-02-01\n"
    )
    c = derive_contract(
        "visits.csv repeats buildings. Keep one row per street + number, the earliest by seen, in buildings.csv.",
        ["buildings.csv"],
        input_facts(tmp_path),
    )
    (r,) = reqs(c, "kept_of_duplicates")
    assert (r.params["key"], r.params["by"], r.params["keep"]) == (["street", "number"], "seen", "min")
    (tmp_path / "buildings.csv").write_text("street,number,seen\nMain,1,2024-01-05\nMain,2,2024-02-01\n")
    assert check(c, tmp_path)[r.text][0]
    (tmp_path / "buildings.csv").write_text("street,number,seen\nMain,1,2024-03-01\nMain,2,2024-02-01\n")
    passed, seen = check(c, tmp_path)[r.text]
    assert not passed and "2024-03-01" in seen


def test_only_one_geometry_family_of_a_mixed_input_counts_its_features(tmp_path):
    from shapely.geometry import LineString

    mixed = gpd.GeoDataFrame(
        {"site": ["a", "b", "c", "d"]},
        geometry=[Point(0, 0), LineString([(0, 0), (1, 1)]), LineString([(1, 1), (2, 1)]), box(0, 0, 1, 1)],
        crs=4326,
    )
    mixed.to_file(tmp_path / "sites.geojson")
    c = derive_contract(
        "Only the polygons of sites.geojson, please: areas.csv with site and area_m2.",
        ["areas.csv"],
        input_facts(tmp_path),
    )
    (r,) = reqs(c, "rows_of_geometry_type")
    assert r.params["family"] == "Polygon"
    pd.DataFrame({"site": ["d"], "area_m2": [1.2e10]}).to_csv(tmp_path / "areas.csv", index=False)
    assert check(c, tmp_path)[r.text][0]
    pd.DataFrame({"site": ["a", "d"], "area_m2": [0, 1.2e10]}).to_csv(tmp_path / "areas.csv", index=False)
    assert not check(c, tmp_path)[r.text][0]
    longest = derive_contract(
        "Only the lines of sites.geojson longer than 1 km -> long.csv", ["long.csv"], input_facts(tmp_path)
    )
    assert not reqs(longest, "rows_of_geometry_type")  # a further selection: fewer rows than the family


def test_a_buffer_of_some_features_is_compared_with_those_features_buffered(tmp_path):
    sites = gpd.GeoDataFrame(
        {"kind": ["school", "shop", "school"]},
        geometry=[Point(5e5, 66e5), Point(503e3, 66e5), Point(5e5, 6605e3)],
        crs=32632,
    ).to_crs(4326)
    sites.to_file(tmp_path / "s.geojson")
    c = derive_contract(
        "Draw a 200 m zone around the sites of s.geojson whose kind is school -> z.geojson",
        ["z.geojson"],
        input_facts(tmp_path),
    )
    (r,) = reqs(c, "buffer_distance")
    assert r.sure and r.params["selected"]
    schools = sites[sites["kind"] == "school"]
    utm = schools.to_crs(32632)
    utm.assign(geometry=utm.buffer(200)).to_crs(4326).to_file(tmp_path / "z.geojson")
    assert check(c, tmp_path)[r.text][0]
    schools.assign(geometry=schools.buffer(200 / 111_320)).to_file(tmp_path / "z.geojson")  # degrees, at 59 N
    assert not check(c, tmp_path)[r.text][0]
    utm.assign(geometry=utm.buffer(400)).to_crs(4326).to_file(tmp_path / "z.geojson")  # twice the distance
    assert not check(c, tmp_path)[r.text][0]


def test_a_summary_count_of_an_inputs_features_is_checked_against_the_input(tmp_path):
    gpd.GeoDataFrame({"label": ["a", " ", None, "d"]}, geometry=[Point(i, 0) for i in range(4)], crs=4326).to_file(
        tmp_path / "towers.geojson"
    )
    c = derive_contract(
        "Summarise towers.geojson in towers.json, one object:\n- towers: number of towers\n"
        "- labelled: how many have a label (blank ones do not count)",
        ["towers.json"],
        input_facts(tmp_path),
    )
    got = {r.params["name"]: r for r in reqs(c, "count_of_input")}
    assert got["labelled"].params["non_empty"] == "label" and "non_empty" not in got["towers"].params
    (tmp_path / "towers.json").write_text(json.dumps({"towers": 4, "labelled": 2}))
    results = check(c, tmp_path)
    assert results[got["towers"].text][0] and results[got["labelled"].text][0]
    (tmp_path / "towers.json").write_text(json.dumps({"towers": 4, "labelled": 3}))  # the blank one counted
    assert not check(c, tmp_path)[got["labelled"].text][0]
    some = derive_contract(
        "Summarise towers.geojson in towers.json: towers: number of towers taller than 50 m",
        ["towers.json"],
        input_facts(tmp_path),
    )
    assert not reqs(some, "count_of_input")


def test_things_counted_once_each_sum_to_at_most_their_number(tmp_path):
    cells = gpd.GeoDataFrame({"cell_id": ["a", "b"]}, geometry=[box(0, 0, 1, 1), box(1, 0, 2, 1)], crs=4326)
    cells.to_file(tmp_path / "cells.geojson")
    gpd.GeoDataFrame(
        {"use": ["school", "school", "park"]},
        geometry=[box(0.9, 0.4, 1.1, 0.6), box(0.2, 0.2, 0.3, 0.3), box(1.5, 0.5, 1.6, 0.6)],
        crs=4326,
    ).to_file(tmp_path / "land.geojson")
    c = derive_contract(
        'Schools are the land.geojson polygons of use "school". How many in each cell of cells.geojson, so that '
        "no school is counted in two cells? counts.csv with cell_id and schools (a whole number).",
        ["counts.csv"],
        input_facts(tmp_path),
    )
    (r,) = reqs(c, "counted_once")
    assert (r.params["name"], r.params["column"], r.params["values"]) == ("schools", "use", ["school"])
    pd.DataFrame({"cell_id": ["a", "b"], "schools": [2, 0]}).to_csv(tmp_path / "counts.csv", index=False)
    assert check(c, tmp_path)[r.text][0]
    pd.DataFrame({"cell_id": ["a", "b"], "schools": [2, 1]}).to_csv(tmp_path / "counts.csv", index=False)
    passed, seen = check(c, tmp_path)[r.text]
    assert not passed and "sums to 3" in seen


def test_classes_by_area_limits_are_checked_on_each_features_true_area(tmp_path):
    utm = gpd.GeoDataFrame(
        {"lot": [1, 2, 3]}, geometry=[box(0, 0, 10, 10), box(0, 0, 20, 20), box(0, 0, 50, 50)], crs=32632
    )  # 100, 400 and 2500 m²
    lots = utm.to_crs(4326)
    lots.to_file(tmp_path / "lots.geojson")
    c = derive_contract(
        'Give lots.geojson a size_band column: "S" below 300 m², "M" from 300 to 1000 m², "L" over 1000 m². '
        "Save banded.geojson.",
        ["banded.geojson"],
        input_facts(tmp_path),
    )
    (r,) = reqs(c, "measure_classes")
    assert (r.params["name"], r.params["unit"]) == ("size_band", "m2")
    lots.assign(size_band=["S", "M", "L"]).to_file(tmp_path / "banded.geojson")
    assert check(c, tmp_path)[r.text][0]
    lots.assign(size_band=["S", "S", "S"]).to_file(tmp_path / "banded.geojson")  # areas taken in square degrees
    passed, seen = check(c, tmp_path)[r.text]
    assert not passed and "2 row(s)" in seen


def test_a_list_of_the_polygons_holding_none_of_the_points_is_exactly_those(tmp_path):
    gpd.GeoDataFrame(
        {"ward_name": ["Ash", "Birch", "Cedar"]}, geometry=[box(0, 0, 1, 1), box(1, 0, 2, 1), box(2, 0, 3, 1)], crs=4326
    ).to_file(tmp_path / "wards.geojson")
    gpd.GeoDataFrame({"n": [1]}, geometry=[Point(1.5, 0.5)], crs=4326).to_file(tmp_path / "schools.geojson")
    c = derive_contract(
        "Which wards (wards.geojson) have no school (schools.geojson)? empty.json: a JSON array of the ward names.",
        ["empty.json"],
        input_facts(tmp_path),
    )
    (r,) = reqs(c, "names_list")
    assert r.params["empty_of"] == "schools.geojson"
    (tmp_path / "empty.json").write_text(json.dumps(["Ash", "Cedar"]))
    assert check(c, tmp_path)[r.text][0]
    (tmp_path / "empty.json").write_text(json.dumps(["Birch"]))  # the ones that have one
    passed, seen = check(c, tmp_path)[r.text]
    assert not passed and "missing ['Ash', 'Cedar']" in seen


def test_a_printed_pandas_column_in_a_cell_is_not_one_value(tmp_path):
    c = derive_contract("Write summary.csv with kind and n.", ["summary.csv"])
    (r,) = reqs(c, "one_value_per_cell")
    pd.DataFrame({"kind": ["Point"], "n": [3]}).to_csv(tmp_path / "summary.csv", index=False)
    assert check(c, tmp_path)[r.text][0]
    printed = str(pd.Series(["Point"] * 3))  # str(series) where one value was meant
    pd.DataFrame({"kind": [printed], "n": [3]}).to_csv(tmp_path / "summary.csv", index=False)
    passed, seen = check(c, tmp_path)[r.text]
    assert not passed and "`kind` holds a printed pandas object" in seen


def test_a_table_of_the_layers_of_a_file_describes_each_as_declared(tmp_path):
    from shapely.geometry import LineString

    path = tmp_path / "delivery.gpkg"
    gpd.GeoDataFrame({"n": [1, 2]}, geometry=[Point(100, 13), Point(100.1, 13)], crs=4326).to_file(path, layer="shops")
    gpd.GeoDataFrame({"n": [1]}, geometry=[LineString([(6e5, 1.5e6), (6.1e5, 1.5e6)])], crs=32647).to_file(
        path, layer="streets"
    )
    c = derive_contract(
        "List the layers of delivery.gpkg in layers.csv, one row per layer: layer_name, crs, geometry_type, "
        "feature_count.",
        ["layers.csv"],
        input_facts(tmp_path),
    )
    (r,) = reqs(c, "layer_inventory")
    assert (r.params["crs"], r.params["geometry_type"], r.params["feature_count"]) == (
        "crs",
        "geometry_type",
        "feature_count",
    )
    right = pd.DataFrame(
        {
            "layer_name": ["shops", "streets"],
            "crs": ["EPSG:4326", "EPSG:32647"],
            "geometry_type": ["Point", "LineString"],
        }
    ).assign(feature_count=[2, 1])
    right.to_csv(tmp_path / "layers.csv", index=False)
    assert check(c, tmp_path)[r.text][0]
    right.assign(crs=["EPSG:4326", "EPSG:4326"]).to_csv(tmp_path / "layers.csv", index=False)  # one CRS for all
    passed, seen = check(c, tmp_path)[r.text]
    assert not passed and "streets: crs 'EPSG:4326', the layer declares EPSG:32647" in seen
    # "one row each" after "every layer", and "a single row per layer", say the same; a row per feature does not
    for said, read in (
        ("Walk every layer of delivery.gpkg, one row each", ["crs"]),
        ("Write a single row per layer of delivery.gpkg", ["crs"]),
        ("Write one row per feature of each layer of delivery.gpkg", []),
    ):
        text = f"{said} to layers.csv with layer_name, crs, geometry_type, feature_count."
        assert [
            q.params["crs"]
            for q in reqs(derive_contract(text, ["layers.csv"], input_facts(tmp_path)), "layer_inventory")
        ] == read


def _wards_and_wells(folder):
    gpd.GeoDataFrame(
        {"ward_code": ["W1", "W2", "W3"]}, geometry=[box(i, 0, i + 1, 1) for i in range(3)], crs=3857
    ).to_file(folder / "city_wards.geojson")
    gpd.GeoDataFrame(
        {"well_id": [1, 2, 3]}, geometry=[Point(0.5, 0.5), Point(0.6, 0.4), Point(1.5, 0.5)], crs=3857
    ).to_file(folder / "wells.geojson")
    return input_facts(folder)


def test_one_row_per_feature_of_the_layer_the_noun_names_keeps_the_empty_ones(tmp_path):
    facts = _wards_and_wells(tmp_path)
    request = (
        "Count the wells of wells.geojson in each ward: ward_wells.csv with one row per ward, ward_code and n_wells."
    )
    contract = derive_contract(request, ["ward_wells.csv"], facts)
    [rows] = [r for r in reqs(contract, "rows_as_input") if r.sure]
    assert rows.params == {"input": "city_wards.geojson", "rows": 3}
    pd.DataFrame({"ward_code": ["W1", "W2", "W3"], "n_wells": [2, 1, 0]}).to_csv(
        tmp_path / "ward_wells.csv", index=False
    )
    assert check(contract, tmp_path)[rows.text][0]
    pd.DataFrame({"ward_code": ["W1", "W2"], "n_wells": [2, 1]}).to_csv(tmp_path / "ward_wells.csv", index=False)
    assert not check(contract, tmp_path)[rows.text][0]  # the empty ward dropped (an inner join)
    # words that make it some of them: shown, not checked
    for some in (
        "Count the wells of wells.geojson: ward_wells.csv, one row per ward that has a well, ward_code and n_wells.",
        "Count the wells of wells.geojson, only wards with two or more: ward_wells.csv, one row per ward, ward_code.",
        "Count the wells of wells.geojson: ward_wells.csv with one row per ward and year, ward_code and n_wells.",
    ):
        assert not [r for r in reqs(derive_contract(some, ["ward_wells.csv"], facts), "rows_as_input") if r.sure], some
