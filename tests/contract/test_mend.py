"""The mechanical mends on real files: a deliverable failing requirements whose remedy needs no
judgement meets them after its mend, checked by the same in-kernel checker; what the mend cannot
know (a value to compute) is left failing, and a file it cannot read safely gets no mend."""

from __future__ import annotations

import geopandas as gpd
import pandas as pd
from shapely.geometry import MultiPolygon, Polygon

from geoagent_ext.contract import derive_contract
from geoagent_ext.contract.advice import coder_view, mended_values
from geoagent_ext.contract.mend import mend_code

from .test_checks import check, in_folder, input_facts

CW_SQUARE = Polygon([(16.30, 48.20), (16.30, 48.21), (16.31, 48.21), (16.31, 48.20)])  # exterior clockwise


def _all_gating(contract):
    """The contract with its unsure readings made gating: to test their checks and mends themselves
    (a run shows an unsure one and never checks it)."""
    return contract.model_copy(
        update={"requirements": [r.model_copy(update={"sure": True}) for r in contract.requirements]}
    )


def _all_gating_derived(*args, **kwargs):
    """``derive_contract`` with every reading gating (the RFC 7946 winding of a request that does not
    speak of drawing is an unsure one): for tests of the mends themselves."""
    return _all_gating(derive_contract(*args, **kwargs))


def _parcels():
    shifted = Polygon([(x + 0.02, y) for x, y in CW_SQUARE.exterior.coords])
    return gpd.GeoDataFrame(
        {"pid": ["b", "a", "a2", "c"], "units": ["3", "10", "10", "2"], "area_m2": [1.0, 2.0, 2.0, 3.0]},
        geometry=[CW_SQUARE, MultiPolygon([shifted]), MultiPolygon([shifted]), None],
        crs=4326,
    )


def _run_mends(contract, path, folder):
    failed = [r for r in contract.for_output(path) if not check(contract, folder)[r.text][0]]
    found = mend_code(contract, path, failed)
    assert found is not None, failed
    code, mended = found
    in_folder(folder, exec, code, {})
    return failed, mended


def test_a_geoparquet_failing_mechanical_requirements_meets_them_after_its_mend(tmp_path):
    _parcels().to_parquet(tmp_path / "parcels.geoparquet")
    contract = derive_contract(
        "Write `parcels.geoparquet` in EPSG:3035 with every feature as a MultiPolygon, no null or empty geometries "
        "and no duplicate geometries, with `units` as int32, sorted by `units` descending.",
        ["parcels.geoparquet"],
    )
    failed, mended = _run_mends(contract, "parcels.geoparquet", tmp_path)
    assert {r.kind for r in mended} == {
        "crs_epsg",
        "geometry_types",
        "geometries_present",
        "geometries_unique",
        "dtype",
        "sorted",
    }
    assert {r.kind for r in failed} - {r.kind for r in mended} == {"integer"}  # met by the int32 cast
    assert all(ok for ok, _ in check(contract, tmp_path).values()), check(contract, tmp_path)
    out = gpd.read_parquet(tmp_path / "parcels.geoparquet")
    assert list(out["pid"]) == ["a", "b"] and str(out["units"].dtype) == "int32"  # a2 repeats a's geometry


def test_a_csv_is_sorted_as_numbers_and_keeps_its_text(tmp_path):
    pd.DataFrame({"code": ["10", "9", "007"], "name": ["x", "y", "z"]}).to_csv(tmp_path / "t.csv", index=False)
    contract = derive_contract("Write `t.csv` with columns `code` and `name`, sorted by `code` ascending.", ["t.csv"])
    _run_mends(contract, "t.csv", tmp_path)
    assert (tmp_path / "t.csv").read_text().splitlines() == ["code,name", "007,z", "9,y", "10,x"]
    assert all(ok for ok, _ in check(contract, tmp_path).values())


def test_geojson_rings_are_oriented_and_a_value_to_compute_is_left_to_the_model(tmp_path):
    gpd.GeoDataFrame({"pid": ["a"]}, geometry=[CW_SQUARE], crs=4326).to_file(tmp_path / "in.geojson")
    gpd.GeoDataFrame({"pid": ["a"]}, geometry=[CW_SQUARE], crs=4326).to_file(tmp_path / "out.geojson")
    contract = _all_gating_derived(
        "Write `out.geojson` from `in.geojson` with `bbox_wgs84` for each parcel.",
        ["out.geojson"],
        input_facts(tmp_path),
    )
    kinds = {r.kind for r in contract.for_output("out.geojson")}
    assert "rfc7946_winding" in kinds
    failed, mended = _run_mends(contract, "out.geojson", tmp_path)
    assert [r.kind for r in mended] == ["rfc7946_winding"] and "columns" in {r.kind for r in failed}
    seen = check(contract, tmp_path)
    assert all(ok for text, (ok, _) in seen.items() if "right-hand rule" in text)
    assert not all(ok for ok, _ in seen.values())  # the column to compute is still missing


def test_no_mend_for_what_has_no_mechanical_remedy_or_layers_not_named_for_geometry_kinds():
    contract = derive_contract("Write `s.json` with `count`; write `t.csv` with `area_km2`.", ["s.json", "t.csv"])
    assert mend_code(contract, "s.json", contract.for_output("s.json")) is None
    assert mend_code(contract, "t.csv", [r for r in contract.for_output("t.csv") if r.kind != "columns"]) is None
    layered = derive_contract(
        "Write `out.gpkg` with layers `roads` and `parcels`, every feature single-part.", ["out.gpkg"]
    )
    assert "layers" in {r.kind for r in layered.requirements}
    assert mend_code(layered, "out.gpkg", layered.for_output("out.gpkg")) is None


def test_a_geopackage_is_split_into_the_layers_named_for_geometry_kinds(tmp_path):
    from shapely.geometry import LineString, MultiPoint, Point

    mixed = gpd.GeoDataFrame(
        {"site_id": ["s1", "s1", "s2", "s3"]},
        geometry=[
            MultiPoint([(16.30, 48.20), (16.31, 48.20)]),
            LineString([(16.3, 48.2), (16.4, 48.3)]),
            CW_SQUARE,
            Point(16.32, 48.21),
        ],
        crs=4326,
    )
    mixed.to_file(tmp_path / "sites.gpkg", layer="sites", driver="GPKG")
    contract = derive_contract(
        "Write `sites.gpkg` with the layers `points`, `lines` and `polygons`, every feature single-part.",
        ["sites.gpkg"],
    )
    failed, mended = _run_mends(contract, "sites.gpkg", tmp_path)
    assert {r.kind for r in mended} == {r.kind for r in failed} == {"layers", "geometry_types"}
    assert all(ok for ok, _ in check(contract, tmp_path).values()), check(contract, tmp_path)
    assert list(gpd.list_layers(tmp_path / "sites.gpkg")["name"]) == ["points", "lines", "polygons"]
    points = gpd.read_file(tmp_path / "sites.gpkg", layer="points")
    assert list(points["site_id"]) == ["s1", "s1", "s3"] and set(points.geom_type) == {"Point"}
    # The whole frame written to each of the three layers: a split that kept every copy would hold
    # three times the features. The check sees features in several layers, and the mend keeps each
    # feature once.
    for name in ("points", "lines", "polygons"):
        mixed.to_file(tmp_path / "sites.gpkg", layer=name, driver="GPKG")
    layers = next(r for r in contract.requirements if r.kind == "layers")
    passed, observed = check(contract, tmp_path)[layers.text]
    assert not passed and "4 feature(s) are in more than one layer" in observed
    _run_mends(contract, "sites.gpkg", tmp_path)
    assert all(ok for ok, _ in check(contract, tmp_path).values()), check(contract, tmp_path)
    assert sum(len(gpd.read_file(tmp_path / "sites.gpkg", layer=n)) for n in ("points", "lines", "polygons")) == 5
    gpd.GeoDataFrame(geometry=[Point(1, 1)], crs=4326).to_file(tmp_path / "bare.gpkg", layer="points")
    gpd.GeoDataFrame(geometry=[Point(1, 1)], crs=4326).to_file(tmp_path / "bare.gpkg", layer="lines")
    bare = derive_contract("Write `bare.gpkg` with the layers `points` and `lines`.", ["bare.gpkg"])
    bare_layers = next(r for r in bare.requirements if r.kind == "layers")
    assert not check(bare, tmp_path)[bare_layers.text][0]  # no attribute columns: the geometry alone
    # Empty `points` and `lines` layers do not make the check itself fail ("could not check:
    # 'DataFrame' object has no attribute 'tolist'"); an empty layer has no features.
    for name in ("points", "lines"):
        mixed.iloc[:0].to_file(tmp_path / "sites.gpkg", layer=name, driver="GPKG")
    passed, observed = check(contract, tmp_path)[layers.text]
    assert passed and observed == "layers ['lines', 'points', 'polygons']", observed


