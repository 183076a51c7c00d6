"""Requirements on a JSON deliverable's own structure, read from the request and checked on real
files: a GeoJSON top-level member (not a property of each feature), lon/lat bounding-box arrays,
lon/lat columns of a table placed where the inputs lie, and distances in records nested in a list."""

from __future__ import annotations

import json

import geopandas as gpd
import pandas as pd
from shapely.geometry import Point, box

from geoagent_ext.contract import check_payload, derive_contract

from .test_checks import HELPER, PROBES
from .test_checks import in_folder as _in


def _contract(folder, request, outputs):
    facts = _in(folder, PROBES["input_facts"], sorted(p.name for p in folder.iterdir()))
    return derive_contract(request, outputs, facts)


def _of(contract, kind):
    return [r for r in contract.requirements if r.kind == kind]


def _results(contract, folder, kind):
    """{requirement id: passed} of the requirements of ``kind`` on the files in ``folder``."""
    ids = {r.id for r in _of(contract, kind)}
    answer = _in(folder, HELPER.check_contract, check_payload(contract))
    return [a["passed"] for a in answer if a["id"] in ids]


def _stations(folder):
    points = [Point(16.30 + i * 0.02, 48.15 + i * 0.01) for i in range(6)]
    s = gpd.GeoDataFrame({"station_id": range(6), "name": [f"s{i}" for i in range(6)]}, geometry=points, crs=4326)
    s.to_file(folder / "stations.geojson", driver="GeoJSON")
    return s


def _write_geojson(frame, path, members=None):
    document = json.loads(frame.to_json(drop_id=True))
    document.update(members or {})
    path.write_text(json.dumps(document))


def test_a_top_level_member_object_is_at_the_top_not_in_each_feature(tmp_path):
    s = _stations(tmp_path)
    request = (
        'Write stations.geojson to out.geojson as a FeatureCollection and add a top-level "info" member '
        'next to "features": {"source": "OSM", "station_count": <number of stations>}.'
    )
    contract = _contract(tmp_path, request, ["out.geojson"])
    [member] = _of(contract, "top_level_member")
    assert member.params["name"] == "info" and member.params["keys"] == ["source", "station_count"] and member.sure
    info = {"source": "OSM", "station_count": len(s)}
    _write_geojson(s, tmp_path / "out.geojson", {"info": info})
    assert _results(contract, tmp_path, "top_level_member") == [True]
    _write_geojson(s.assign(**info), tmp_path / "out.geojson")  # in every feature's properties
    assert _results(contract, tmp_path, "top_level_member") == [False]
    _write_geojson(s, tmp_path / "out.geojson", {"info": {"source": "OSM"}})  # a key missing
    assert _results(contract, tmp_path, "top_level_member") == [False]


def test_a_top_level_text_member_has_the_text_and_gdal_s_layer_name_is_not_it(tmp_path):
    s = _stations(tmp_path)
    request = (
        'Copy stations.geojson to named.geojson. Give the FeatureCollection a top-level "name": "Vienna stations".'
    )
    contract = _contract(tmp_path, request, ["named.geojson"])
    [member] = _of(contract, "top_level_member")
    assert member.params == {"name": "name", "value": "Vienna stations"}
    _write_geojson(s, tmp_path / "named.geojson", {"name": "Vienna stations"})
    assert _results(contract, tmp_path, "top_level_member") == [True]
    s.to_file(tmp_path / "named.geojson", driver="GeoJSON")  # GDAL writes "name": "named"
    assert _results(contract, tmp_path, "top_level_member") == [False]


def test_no_top_level_member_from_a_negated_clause_or_without_the_words(tmp_path):
    _stations(tmp_path)
    plain = _contract(tmp_path, "Copy stations.geojson to out.geojson with a name property.", ["out.geojson"])
    assert not _of(plain, "top_level_member")
    negated = _contract(
        tmp_path, 'Copy stations.geojson to out.geojson, without a top-level "info" member.', ["out.geojson"]
    )
    assert not _of(negated, "top_level_member")


