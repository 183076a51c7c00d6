"""Readings of what a request means across wordings, fourth set: a rank said to count from 1; a box
spelled out as [west, south, east, north] (or in eastings and northings of a named CRS); a code of a
fixed number of digits; the groups kept by how many features they have, said as "one record per
<group> that has N <features> or more"; and x/y swapped where lon and lat are close in value. Each
is derived from a request and checked on real files."""

from __future__ import annotations

import json

import geopandas as gpd
import pandas as pd
from shapely.geometry import Point, box

from geoagent_ext.contract import derive_contract

from .test_meaning_readings import facts_of, of_kind, results


def _wells(folder, lon=12.0, lat=47.0):
    """Twelve wells on a small grid near (lon, lat), in four basins (5, 4, 2 and 1 wells), with a code."""
    basins = ["upper"] * 5 + ["lower"] * 4 + ["delta"] * 2 + ["spring"]
    wells = gpd.GeoDataFrame(
        {
            "well_id": [f"W{i:02d}" for i in range(12)],
            "basin": basins,
            "site_code": [f"{i * 7:04d}" for i in range(12)],
            "depth": [float(10 + i) for i in range(12)],
        },
        geometry=[Point(lon + (i % 4) * 0.01, lat + (i // 4) * 0.01) for i in range(12)],
        crs=4326,
    )
    wells.to_file(folder / "wells.geojson")
    return wells


# --- a rank counted from 1


def test_a_rank_said_to_start_at_one_holds_whole_numbers_from_one(tmp_path):
    wells = _wells(tmp_path)
    request = (
        "From wells.geojson list the 3 deepest wells per basin in deep_wells.csv: basin, well_id, depth and "
        "rank (1 = deepest, then 2, 3)."
    )
    contract = derive_contract(request, ["deep_wells.csv"], facts_of(tmp_path))
    (rank,) = of_kind(contract, "rank_from_one")
    assert (rank.params["name"], rank.params["top"]) == ("rank", 3)
    open_ended = request.replace("then 2, 3", "2 = the next, ...")
    (rank,) = of_kind(derive_contract(open_ended, ["deep_wells.csv"], facts_of(tmp_path)), "rank_from_one")
    assert rank.params.get("top") is None
    top = wells.sort_values("depth", ascending=False).groupby("basin").head(3).copy()
    top["rank"] = top.groupby("basin")["depth"].rank(ascending=False, method="first").astype(int)
    table = top[["basin", "well_id", "depth", "rank"]]
    table.to_csv(tmp_path / "deep_wells.csv", index=False)
    assert all(ok for ok, _ in results(contract, tmp_path, "rank_from_one"))
    table.assign(rank=table["rank"] - 1).to_csv(tmp_path / "deep_wells.csv", index=False)  # counted from 0
    assert not any(ok for ok, _ in results(contract, tmp_path, "rank_from_one"))
    table.assign(rank=range(1, len(table) + 1)).to_csv(tmp_path / "deep_wells.csv", index=False)  # over all rows
    assert not any(ok for ok, _ in results(contract, tmp_path, "rank_from_one"))


def test_a_position_one_for_the_largest_is_a_rank_and_a_code_table_is_not(tmp_path):
    _wells(tmp_path)
    request = "Write ranked.geojson from wells.geojson with well_id, depth and position, 1 for the deepest well."
    contract = derive_contract(request, ["ranked.geojson"], facts_of(tmp_path))
    assert [r.params["name"] for r in of_kind(contract, "rank_from_one")] == ["position"]
    coded = "Write coded.csv from wells.geojson with well_id and status (1 = active, 2 = closed)."
    assert not of_kind(derive_contract(coded, ["coded.csv"], facts_of(tmp_path)), "rank_from_one")


# --- a box spelled out in its order


def test_a_box_spelled_west_south_east_north_is_in_that_order_within_the_input(tmp_path):
    wells = _wells(tmp_path)
    request = (
        'Make wells_extent.json from wells.geojson: {"count": <wells>, "extent": [west, south, east, north]} '
        "in lon/lat degrees."
    )
    contract = derive_contract(request, ["wells_extent.json"], facts_of(tmp_path))
    (req,) = of_kind(contract, "bbox_extent")
    assert (req.params["name"], req.params["epsg"]) == ("extent", 4326)
    w, s, e, n = (float(v) for v in wells.total_bounds)
    (tmp_path / "wells_extent.json").write_text(json.dumps({"count": 12, "extent": [w, s, e, n]}))
    assert all(ok for ok, _ in results(contract, tmp_path, "bbox_extent"))
    (tmp_path / "wells_extent.json").write_text(json.dumps({"count": 12, "extent": [s, w, n, e]}))  # lat first
    assert not any(ok for ok, _ in results(contract, tmp_path, "bbox_extent"))


def test_a_box_per_record_in_eastings_and_northings_is_in_metres_of_the_named_crs(tmp_path):
    wells = _wells(tmp_path)
    request = (
        'Per basin of wells.geojson write basins.json, a list of records {"basin": ..., '
        '"box": [min easting, min northing, max easting, max northing]} in metres of EPSG:32633.'
    )
    contract = derive_contract(request, ["basins.json"], facts_of(tmp_path))
    (req,) = of_kind(contract, "bbox_extent")
    assert (req.params["name"], req.params["epsg"]) == ("box", 32633)
    utm = wells.to_crs(32633)
    records = [{"basin": k, "box": [float(v) for v in g.total_bounds]} for k, g in utm.groupby("basin")]
    (tmp_path / "basins.json").write_text(json.dumps(records))
    assert all(ok for ok, _ in results(contract, tmp_path, "bbox_extent"))
    degrees = [{"basin": k, "box": [float(v) for v in g.total_bounds]} for k, g in wells.groupby("basin")]
    (tmp_path / "basins.json").write_text(json.dumps(degrees))
    assert not any(ok for ok, _ in results(contract, tmp_path, "bbox_extent"))


# --- a code of a fixed number of digits


def test_a_code_of_n_digits_is_written_as_that_many_digits(tmp_path):
    wells = _wells(tmp_path)
    request = "From wells.geojson write well_codes.csv with well_id and site_code (zero-padded to 4 digits, as text)."
    contract = derive_contract(request, ["well_codes.csv"], facts_of(tmp_path))
    (req,) = of_kind(contract, "digit_code")
    assert (req.params["name"], req.params["digits"]) == ("site_code", 4)
    wells[["well_id", "site_code"]].to_csv(tmp_path / "well_codes.csv", index=False)
    assert all(ok for ok, _ in results(contract, tmp_path, "digit_code"))
    as_int = wells[["well_id"]].assign(site_code=wells.site_code.astype(int))  # leading zeros lost
    as_int.to_csv(tmp_path / "well_codes.csv", index=False)
    assert not any(ok for ok, _ in results(contract, tmp_path, "digit_code"))
    as_int.assign(site_code=as_int.site_code.astype(float)).to_csv(tmp_path / "well_codes.csv", index=False)
    assert not any(ok for ok, _ in results(contract, tmp_path, "digit_code"))


def test_the_digits_said_of_the_next_column_do_not_bind_this_one(tmp_path):
    _wells(tmp_path)
    request = "From wells.geojson write ids.csv with well_id, site_code (the 4-digit site code) and depth."
    contract = derive_contract(request, ["ids.csv"], facts_of(tmp_path))
    assert [r.params["name"] for r in of_kind(contract, "digit_code")] == ["site_code"]
    precision = "From wells.geojson write depths.csv with well_id and depth (rounded to 2 digits)."
    assert not of_kind(derive_contract(precision, ["depths.csv"], facts_of(tmp_path)), "digit_code")


# --- the groups kept by their size


def test_one_record_per_group_that_has_n_features_or_more_keeps_exactly_those_groups(tmp_path):
    wells = _wells(tmp_path)
    request = (
        "Write basins.json: a list with one record per `basin` that has 4 wells or more (exactly 4 counts), "
        'each {"basin": ..., "wells": <count>}.'
    )
    contract = derive_contract(request, ["basins.json"], facts_of(tmp_path))
    (req,) = [r for r in of_kind(contract, "group_size_rows") if r.checkable]
    assert (req.params["group"], req.params["op"], req.params["value"]) == ("basin", ">=", 4.0)
    sizes = wells.groupby("basin").size()
    kept = [{"basin": k, "wells": int(v)} for k, v in sizes.items() if v >= 4]
    (tmp_path / "basins.json").write_text(json.dumps(kept))
    assert all(ok for ok, _ in results(contract, tmp_path, "group_size_rows"))
    above = [r for r in kept if r["wells"] > 4]  # "exactly 4" left out
    (tmp_path / "basins.json").write_text(json.dumps(above))
    assert not any(ok for ok, _ in results(contract, tmp_path, "group_size_rows"))


# --- x and y swapped where lon and lat are close in value


def test_points_with_lat_and_lon_swapped_are_seen_where_the_two_are_close(tmp_path):
    wells = _wells(tmp_path, lon=31.2, lat=30.0)
    request = "From wells.geojson write well_points.csv with well_id, lon and lat (WGS84 degrees)."
    contract = derive_contract(request, ["well_points.csv"], facts_of(tmp_path))
    assert of_kind(contract, "coordinate_columns")
    table = pd.DataFrame({"well_id": wells.well_id, "lon": wells.geometry.x, "lat": wells.geometry.y})
    table.to_csv(tmp_path / "well_points.csv", index=False)
    assert all(ok for ok, _ in results(contract, tmp_path, "coordinate_columns"))
    table.rename(columns={"lon": "lat", "lat": "lon"}).to_csv(tmp_path / "well_points.csv", index=False)
    assert not any(ok for ok, _ in results(contract, tmp_path, "coordinate_columns"))


def test_a_layer_with_x_and_y_swapped_is_not_where_its_input_is(tmp_path):
    _wells(tmp_path, lon=31.2, lat=30.0)
    fields = gpd.GeoDataFrame(
        {"field": ["a", "b"]}, geometry=[box(31.2, 30.0, 31.21, 30.01), box(31.22, 30.0, 31.23, 30.01)], crs=4326
    )
    fields.to_file(tmp_path / "fields.geojson")
    request = "Reproject fields.geojson to WGS84 and save it as fields_wgs84.geojson, attributes unchanged."
    contract = derive_contract(request, ["fields_wgs84.geojson"], facts_of(tmp_path))
    assert of_kind(contract, "located")
    fields.to_file(tmp_path / "fields_wgs84.geojson")
    assert all(ok for ok, _ in results(contract, tmp_path, "located"))
    fields.set_geometry(fields.geometry.map(lambda g: box(g.bounds[1], g.bounds[0], g.bounds[3], g.bounds[2]))).to_file(
        tmp_path / "fields_wgs84.geojson"
    )
    assert not any(ok for ok, _ in results(contract, tmp_path, "located"))


def test_four_box_columns_listed_in_order_hold_each_rows_box_in_that_order(tmp_path):
    wells = _wells(tmp_path)
    request = "From wells.geojson write well_boxes.csv with well_id, xmin, ymin, xmax, ymax (decimal degrees)."
    contract = derive_contract(request, ["well_boxes.csv"], facts_of(tmp_path))
    (req,) = of_kind(contract, "bbox_extent")
    assert (req.params["columns"], req.params["epsg"]) == (["xmin", "ymin", "xmax", "ymax"], 4326)
    bounds = wells.geometry.bounds
    table = pd.DataFrame({"well_id": wells.well_id, "xmin": bounds.minx, "ymin": bounds.miny, "xmax": bounds.maxx})
    table["ymax"] = bounds.maxy
    table.to_csv(tmp_path / "well_boxes.csv", index=False)
    assert all(ok for ok, _ in results(contract, tmp_path, "bbox_extent"))
    swapped = table.rename(columns={"xmin": "ymin", "ymin": "xmin", "xmax": "ymax", "ymax": "xmax"})
    swapped[["well_id", "xmin", "ymin", "xmax", "ymax"]].to_csv(tmp_path / "well_boxes.csv", index=False)
    assert not any(ok for ok, _ in results(contract, tmp_path, "bbox_extent"))