def test_lines_across_the_antimeridian_are_cut_and_made_multi_part_in_the_files_crs(tmp_path):
    from .test_checks import _transects, input_facts

    _transects().to_file(tmp_path / "t.geojson")
    contract = derive_contract(
        "Reproject `t.geojson` to EPSG:3460 and write `out.geojson`, every feature a MultiLineString.",
        ["out.geojson"],
        input_facts(tmp_path),
    )
    _transects().to_crs(3460).to_file(tmp_path / "out.geojson")
    failed, mended = _run_mends(contract, "out.geojson", tmp_path)
    assert {r.kind for r in mended} == {"antimeridian_cut", "geometry_types"}
    assert all(ok for ok, _ in check(contract, tmp_path).values()), check(contract, tmp_path)
    out = gpd.read_file(tmp_path / "out.geojson")
    assert out.crs.to_epsg() == 3460 and list(out.geom_type) == ["MultiLineString", "MultiLineString"]
    assert len(out.geometry.iloc[1].geoms) == 2  # cut at the antimeridian into two parts


def test_a_file_left_in_degrees_is_reprojected_to_the_advisors_official_grid(tmp_path):
    gpd.GeoDataFrame({"pid": ["a"]}, geometry=[CW_SQUARE], crs=4326).to_file(tmp_path / "out.gpkg")
    contract = derive_contract(
        "Convert the parcels to the national grid and write `out.gpkg`.",
        ["out.gpkg"],
        official_crs="EPSG:31287 (MGI / Austria Lambert)",
    )
    failed, mended = _run_mends(contract, "out.gpkg", tmp_path)
    assert [r.kind for r in mended] == ["crs_projected_metres"]
    assert all(ok for ok, _ in check(contract, tmp_path).values()), check(contract, tmp_path)
    assert gpd.read_file(tmp_path / "out.gpkg").crs.to_epsg() == 31287


def test_of_duplicates_the_mend_keeps_the_row_the_request_says(tmp_path):
    """ "Keep the record with the earliest `record_seq`": not the first in the file."""
    square = MultiPolygon([CW_SQUARE])
    gpd.GeoDataFrame(
        {"parcel_id": ["p1", "p1", "p2"], "record_seq": [7, 3, 5]},
        geometry=[square, square, MultiPolygon([Polygon([(0, 0), (0, 1), (1, 1)])])],
        crs=4326,
    ).to_parquet(tmp_path / "parcels.geoparquet")
    contract = derive_contract(
        "When duplicates exist, keep the record with the earliest record_seq. Write "
        "`parcels.geoparquet` with `parcel_id` unique and no duplicate geometries.",
        ["parcels.geoparquet"],
    )
    uniq = [r for r in contract.requirements if r.kind in ("unique", "geometries_unique")]
    assert len(uniq) == 2 and all(r.params["keep_by"] == "record_seq" and r.params["keep"] == "min" for r in uniq)
    _run_mends(contract, "parcels.geoparquet", tmp_path)
    assert all(ok for ok, _ in check(contract, tmp_path).values()), check(contract, tmp_path)
    out = gpd.read_parquet(tmp_path / "parcels.geoparquet").sort_values("parcel_id")
    assert list(out["record_seq"]) == [3, 5]
    # Without a rule for which stays, a repeated value is the model's to resolve.
    plain = derive_contract("Write `t.csv` with `parcel_id` unique.", ["t.csv"])
    assert mend_code(plain, "t.csv", [r for r in plain.requirements if r.kind != "columns"]) is None


def test_metres_labelled_as_degrees_are_relabelled_not_reprojected(tmp_path):
    """A frame built in EPSG:3460 metres and written with crs=4326 would give infinite coordinates if
    reprojected again. Coordinates no degree has mean the label is wrong: it is relabelled."""
    from .test_checks import _transects, input_facts

    _transects().to_file(tmp_path / "t.geojson")
    contract = derive_contract(
        "Reproject `t.geojson` to EPSG:3460 and write `out.gpkg`.", ["out.gpkg"], input_facts(tmp_path)
    )
    metres = _transects().to_crs(3460)
    metres.set_crs(4326, allow_override=True).to_file(tmp_path / "out.gpkg")
    _run_mends(contract, "out.gpkg", tmp_path)
    out = gpd.read_file(tmp_path / "out.gpkg")
    assert out.crs.to_epsg() == 3460 and out.geometry.geom_equals_exact(metres.geometry, 1e-6).all()


def test_a_keep_rule_the_rules_cannot_read_is_a_note_and_not_mended(tmp_path):
    """ "Keep the most complete record" names which duplicate stays in words no rule reads: keeping
    the first in the file would pass the uniqueness check with the wrong rows, so the mend does not
    run, and the rule is shown as a requirement no code checks."""
    contract = derive_contract(
        "Remove duplicate geometries, keeping the most complete record of each. "
        "Write `parcels.geojson` with no duplicate geometries.",
        ["parcels.geojson"],
    )
    uniq = [r for r in contract.requirements if r.kind == "geometries_unique"]
    notes = [r for r in contract.requirements if r.kind == "note"]
    assert uniq and uniq[0].params["keep"] == "as_requested"
    assert len(notes) == 1 and "most complete record" in notes[0].text and not notes[0].checkable
    assert mend_code(contract, "parcels.geojson", uniq) is None
    # The plain request (no rule) keeps the first, as before.
    plain = derive_contract("Write `parcels.geojson` with no duplicate geometries.", ["parcels.geojson"])
    assert mend_code(plain, "parcels.geojson", [r for r in plain.requirements if r.kind == "geometries_unique"])
    for any_one in ("Drop duplicate geometries, keeping one copy of each.", "Keep the first occurrence of duplicates."):
        contract = derive_contract(
            any_one + " Write `parcels.geojson` with no duplicate geometries.", ["parcels.geojson"]
        )
        assert not [r for r in contract.requirements if r.kind == "note"], any_one
        assert mend_code(
            contract, "parcels.geojson", [r for r in contract.requirements if r.kind == "geometries_unique"]
        )