def _lagos(folder):
    polys = [box(3.30 + i * 0.05, 6.45, 3.34 + i * 0.05, 6.50 + i * 0.02) for i in range(4)]
    land = gpd.GeoDataFrame({"class": ["a", "a", "b", "c"]}, geometry=polys, crs=4326)
    land.to_file(folder / "land.geojson", driver="GeoJSON")
    bounds = land.geometry.bounds.groupby(land["class"]).agg(
        {"minx": "min", "miny": "min", "maxx": "max", "maxy": "max"}
    )
    return land, bounds


def test_an_object_mapping_each_class_to_a_lonlat_box(tmp_path):
    land, bounds = _lagos(tmp_path)
    request = (
        "For each class of land.geojson: extents.json, an object mapping class -> [min_lon, min_lat, max_lon, max_lat]."
    )
    contract = _contract(tmp_path, request, ["extents.json"])
    [boxes] = _of(contract, "lonlat_boxes")
    assert boxes.params.get("name") is None and boxes.sure
    right = {c: [float(v) for v in row] for c, row in bounds.iterrows()}
    (tmp_path / "extents.json").write_text(json.dumps(right))
    assert _results(contract, tmp_path, "lonlat_boxes") == [True]
    lat_first = {c: [b[1], b[0], b[3], b[2]] for c, b in right.items()}
    (tmp_path / "extents.json").write_text(json.dumps(lat_first))
    assert _results(contract, tmp_path, "lonlat_boxes") == [False]
    utm = (
        land.to_crs(32631)
        .geometry.bounds.groupby(land["class"])
        .agg({"minx": "min", "miny": "min", "maxx": "max", "maxy": "max"})
    )
    (tmp_path / "extents.json").write_text(json.dumps({c: [float(v) for v in r] for c, r in utm.iterrows()}))
    assert _results(contract, tmp_path, "lonlat_boxes") == [False]


def test_a_keyed_box_in_degrees_and_none_without_lonlat_words(tmp_path):
    land, _ = _lagos(tmp_path)
    request = 'summary.json from land.geojson: {"n": <count>, "bbox": [minx, miny, maxx, maxy]} in degrees.'
    contract = _contract(tmp_path, request, ["summary.json"])
    [boxes] = _of(contract, "lonlat_boxes")
    assert boxes.params["name"] == "bbox"
    (tmp_path / "summary.json").write_text(json.dumps({"n": 4, "bbox": [float(v) for v in land.total_bounds]}))
    assert _results(contract, tmp_path, "lonlat_boxes") == [True]
    metres = [float(v) for v in land.to_crs(32631).total_bounds]
    (tmp_path / "summary.json").write_text(json.dumps({"n": 4, "bbox": metres}))
    assert _results(contract, tmp_path, "lonlat_boxes") == [False]
    plain = 'summary.json from land.geojson: {"n": <count>, "bbox": [minx, miny, maxx, maxy]}.'
    assert not _of(_contract(tmp_path, plain, ["summary.json"]), "lonlat_boxes")


def test_lon_lat_columns_of_a_table_lie_where_the_input_lies(tmp_path):
    s = _stations(tmp_path)
    request = 'Export stations.geojson as a plain JSON list of records [{"station_id": ..., "lon": ..., "lat": ...}].'
    contract = _contract(tmp_path, request, ["points.json"])
    [placed] = _of(contract, "coordinate_columns")
    assert (placed.params["lon"], placed.params["lat"]) == ("lon", "lat")
    rows = pd.DataFrame({"station_id": s.station_id, "lon": s.geometry.x, "lat": s.geometry.y})
    (tmp_path / "points.json").write_text(rows.to_json(orient="records"))
    assert _results(contract, tmp_path, "coordinate_columns") == [True]
    swapped = rows.rename(columns={"lon": "lat", "lat": "lon"})
    (tmp_path / "points.json").write_text(swapped.to_json(orient="records"))
    assert _results(contract, tmp_path, "coordinate_columns") == [False]
    csv = _contract(
        tmp_path, "stations.csv from stations.geojson: station_id, centroid_lon, centroid_lat.", ["stations.csv"]
    )
    [pair] = _of(csv, "coordinate_columns")
    assert (pair.params["lon"], pair.params["lat"]) == ("centroid_lon", "centroid_lat")