def test_counts_per_polygon_are_counted_and_their_rate_recomputed(tmp_path):
    """The total station count written on every district's row passes a rate computed from it,
    though both are wrong. A count of points per polygon has one
    definition: the mend counts them by location, carries them to the rows by the key the file
    shares with the polygons ("01" and 1 alike), and recomputes the rate over the new count."""
    from shapely.geometry import Point, box

    districts = gpd.GeoDataFrame(
        {"code": ["01", "02", "03"], "name": ["Mitte", "Nord", "Leer"]},
        geometry=[box(0, 0, 1000, 1000), box(1000, 0, 2000, 1000), box(2000, 0, 3000, 1000)],
        crs=31287,
    )
    districts.to_file(tmp_path / "districts.geojson")
    gpd.GeoDataFrame(
        {"sid": range(5)}, geometry=[Point(1, 1), Point(2, 2), Point(3, 3), Point(1200, 5), Point(1500, 5)], crs=31287
    ).to_crs(4326).to_file(tmp_path / "stations.geojson")
    request = (
        "Count the stations of `stations.geojson` in every district of `districts.geojson` and write "
        "`per_district.csv` with `code`, `name`, `area_km2`, `station_count` and `stations_per_km2`."
    )
    contract = derive_contract(request, ["per_district.csv"], input_facts(tmp_path))
    assert {"point_counts", "density"} <= {r.kind for r in contract.requirements}
    pd.DataFrame(
        {
            "code": [3, 1, 2],
            "name": ["Leer", "Mitte", "Nord"],
            "area_km2": [1.0, 1.0, 1.0],
            "station_count": [5, 5, 5],
            "stations_per_km2": [5.0, 5.0, 5.0],
        }
    ).to_csv(tmp_path / "per_district.csv", index=False)
    failed, mended = _run_mends(contract, "per_district.csv", tmp_path)
    assert [r.kind for r in failed if r.kind in ("point_counts", "density")] == ["point_counts"]
    assert {r.kind for r in mended} >= {"point_counts", "density"}  # the rate held over the wrong count
    out = pd.read_csv(tmp_path / "per_district.csv")
    assert list(out["station_count"]) == [0, 3, 2] and list(out["stations_per_km2"]) == [0.0, 3.0, 2.0]
    assert all(ok for ok, _ in check(contract, tmp_path).values()), check(contract, tmp_path)
    # The stations' rows written (a district per station, no area): the
    # table is rebuilt one row per district, its name from the districts, the areas measured and the
    # rate taken over both; a value of the old rows is carried by key.
    pd.DataFrame(
        {
            "sid": [0, 1, 3],
            "code": ["01", "01", "02"],
            "name": ["s0", "s1", "s3"],
            "note": ["a", "a", "b"],
            "station_count": [9, 9, 9],
        }
    ).to_csv(tmp_path / "per_district.csv", index=False)
    failed, mended = _run_mends(contract, "per_district.csv", tmp_path)
    assert {"point_counts", "measure_units", "density", "columns"} <= {r.kind for r in mended}
    out = pd.read_csv(tmp_path / "per_district.csv")
    assert list(out.columns) == ["code", "name", "area_km2", "station_count", "stations_per_km2"]
    assert list(out["name"]) == ["Mitte", "Nord", "Leer"] and list(out["station_count"]) == [3, 2, 0]
    assert all(ok for ok, _ in check(contract, tmp_path).values()), check(contract, tmp_path)
    # One mend that cannot apply leaves the others: no key column at all, the order still made.
    pd.DataFrame({"name": ["b", "a"]}).to_csv(tmp_path / "per_district.csv", index=False)
    _run_mends(contract, "per_district.csv", tmp_path)
    assert list(pd.read_csv(tmp_path / "per_district.csv")["name"]) == ["b", "a"]
    # The file's own polygons take their counts without a key.
    counted = derive_contract(
        request.replace("per_district.csv", "counted.geojson"), ["counted.geojson"], input_facts(tmp_path)
    )
    districts.assign(area_km2=1.0, station_count=1, stations_per_km2=1.0).to_file(tmp_path / "counted.geojson")
    _run_mends(counted, "counted.geojson", tmp_path)
    out = gpd.read_file(tmp_path / "counted.geojson")
    assert list(out["station_count"]) == [3, 2, 0] and list(out["stations_per_km2"]) == [3.0, 2.0, 0.0]


def test_a_csv_loses_a_geometry_or_index_column_it_was_not_asked_for(tmp_path):
    """A CSV whose columns the request lists has no geometry or row-index column beside them (as a
    ``to_csv`` of a whole joined GeoDataFrame leaves); the mend drops those and puts the listed ones
    first, in their order. Beside an open list ("including") other extra columns stay (the rules may
    not have read every column asked for), and so does a geometry the request wants as WKT."""
    contract = derive_contract("Write `t.csv` with columns including `code`, `name` and `n`.", ["t.csv"])
    [cols] = [r for r in contract.requirements if r.kind == "columns"]
    assert cols.params["no_stray"] and "no geometry or row-index column beside them" in cols.text
    pd.DataFrame(
        {"Unnamed: 0": [0], "n": [3], "geometry": ["POINT (1 2)"], "name": ["a"], "note": ["x"], "code": ["01"]}
    ).to_csv(tmp_path / "t.csv", index=False)
    passed, observed = check(contract, tmp_path)[cols.text]
    assert not passed and observed == "also has ['Unnamed: 0', 'geometry'], a geometry or row index not asked for"
    _run_mends(contract, "t.csv", tmp_path)
    assert (tmp_path / "t.csv").read_text().splitlines() == ["code,name,n,note", "01,a,3,x"]
    assert all(ok for ok, _ in check(contract, tmp_path).values())
    wkt = derive_contract("Write `t.csv` with `code` and the geometry as WKT.", ["t.csv"])
    assert not [r for r in wkt.requirements if r.params.get("no_stray")]
    plain = derive_contract("Write `t.csv` with `code` and `n`, with no geometry column.", ["t.csv"])
    assert [r for r in plain.requirements if r.params.get("no_stray")]


def test_a_time_column_cast_from_numbers_keeps_the_input_instants(tmp_path):
    """`recorded_at` stored as epoch milliseconds and cast to `timestamp[us]` is read as nanoseconds
    and written as 1970 dates, which pass the type check. A converted column keeps the input's values
    (a requirement of its own), and numbers are read in the epoch unit their size says."""
    from shapely.geometry import Point

    pd.DataFrame(
        {
            "id": ["a", "b"],
            "recorded_at": ["2024-01-01T00:00:00Z", "2024-01-12T07:13:17Z"],
            "unit_count": ["0", "3"],
            "geometry_wkt": ["POINT (1 2)", "POINT (3 4)"],
        }
    ).to_csv(tmp_path / "in.csv", index=False)
    contract = derive_contract(
        "Convert `in.csv` to `out.geoparquet`: `recorded_at` as `timestamp[us]`, `unit_count` as `int32`.",
        ["out.geoparquet"],
        input_facts(tmp_path),
    )
    kept = [r for r in contract.requirements if r.kind == "values_from_input" and r.params.get("as_type")]
    assert sorted(r.params["name"] for r in kept) == ["recorded_at", "unit_count"]
    millis = pd.to_datetime(pd.Series(["2024-01-01T00:00:00Z", "2024-01-12T07:13:17Z"])).astype("int64") // 1_000_000
    frame = gpd.GeoDataFrame(
        {"id": ["a", "b"], "recorded_at": millis, "unit_count": [0, 3]}, geometry=[Point(1, 2), Point(3, 4)], crs=4326
    )
    frame.assign(recorded_at=pd.to_datetime(millis).astype("datetime64[us]")).to_parquet(tmp_path / "out.geoparquet")
    [times] = [r for r in kept if r.params["name"] == "recorded_at"]
    passed, observed = check(contract, tmp_path)[times.text]
    assert not passed and "1970-01-01" in observed and "2024-01-01T00:00:00+00:00" in observed  # the type alone held
    frame.to_parquet(tmp_path / "out.geoparquet")  # the numbers themselves, as the step wrote them
    _run_mends(contract, "out.geoparquet", tmp_path)
    out = gpd.read_parquet(tmp_path / "out.geoparquet")
    assert [str(t) for t in out["recorded_at"]] == ["2024-01-01 00:00:00", "2024-01-12 07:13:17"]
    assert all(ok for ok, _ in check(contract, tmp_path).values()), check(contract, tmp_path)
    from geoagent_ext.contract.advice import repair_line

    frame.assign(recorded_at=pd.to_datetime(millis).astype("datetime64[us]")).to_parquet(tmp_path / "out.geoparquet")
    line = repair_line(times, check(contract, tmp_path)[times.text][1])
    assert (
        "df['recorded_at'] = pd.to_datetime(df['recorded_at'], utc=True).dt.tz_localize(None).astype('datetime64[us]')"
        in line
    )


def test_a_code_read_as_float_is_stored_as_its_digits(tmp_path):
    """Postcodes read by `read_csv` as float64 would be stored as "10002.0" by a plain cast to string;
    whole numbers are written as their digits, a missing one stays missing."""
    from shapely.geometry import Point

    gpd.GeoDataFrame(
        {"postcode": [10002.0, None], "note": [1.5, 2.0]}, geometry=[Point(0, 0), Point(1, 1)], crs=4326
    ).to_parquet(tmp_path / "a.geoparquet")
    contract = derive_contract("Write `a.geoparquet` with all other columns as string.", ["a.geoparquet"])
    _run_mends(contract, "a.geoparquet", tmp_path)
    out = gpd.read_parquet(tmp_path / "a.geoparquet")
    assert out["postcode"].tolist()[0] == "10002" and pd.isna(out["postcode"].tolist()[1])
    assert out["note"].tolist() == ["1.5", "2.0"]


def test_polygons_written_beside_the_points_become_the_files_geometry_in_its_crs(tmp_path):
    # `gdf['buffered'] = gdf.buffer(400)` in metres, then the frame taken to EPSG:4326 and written:
    # GeoParquet keeps the points as the geometry and the polygons beside them, in the metric CRS.
    # The mend makes the polygons the geometry, in the file's CRS.
    from shapely.geometry import Point

    stops = gpd.GeoDataFrame({"stop_id": ["a", "b"]}, geometry=[Point(139.70, 35.68), Point(139.71, 35.69)], crs=4326)
    stops.to_file(tmp_path / "stops.geojson")
    contract = derive_contract(
        "Buffer every stop of `stops.geojson` by 400 m and write the polygons to `zones.geoparquet` "
        "with `stop_id`, every feature a Polygon or MultiPolygon.",
        ["zones.geoparquet"],
        input_facts(tmp_path),
    )
    written = stops.to_crs(32654)
    written["buffered"] = written.buffer(400)
    written.to_crs(4326).to_parquet(tmp_path / "zones.geoparquet")
    failed, mended = _run_mends(contract, "zones.geoparquet", tmp_path)
    assert {"geometry_types", "buffer_distance"} <= {r.kind for r in failed} and [r.kind for r in mended] == [
        "geometry_types"
    ]
    assert all(ok for ok, _ in check(contract, tmp_path).values()), check(contract, tmp_path)
    out = gpd.read_parquet(tmp_path / "zones.geoparquet")
    assert (
        list(out.columns) == ["stop_id", "geometry"] and set(out.geom_type) == {"Polygon"} and out.crs.to_epsg() == 4326
    )
    # Without such a column there is nothing to promote: points stay points, and the check says so.
    stops.to_parquet(tmp_path / "zones.geoparquet")
    _run_mends(contract, "zones.geoparquet", tmp_path)
    assert not all(ok for ok, _ in check(contract, tmp_path).values())


def _clinics(folder):
    """A CSV of points as WKT text in three subdistricts (one with no clinic written below)."""
    pd.DataFrame(
        {
            "name": ["a", "b", "c", "d"],
            "subdistrict": ["North", "North", "South", "East"],
            "wkt": ["POINT (18.40 -33.90)", "POINT (18.45 -33.95)", "POINT (18.60 -34.05)", "POINT (18.70 -33.99)"],
        }
    ).to_csv(folder / "clinics.csv", index=False)


def test_a_json_bbox_and_per_group_counts_in_pandas_shapes_are_reshaped_keeping_the_values(tmp_path):
    import json

    _clinics(tmp_path)
    contract = derive_contract(
        "From `clinics.csv`, write `inventory.json` with keys `count`, `bbox` (the overall "
        "bounding box) and `count_per_subdistrict`.",
        ["inventory.json"],
        input_facts(tmp_path),
    )
    assert {r.kind for r in contract.requirements} >= {"bbox", "group_keys"}
    # Pandas shapes: per-feature bounds, a frame's to_dict(); its counts are its own (South's 5 is
    # wrong) and East, with none counted, is left out.
    doc = {
        "count": 4,
        "bbox": {
            "minx": {"0": 18.40, "1": 18.45},
            "miny": {"0": -33.90, "1": -33.95},
            "maxx": {"0": 18.40, "1": 18.45},
            "maxy": {"0": -33.90, "1": -33.95},
        },
        "count_per_subdistrict": {"subdistrict": {"0": "North", "1": "South"}, "count": {"0": 2, "1": 5}},
    }
    (tmp_path / "inventory.json").write_text(json.dumps(doc))
    failed, mended = _run_mends(contract, "inventory.json", tmp_path)
    assert {r.kind for r in mended} == {"bbox", "group_keys"}
    assert {r.kind for r in failed} - {"bbox", "group_keys"} == {"integer"}  # the frame's names were not counts
    out = json.loads((tmp_path / "inventory.json").read_text())
    assert out["bbox"] == [18.40, -34.05, 18.70, -33.90]  # the whole layer's, from its WKT
    assert out["count_per_subdistrict"] == {"North": 2, "South": 5, "East": 0}  # reshaped, not recounted
    assert out["count"] == 4
    # Reshaped, the wrong count is still wrong: the check counts each group's rows and says so (left to the model).
    grouped = next(r for r in contract.requirements if r.kind == "group_keys")
    seen = check(contract, tmp_path)
    assert all(ok for text, (ok, _) in seen.items() if text != grouped.text), seen
    assert not seen[grouped.text][0] and "South: 5 (counted" in seen[grouped.text][1], seen[grouped.text]


def test_a_lon_lat_bbox_of_a_projected_layer_is_taken_in_lon_lat(tmp_path):
    import json

    gpd.GeoDataFrame({"pid": ["a", "b"]}, geometry=[CW_SQUARE, CW_SQUARE.buffer(0.05)], crs=4326).to_crs(
        3035
    ).to_parquet(tmp_path / "parcels.geoparquet")
    contract = derive_contract(
        "Write `extent.json` with `bbox_wgs84`, the overall bounding box of `parcels.geoparquet`.",
        ["extent.json"],
        input_facts(tmp_path),
    )
    in_metres = list(map(float, gpd.read_parquet(tmp_path / "parcels.geoparquet").total_bounds))
    (tmp_path / "extent.json").write_text(json.dumps({"bbox_wgs84": in_metres}))
    failed, mended = _run_mends(contract, "extent.json", tmp_path)
    assert [r.kind for r in failed] == ["lonlat"] == [r.kind for r in mended]  # the metres are the layer's: bbox held
    box = json.loads((tmp_path / "extent.json").read_text())["bbox_wgs84"]
    assert abs(box[0] - 16.25) < 1e-3 and abs(box[3] - 48.26) < 1e-3, box
    assert all(ok for ok, _ in check(contract, tmp_path).values()), check(contract, tmp_path)


def test_a_per_group_value_in_another_shape_keeps_its_values_and_only_counts_get_zeros():
    from geoagent_ext.kernel.inkernel import load

    reshape = load()._contract_group_object
    groups = ["North", "South", 3.0]
    records = [{"subdistrict": "North", "area": 1.5}, {"subdistrict": "South", "area": 2.5}]
    assert reshape(records, "subdistrict", groups) == {"North": 1.5, "South": 2.5}  # not a count: no zero for 3
    assert reshape({"n": {"North": 1, "3": 2}}, "subdistrict", groups, fill=0) == {"North": 1, "3": 2, "South": 0}
    unknown = {"North": 1, "West": 2}  # a key that is no group's: not ours to drop or fill
    assert reshape(unknown, "subdistrict", groups, fill=0) == unknown