def test_distances_in_records_nested_in_a_list_are_measured_from_their_parent_s_feature(tmp_path):
    homes = gpd.GeoDataFrame(
        {"home_id": [1, 2, 3]}, geometry=[Point(18.40, -33.90), Point(18.45, -33.95), Point(18.50, -33.92)], crs=4326
    )
    shops = gpd.GeoDataFrame(
        {"shop_id": ["a", "b", "c", "d"]},
        geometry=[Point(18.41, -33.91), Point(18.46, -33.94), Point(18.52, -33.93), Point(18.43, -33.97)],
        crs=4326,
    )
    homes.to_parquet(tmp_path / "homes.parquet")
    shops.to_parquet(tmp_path / "shops.parquet")
    request = (
        'nearest_shops.json: a list with one object per home: {"home_id": ..., "nearest": [{"shop_id": ..., '
        '"distance_m": ...}, ...]} holding the 2 closest shops, in metres as the crow flies. '
        "Inputs: homes.parquet and shops.parquet."
    )
    contract = _contract(tmp_path, request, ["nearest_shops.json"])
    [pair] = _of(contract, "pair_distance")
    assert pair.params["input"] == "homes.parquet" and pair.params["k"] == 2
    utm = homes.estimate_utm_crs()
    h, sh = homes.to_crs(utm), shops.to_crs(utm)

    def write(k, crs=None):
        a, b = (homes.to_crs(crs), shops.to_crs(crs)) if crs else (h, sh)
        out = []
        for i, p in enumerate(a.geometry):
            d = b.distance(p).sort_values()[:k]
            out.append(
                {
                    "home_id": int(homes.home_id[i]),
                    "nearest": [{"shop_id": shops.shop_id[j], "distance_m": float(v)} for j, v in d.items()],
                }
            )
        (tmp_path / "nearest_shops.json").write_text(json.dumps(out))

    write(2)
    assert _results(contract, tmp_path, "pair_distance") == [True]
    write(1)  # one per home, not the 2 nearest
    assert _results(contract, tmp_path, "pair_distance") == [False]
    write(2, 3857)  # Web Mercator metres are too long this far from the equator
    assert _results(contract, tmp_path, "pair_distance") == [False]


def test_a_json_array_of_names_holds_values_of_the_name_column_the_noun_picks(tmp_path):
    _stations(tmp_path)
    parks = gpd.GeoDataFrame(
        {"park_code": [11, 12, 13], "park_name": ["Augarten", "Prater", "Volksgarten"]},
        geometry=[box(16.30, 48.15, 16.31, 48.16), box(16.40, 48.20, 16.42, 48.22), box(16.36, 48.21, 16.37, 48.22)],
        crs=4326,
    )
    parks.to_file(tmp_path / "parks.geojson", driver="GeoJSON")
    request = (
        "Which parks of parks.geojson hold no station of stations.geojson? "
        "Write empty.json, a JSON array of the park names."
    )
    contract = _contract(tmp_path, request, ["empty.json"])
    [names] = _of(contract, "names_list")
    assert (names.params["input"], names.params["column"]) == ("parks.geojson", "park_name")
    (tmp_path / "empty.json").write_text(json.dumps(["Prater", "Volksgarten"]))
    assert _results(contract, tmp_path, "names_list") == [True]
    (tmp_path / "empty.json").write_text(json.dumps([12, 13]))  # the codes
    assert _results(contract, tmp_path, "names_list") == [False]
    (tmp_path / "empty.json").write_text(json.dumps([{"park_name": "Prater"}]))  # records
    assert _results(contract, tmp_path, "names_list") == [False]
    unnamed = (
        "Which parks of parks.geojson hold no station of stations.geojson? Write empty.json, a JSON array of names."
    )
    assert not _of(_contract(tmp_path, unnamed, ["empty.json"]), "names_list")  # two name columns, no noun