def _addresses_and_hospitals(folder):
    """Three addresses and two hospitals in Cape Town, as GeoParquet (`.parquet`, as the dev task has them)."""
    from shapely.geometry import Point

    gpd.GeoDataFrame(
        {"address_id": ["A1", "A2", "A3"]},
        geometry=[Point(18.42, -33.92), Point(18.50, -33.95), Point(18.60, -34.00)],
        crs=4326,
    ).to_parquet(folder / "addresses.parquet")
    gpd.GeoDataFrame(
        {"name": ["Groote Schuur", "Tygerberg"]}, geometry=[Point(18.46, -33.94), Point(18.61, -33.91)], crs=4326
    ).to_parquet(folder / "hospitals.parquet")


_NEAREST_REQUEST = (
    "For every address in `addresses.parquet`, find the nearest hospital from `hospitals.parquet` and record "
    "the distance in metres. Write `nearest.gpkg` with one feature per input address and the columns "
    "`address_id`, `nearest_hospital_name` and `distance_m`."
)


def test_a_distance_to_the_nearest_feature_is_checked_and_measured_by_the_mend(tmp_path):
    """`sjoin['distance_m'] = sjoin.distance(sjoin.geometry)` writes 0.0 on every row and passes
    "finite and >= 0": the distance to the nearest feature is checked, and measured by the mend."""
    _addresses_and_hospitals(tmp_path)
    request = _NEAREST_REQUEST
    contract = derive_contract(request, ["nearest.gpkg"], input_facts(tmp_path))
    [near] = [r for r in contract.requirements if r.kind == "nearest_distance"]
    assert near.params == {"name": "distance_m", "unit": "m", "input": "addresses.parquet", "to": "hospitals.parquet"}
    rows = gpd.read_parquet(tmp_path / "addresses.parquet").assign(nearest_hospital_name="x", distance_m=0.0)
    rows.to_file(tmp_path / "nearest.gpkg")
    passed, observed = check(contract, tmp_path)[near.text]
    assert not passed and "on 3 of 3 rows" in observed, observed
    failed, mended = _run_mends(contract, "nearest.gpkg", tmp_path)
    assert [r.kind for r in mended] == ["nearest_distance", "nearest_attribute"]  # the names "x" too
    assert check(contract, tmp_path)[near.text][0], check(contract, tmp_path)[near.text]
    from pyproj import Geod

    metres = gpd.read_file(tmp_path / "nearest.gpkg")["distance_m"].tolist()
    geodesic = Geod(ellps="WGS84").inv(18.42, -33.92, 18.46, -33.94)[2]  # A1's nearest: Groote Schuur
    assert abs(metres[0] - geodesic) < 0.005 * geodesic, (metres, geodesic)
    # A table keyed by the address's id: measured from the input feature of that key, in km.
    (tmp_path / "nearest.gpkg").unlink()
    table = derive_contract(
        request.replace("Write `nearest.gpkg` with one feature", "Write `near.csv` with one row").replace(
            "`distance_m`", "`dist_km`"
        ),
        ["near.csv"],
        input_facts(tmp_path),
    )
    pd.DataFrame({"address_id": ["A3", "A1", "A2"], "dist_km": [1.0, 2.0, 3.0]}).to_csv(
        tmp_path / "near.csv", index=False
    )
    [near] = [r for r in table.requirements if r.kind == "nearest_distance"]
    assert not check(table, tmp_path)[near.text][0]
    _run_mends(table, "near.csv", tmp_path)
    assert check(table, tmp_path)[near.text][0], check(table, tmp_path)[near.text]
    assert abs(pd.read_csv(tmp_path / "near.csv")["dist_km"][1] - geodesic / 1000) < 0.005 * geodesic / 1000  # A1
    by_road = derive_contract(
        request.replace("find the nearest hospital", "find the nearest hospital by road"),
        ["nearest.gpkg"],
        input_facts(tmp_path),
    )
    assert "nearest_distance" not in {r.kind for r in by_road.requirements}  # not a straight line


def test_a_column_an_input_holds_is_carried_to_the_rows_by_their_shared_key(tmp_path):
    """Counts per district right but `district_name` (the districts' `name`) never joined in: the
    mend takes it from the input row of each file row's key; a column no key carries is left to
    the model."""
    squares = [Polygon([(x, 0), (x, 1), (x + 1, 1), (x + 1, 0)]) for x in range(3)]
    gpd.GeoDataFrame(
        {"district_code": [1, 2, 3], "name": ["Innere Stadt", "Leopoldstadt", "Landstraße"]}, geometry=squares, crs=4326
    ).to_file(tmp_path / "districts.geojson")
    request = (
        "Count the stations in each district of `districts.geojson` and write `per_district.csv` with "
        "`district_code`, `district_name` and `station_count`."
    )
    contract = _all_gating_derived(request, ["per_district.csv"], input_facts(tmp_path))
    [cols] = [r for r in contract.requirements if r.kind == "columns"]
    assert cols.params["provenance"]["district_name"] == "the `name` column of `districts.geojson` (joined), renamed"
    pd.DataFrame({"district_code": ["03", "1", "2"], "station_count": [0, 2, 1]}).to_csv(
        tmp_path / "per_district.csv", index=False
    )
    assert not check(contract, tmp_path)[cols.text][0]
    _run_mends(contract, "per_district.csv", tmp_path)
    assert (tmp_path / "per_district.csv").read_text(encoding="utf-8").splitlines() == [
        "district_code,district_name,station_count",
        "03,Landstraße,0",
        "1,Innere Stadt,2",
        "2,Leopoldstadt,1",
    ]
    assert check(contract, tmp_path)[cols.text][0]
    # A GeoJSON lacking a column the input has under the same name: carried by the key too.
    named = _all_gating_derived(
        "Write `d.geojson` with the districts of `districts.geojson` and their `district_code` and `name`.",
        ["d.geojson"],
        input_facts(tmp_path),
    )
    gpd.read_file(tmp_path / "districts.geojson")[["district_code", "geometry"]].to_file(tmp_path / "d.geojson")
    _run_mends(named, "d.geojson", tmp_path)
    assert gpd.read_file(tmp_path / "d.geojson")["name"].tolist() == ["Innere Stadt", "Leopoldstadt", "Landstraße"]
    # No key in common: nothing carried, the failure stays the model's.
    pd.DataFrame({"station_count": [0, 2, 1]}).to_csv(tmp_path / "per_district.csv", index=False)
    code, _ = mend_code(contract, "per_district.csv", [cols])
    in_folder(tmp_path, exec, code, {})
    assert list(pd.read_csv(tmp_path / "per_district.csv").columns) == ["station_count"]


def test_the_nearest_features_name_is_checked_and_taken_by_the_mend(tmp_path):
    """`near['nearest_hospital_name'] = hospitals['name']` aligns the hospitals to the addresses by
    index, which a check of the distance alone does not see. A column that carries the other layer's
    column (`nearest_hospital_name` <- `name` of `hospitals.parquet`) is checked to be the nearest
    feature's, and the mend takes it so."""
    _addresses_and_hospitals(tmp_path)
    request = _NEAREST_REQUEST
    contract = derive_contract(request, ["nearest.gpkg"], input_facts(tmp_path))
    [named] = [r for r in contract.requirements if r.kind == "nearest_attribute"]
    assert named.params == {
        "name": "nearest_hospital_name",
        "column": "name",
        "input": "addresses.parquet",
        "to": "hospitals.parquet",
    }
    rows = gpd.read_parquet(tmp_path / "addresses.parquet").assign(
        nearest_hospital_name=["Groote Schuur", "Tygerberg", "Tygerberg"]
    )
    rows.to_file(tmp_path / "nearest.gpkg")
    passed, observed = check(contract, tmp_path)[named.text]
    assert not passed and "on 1 of 3 rows (e.g. 'Tygerberg', nearest 'Groote Schuur')" in observed, observed  # A2
    failed, mended = _run_mends(contract, "nearest.gpkg", tmp_path)
    assert "nearest_attribute" in [r.kind for r in mended]
    assert gpd.read_file(tmp_path / "nearest.gpkg")["nearest_hospital_name"].tolist() == [
        "Groote Schuur",
        "Groote Schuur",
        "Tygerberg",
    ]
    assert check(contract, tmp_path)[named.text] == (
        True,
        "`nearest_hospital_name` is the `name` of the nearest feature of `hospitals.parquet` on all 3 rows",
    )
    # A table keyed by the address's id: its rows' features are the input's of that key.
    (tmp_path / "nearest.gpkg").unlink()
    table = derive_contract(
        request.replace("Write `nearest.gpkg` with one feature", "Write `near.csv` with one row"),
        ["near.csv"],
        input_facts(tmp_path),
    )
    [named] = [r for r in table.requirements if r.kind == "nearest_attribute"]
    pd.DataFrame(
        {
            "address_id": ["A3", "A1", "A2"],
            "nearest_hospital_name": ["Tygerberg", "Groote Schuur", "Groote Schuur"],
            "distance_m": [0.0, 0.0, 0.0],
        }
    ).to_csv(tmp_path / "near.csv", index=False)
    assert check(table, tmp_path)[named.text][0], check(table, tmp_path)[named.text]


def _geometry_left_alone(src, folder):
    """``src`` written as the input, and the contract of a typing request that leaves its geometry
    alone, with its ``geometry_unchanged`` requirement."""
    src.to_file(folder / "in.geojson")
    contract = _all_gating_derived(
        "Write `out.geojson` from `in.geojson` with `sid` as integers. Leave the geometry alone.",
        ["out.geojson"],
        input_facts(folder),
    )
    [kept] = [r for r in contract.requirements if r.kind == "geometry_unchanged"]
    return contract, kept


def test_geometry_left_alone_but_reprojected_gets_the_input_s_own_shapes_back(tmp_path):
    """The request leaves the geometry alone and the step writes it in EPSG:10594. Row for row the
    input's shapes once back in its CRS: the mend puts the input's own geometries and CRS back;
    other shapes it leaves failing."""
    src = gpd.GeoDataFrame({"sid": ["1", "2"]}, geometry=[CW_SQUARE, CW_SQUARE.centroid], crs=4326)
    contract, kept = _geometry_left_alone(src, tmp_path)
    src.assign(sid=[1, 2]).to_crs(10594).to_file(tmp_path / "out.geojson")
    failed, mended = _run_mends(contract, "out.geojson", tmp_path)
    assert kept in failed and kept in mended
    assert check(contract, tmp_path)[kept.text] == (True, "every geometry is one of in.geojson's, same CRS")
    assert gpd.read_file(tmp_path / "out.geojson")["sid"].tolist() == [1, 2]  # the file's own values stay
    # Moved shapes are not the input's: the mend leaves them, and the requirement fails still.
    src.assign(geometry=src.geometry.translate(0.01, 0)).to_crs(10594).to_file(tmp_path / "out.geojson")
    _run_mends(contract, "out.geojson", tmp_path)
    assert check(contract, tmp_path)[kept.text][0] is False


def test_geometry_left_alone_but_lost_comes_back_when_the_rows_are_the_inputs_in_order(tmp_path):
    """Typed columns put in a new GeoDataFrame without a geometry give a file with none
    (`"geometry": null` in every feature). Its rows are the
    input's, in order (a column whose input values are all distinct reads the same row for row), so
    the mend puts the input's shapes back; rows in another order get nothing and still fail."""
    shapes = [CW_SQUARE, CW_SQUARE.centroid, CW_SQUARE.exterior]
    src = gpd.GeoDataFrame({"sid": ["1", "2", "3"], "name": ["a", "b", "c"]}, geometry=shapes, crs=4326)
    contract, kept = _geometry_left_alone(src, tmp_path)
    lost = gpd.GeoDataFrame({"sid": [1, 2, 3], "name": ["a", "b", "c"]})
    lost.to_file(tmp_path / "out.geojson", driver="GeoJSON")
    failed, mended = _run_mends(contract, "out.geojson", tmp_path)
    assert kept in failed and kept in mended
    assert check(contract, tmp_path)[kept.text] == (True, "every geometry is one of in.geojson's, same CRS")
    out = gpd.read_file(tmp_path / "out.geojson")
    assert out["sid"].tolist() == [1, 2, 3] and out.geom_type.tolist() == ["Polygon", "Point", "LineString"]
    # Rows in another order: nothing tells which shape is whose, so the mend leaves the file failing.
    gpd.GeoDataFrame(lost.iloc[[2, 0, 1]]).to_file(tmp_path / "out.geojson", driver="GeoJSON")
    _run_mends(contract, "out.geojson", tmp_path)
    assert check(contract, tmp_path)[kept.text][0] is False


def test_polygons_the_request_discards_below_an_area_are_checked_and_dropped(tmp_path):
    """ "Discard any polygon fragments smaller than 1 m²" is a requirement of its own: slivers left
    in fail it though every other requirement holds, and the mend drops them."""
    side = 1e-5  # about 1.1 m by 1.1 m at 30°N: above 1 m²; half of it is below
    parcels = gpd.GeoDataFrame(
        {"pid": ["a", "b", "c"]},
        crs=4326,
        geometry=[
            Polygon([(31.2, 30.0), (31.2 + side, 30.0), (31.2 + side, 30.0 + side), (31.2, 30.0 + side)]),
            Polygon([(31.3, 30.0), (31.3 + side / 2, 30.0), (31.3 + side / 2, 30.0 + side), (31.3, 30.0 + side)]),
            CW_SQUARE,
        ],
    )
    parcels.to_parquet(tmp_path / "out.geoparquet")
    contract = derive_contract(
        "Clean the parcels and discard any polygon fragments smaller than 1 m². Write `out.geoparquet`.",
        ["out.geoparquet"],
    )
    [small] = [r for r in contract.requirements if r.kind == "min_area"]
    assert small.text == "no polygon is smaller than 1 m² (those are discarded)" and small.params["m2"] == 1.0
    passed, observed = check(contract, tmp_path)[small.text]
    assert not passed and observed == "1 of 3 features are smaller than 1 m² (smallest 0.535 m²)", observed
    failed, mended = _run_mends(contract, "out.geoparquet", tmp_path)
    assert small in failed and small in mended
    assert check(contract, tmp_path)[small.text] == (True, "no polygon is smaller than 1 m²")
    assert gpd.read_parquet(tmp_path / "out.geoparquet")["pid"].tolist() == ["a", "c"]
    hectares = derive_contract("Drop parcels under 0.5 ha and write `p.geojson`.", ["p.geojson"])
    assert [r.params["m2"] for r in hectares.requirements if r.kind == "min_area"] == [5000.0]


def test_features_reshaped_where_the_request_asked_for_none_get_their_input_shapes_back(tmp_path):
    """Polygons simplified (up to 80 m) in a conversion that asked only for single parts and a
    national grid: the mend puts back, for each feature, the input's shape or part nearest it,
    reprojected as the file is; features already kept stay as they are."""
    from shapely.geometry import LineString, Point, box

    ring = [(31.20 + 0.001 * i, 30.00 + 0.0005 * (i % 2)) for i in range(20)]
    poly = Polygon(ring + [(31.22, 30.02), (31.20, 30.02)])
    src = gpd.GeoDataFrame(
        {"site_id": ["a", "b", "c"]},
        crs=4326,
        geometry=[MultiPolygon([poly, box(31.3, 30.1, 31.31, 30.11)]), LineString(ring), Point(31.25, 30.05)],
    )
    src.to_file(tmp_path / "sites.geojson")
    contract = _all_gating(
        derive_contract(
            "Give me back `sites.gpkg`, every feature single-part, keeping `site_id`. Use Egypt's national grid.",
            ["sites.gpkg"],
            input_facts(tmp_path),
        )
    )
    # the same request with the CRS advisor's official grid (its mend's target)
    advised = _all_gating(
        derive_contract(
            "Give me back `sites.gpkg`, every feature single-part, keeping `site_id`. Use Egypt's national grid.",
            ["sites.gpkg"],
            input_facts(tmp_path),
            official_crs="EPSG:22992 (Egypt 1907 / Red Belt)",
        )
    )
    kept = next(r for r in contract.requirements if r.kind == "shapes_kept")
    parts = src.explode(index_parts=False)
    simplified = parts.set_geometry(parts.simplify(0.01)).to_crs(22992)
    simplified.to_file(tmp_path / "sites.gpkg")
    failed, mended = _run_mends(contract, "sites.gpkg", tmp_path)
    assert kept in failed and kept in mended
    assert all(ok for ok, _ in check(contract, tmp_path).values()), check(contract, tmp_path)
    out = gpd.read_file(tmp_path / "sites.gpkg")
    want = parts.to_crs(22992)
    assert list(out["site_id"]) == list(want["site_id"]) and out.crs.to_epsg() == 22992
    assert all(a.hausdorff_distance(b) < 1.0 for a, b in zip(out.geometry.values, want.geometry.values))
    # Lon/lat degrees labelled as the national grid (`gdf.crs = 22992`, never reprojected): the CRS mend
    # reads them as degrees and reprojects them, and the shapes mend puts back the simplified ones.
    simplified = parts.set_geometry(parts.simplify(0.01))
    simplified.set_crs(22992, allow_override=True).to_file(tmp_path / "sites.gpkg")
    failed, _ = _run_mends(advised, "sites.gpkg", tmp_path)
    assert kept.text in {r.text for r in failed}
    assert all(ok for ok, _ in check(advised, tmp_path).values()), check(advised, tmp_path)
    out = gpd.read_file(tmp_path / "sites.gpkg")
    assert all(a.hausdorff_distance(b) < 1.0 for a, b in zip(out.geometry.values, want.geometry.values))
    # Moved, not reshaped: shapes 100 km off lie far from every input shape, and the nearest input
    # shape is some other feature's: the mend puts none back.
    want.translate(100_000, 100_000).to_file(tmp_path / "sites.gpkg")
    failed, _ = _run_mends(contract, "sites.gpkg", tmp_path)
    assert kept in failed
    passed, observed = check(contract, tmp_path)[kept.text]
    assert not passed and "off by up to" in observed, observed
    # A polygon's outline is at Hausdorff distance 0 from it: shapes are compared with the input's
    # of the same dimension, so outlines of an input of polygons are not its shapes.
    polygons = tmp_path / "polygons"
    polygons.mkdir()
    src.iloc[:1].to_file(polygons / "sites.geojson")
    contract = _all_gating(
        derive_contract(
            "Give me back `sites.gpkg`, every feature single-part, keeping `site_id`.",
            ["sites.gpkg"],
            input_facts(polygons),
        )
    )
    kept = next(r for r in contract.requirements if r.kind == "shapes_kept")
    outlines = src.iloc[:1].explode(index_parts=False)
    outlines.set_geometry(outlines.boundary).to_file(polygons / "sites.gpkg")
    passed, observed = check(contract, polygons)[kept.text]
    assert not passed and "2 of a kind (point, line, polygon) it has none of" in observed, observed


def test_invalid_features_are_repaired_before_small_ones_are_discarded(tmp_path):
    """Discarding polygons under 1 m² before repairing the invalid ones would drop a self-intersecting
    parcel (whose lobes cancel: an area near 0) with the slivers, though the contract keeps it
    repaired. Repaired first, each keeps its own area."""
    bowtie = Polygon([(31.2, 30.0), (31.201, 30.001), (31.201, 30.0), (31.2, 30.001)])
    side = 1e-6  # about 0.1 m by 0.1 m: a sliver
    sliver = Polygon([(31.3, 30.0), (31.3 + side, 30.0), (31.3 + side, 30.0 + side), (31.3, 30.0 + side)])
    square = Polygon([(31.4, 30.0), (31.401, 30.0), (31.401, 30.001), (31.4, 30.001)])
    parcels = gpd.GeoDataFrame({"pid": ["a", "b", "c"]}, geometry=[bowtie, sliver, square], crs=4326)
    parcels.to_file(tmp_path / "legacy.geojson")
    parcels.to_parquet(tmp_path / "clean.geoparquet")
    contract = derive_contract(
        "Clean legacy.geojson into clean.geoparquet with one record per pid: discard polygon fragments smaller "
        "than 1 m², and no invalid geometries.",
        ["clean.geoparquet"],
        input_facts(tmp_path),
    )
    kinds = {r.kind for r in contract.requirements}
    assert {"min_area", "geometries_valid"} <= kinds
    _run_mends(contract, "clean.geoparquet", tmp_path)
    out = gpd.read_parquet(tmp_path / "clean.geoparquet")
    assert out["pid"].tolist() == ["a", "c"] and out.is_valid.all()
    assert all(ok for ok, _ in check(contract, tmp_path).values())


def test_a_geoparquet_s_geometry_column_is_named_geometry_and_mended_so(tmp_path):
    """A GeoParquet keeps the name its geometry column was written with; its readers look for
    ``geometry``. A file whose geometry sits in `buffered` (next to a stale points column named
    `geometry`) fails the requirement, and the mend makes `buffered` the `geometry` column. A request
    that names another geometry column gets no such requirement."""
    points = gpd.GeoDataFrame({"stop_id": [1, 2]}, geometry=gpd.points_from_xy([0, 1000], [0, 0]), crs=32654)
    points["buffered"] = points.buffer(400)
    points.set_geometry("buffered").to_parquet(tmp_path / "stops.geoparquet")
    request = "Buffer every stop by 400 m and save the result as `stops.geoparquet` in GeoParquet."
    contract = derive_contract(request, ["stops.geoparquet"])
    named = [r for r in contract.requirements if r.kind == "geometry_column_named"]
    assert len(named) == 1 and "GeoParquet" in named[0].said
    assert check(contract, tmp_path)[named[0].text] == (False, "the geometry column is `buffered`")
    failed, mended = _run_mends(contract, "stops.geoparquet", tmp_path)
    assert [r.kind for r in mended] == ["geometry_column_named"]
    assert all(ok for ok, _ in check(contract, tmp_path).values()), check(contract, tmp_path)
    out = gpd.read_parquet(tmp_path / "stops.geoparquet")
    assert list(out.columns) == ["stop_id", "geometry"] and set(out.geom_type) == {"Polygon"}
    own = derive_contract(
        request.replace("GeoParquet.", "GeoParquet with the geometry column `geom`."), ["stops.geoparquet"]
    )
    assert "geometry_column_named" not in {r.kind for r in own.requirements}


def test_a_layer_inventory_s_encoding_column_says_which_layers_hold_utf8_read_as_latin1(tmp_path):
    """The labels are the request's own; a layer whose text is UTF-8 decoded as Latin-1 is the
    mojibake one, text in any script that is clean is not, and the mend writes the right label."""
    from shapely.geometry import Point

    path = tmp_path / "delivery.gpkg"
    clean, garbled = ["ตลาด", "Café"], ["ถนน".encode().decode("latin-1"), "Zürich".encode().decode("cp1252")]
    for layer, names in (("shops", clean), ("streets", garbled)):
        gpd.GeoDataFrame({"name": names}, geometry=[Point(100, 13), Point(100.1, 13)], crs=4326).to_file(
            path, layer=layer
        )
    request = (
        "List the layers of delivery.gpkg in layers.csv, one row per layer: layer_name, feature_count and "
        "text_encoding. For text_encoding report either `mojibake-latin1` or `UTF-8`."
    )
    contract = derive_contract(request, ["layers.csv"], input_facts(tmp_path))
    [inventory] = [r for r in contract.requirements if r.kind == "layer_inventory"]
    assert inventory.params["encoding_labels"] == ["mojibake-latin1", "UTF-8"]
    table = pd.DataFrame({"layer_name": ["shops", "streets"], "feature_count": [2, 2]})
    table.assign(text_encoding=["UTF-8", "mojibake-latin1"]).to_csv(tmp_path / "layers.csv", index=False)
    assert check(contract, tmp_path)[inventory.text][0], check(contract, tmp_path)[inventory.text]
    table.assign(text_encoding=["UTF-8", "UTF-8"]).to_csv(tmp_path / "layers.csv", index=False)
    passed, seen = check(contract, tmp_path)[inventory.text]
    assert not passed and "streets: text_encoding 'UTF-8'" in seen and "shops" not in seen
    _run_mends(contract, "layers.csv", tmp_path)
    assert pd.read_csv(tmp_path / "layers.csv")["text_encoding"].tolist() == ["UTF-8", "mojibake-latin1"]
    assert check(contract, tmp_path)[inventory.text][0]
    # The label is the mend's to write: the coder is told to leave it out, and a table written
    # without it gets it, in the order the request lists the columns.
    assert "leave `text_encoding` out of the code" in coder_view(contract)
    assert mended_values(contract) == {"text_encoding"}
    table.to_csv(tmp_path / "layers.csv", index=False)
    passed, seen = check(contract, tmp_path)[inventory.text]
    assert not passed and seen.count("`text_encoding` is not in the file") == 1, seen  # said once, not per row
    _run_mends(contract, "layers.csv", tmp_path)
    assert pd.read_csv(tmp_path / "layers.csv").to_dict("list") == {
        "layer_name": ["shops", "streets"],
        "feature_count": [2, 2],
        "text_encoding": ["UTF-8", "mojibake-latin1"],
    }
    assert all(ok for ok, _ in check(contract, tmp_path).values()), check(contract, tmp_path)
    # Without the two labels in the request's words the column is not the contract's to judge.
    unlabelled = derive_contract(request.split(" For ")[0], ["layers.csv"], input_facts(tmp_path))
    [inventory] = [r for r in unlabelled.requirements if r.kind == "layer_inventory"]
    assert "encoding" not in inventory.params or not inventory.params.get("encoding")


def test_a_table_of_a_file_s_layers_is_mended_to_what_each_layer_declares(tmp_path):
    """`feature_count = layer.shape.count` (a method, written as its repr) and one CRS for every row:
    the mend reads each row's layer as it is declared on disk; the layer column and the other columns
    stay."""
    from shapely.geometry import LineString, Point

    path = tmp_path / "delivery.gpkg"
    gpd.GeoDataFrame({"n": [1, 2]}, geometry=[Point(100, 13), Point(100.1, 13)], crs=4326).to_file(path, layer="shops")
    gpd.GeoDataFrame({"n": [1]}, geometry=[LineString([(6e5, 1.5e6), (6.1e5, 1.5e6)])], crs=32647).to_file(
        path, layer="streets"
    )
    request = (
        "List the layers of delivery.gpkg in layers.csv, one row per layer: layer_name, crs, geometry_type, "
        "feature_count and note."
    )
    contract = derive_contract(request, ["layers.csv"], input_facts(tmp_path))
    [inventory] = [r for r in contract.requirements if r.kind == "layer_inventory"]
    pd.DataFrame(
        {
            "layer_name": ["shops", "streets"],
            "crs": ["EPSG:4326", "EPSG:4326"],
            "geometry_type": ["Point", "Point"],
            "feature_count": [str((1, 2).count)] * 2,
            "note": ["a", "b"],
        }
    ).to_csv(tmp_path / "layers.csv", index=False)
    assert not check(contract, tmp_path)[inventory.text][0]
    _run_mends(contract, "layers.csv", tmp_path)
    assert check(contract, tmp_path)[inventory.text][0], check(contract, tmp_path)[inventory.text]
    mended = pd.read_csv(tmp_path / "layers.csv")
    assert mended.to_dict("list") == {
        "layer_name": ["shops", "streets"],
        "crs": ["EPSG:4326", "EPSG:32647"],
        "geometry_type": ["Point", "LineString"],
        "feature_count": [2, 1],
        "note": ["a", "b"],
    }
    # A CRS written as a bare number in a column named `crs` becomes the CRS's name; a column named
    # for the number (`epsg`) gets the number.
    pd.DataFrame({"layer_name": ["shops", "streets"], "crs": [4326, 4326], "geometry_type": ["Point"] * 2}).assign(
        feature_count=[2, 1], note=["a", "b"]
    ).to_csv(tmp_path / "layers.csv", index=False)
    _run_mends(contract, "layers.csv", tmp_path)
    assert pd.read_csv(tmp_path / "layers.csv")["crs"].tolist() == ["EPSG:4326", "EPSG:32647"]
    by_number = derive_contract(request.replace("crs,", "epsg,"), ["layers.csv"], input_facts(tmp_path))
    pd.DataFrame(
        {"layer_name": ["shops", "streets"], "epsg": ["EPSG:4326"] * 2, "geometry_type": ["Point"] * 2}
    ).assign(feature_count=[2, 1], note=["a", "b"]).to_csv(tmp_path / "layers.csv", index=False)
    _run_mends(by_number, "layers.csv", tmp_path)
    assert pd.read_csv(tmp_path / "layers.csv")["epsg"].tolist() == [4326, 32647]


def test_a_dedup_that_drops_every_copy_of_a_repeated_geometry_fails(tmp_path):
    """ "No duplicate geometries" in a cleaning of one keyed layer: a file without repeats can still be
    wrong when it dropped every copy (``drop_duplicates(keep=False)``). Of each set of the input's
    features sharing a geometry one must stay; the features the request discards for their size, and a
    file that selects rows by other means, are not read as lost."""
    from shapely.geometry import box

    shared, own, sliver = box(0, 0, 0.001, 0.001), box(0.002, 0, 0.003, 0.001), box(0.004, 0, 0.0040001, 0.0000001)
    source = gpd.GeoDataFrame(
        {"parcel_id": ["p1", "p2", "p3", "p4"], "record_seq": [2, 1, 3, 4]},
        geometry=[shared, shared, own, sliver],
        crs=4326,
    )
    source.to_file(tmp_path / "parcels.geojson")
    request = (
        "Clean parcels.geojson into one record per parcel: keep the record with the earliest record_seq, and "
        "discard polygons smaller than 1 m². Write clean.geoparquet with parcel_id (unique) and record_seq, "
        "with no duplicate geometries."
    )
    contract = derive_contract(request, ["clean.geoparquet"], input_facts(tmp_path))
    [unique] = [r for r in contract.requirements if r.kind == "geometries_unique"]
    assert (unique.params["key"], unique.params["min_m2"]) == ("parcel_id", 1.0)
    source.iloc[[1, 2]].to_parquet(tmp_path / "clean.geoparquet")  # one copy kept, the sliver discarded
    assert check(contract, tmp_path)[unique.text][0], check(contract, tmp_path)[unique.text]
    source.iloc[[2]].to_parquet(tmp_path / "clean.geoparquet")  # both copies dropped
    passed, seen = check(contract, tmp_path)[unique.text]
    assert not passed and "no copy is left (`parcel_id` p1/p2)" in seen
    source.iloc[[0, 3]].to_parquet(tmp_path / "clean.geoparquet")  # a selection: p3 left out too
    assert check(contract, tmp_path)[unique.text][0]
