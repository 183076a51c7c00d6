"""The contract's checks on real files: every requirement derived for a dev task holds on its
reference deliverable (no false alarms), and a deliverable with a known defect fails exactly
the requirement that describes it, with the observed value."""

from __future__ import annotations

import json
import os
import shutil

import geopandas as gpd
import pytest
from shapely.geometry import Point, box

from geoagent_ext.agent.probes import local_probes
from geoagent_ext.contract import check_payload, derive_contract
from geoagent_ext.kernel import inkernel

from ..bench.helpers import SUITE, task_params

HELPER = inkernel.load()


PROBES = local_probes()


def in_folder(folder, fn, *args):
    """``fn(*args)`` with ``folder`` as the working directory, as in the run's kernel."""
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        return fn(*args)
    finally:
        os.chdir(cwd)


def input_facts(folder):
    """What a run's probe reads of the input files (rows, columns)."""
    return in_folder(folder, PROBES["input_facts"], sorted(p.name for p in folder.iterdir()))


def contract_of_input(folder, frame, name: str, request: str, output: str):
    """The contract of ``request`` for ``output`` once ``frame`` is written to ``folder/name``."""
    frame.to_file(folder / name)
    return derive_contract(request, [output], input_facts(folder))


def check(contract, workdir):
    results = in_folder(workdir, HELPER.check_contract, check_payload(contract))
    text = {r.id: r.text for r in contract.requirements}
    return {text[r["id"]]: (r["passed"], r["observed"]) for r in results}


@pytest.mark.parametrize("task", task_params())
def test_every_derived_requirement_holds_on_the_reference(task, tmp_path):
    folder = SUITE / task
    data = json.loads((folder / "task.json").read_text())
    for p in (folder / "inputs").iterdir():
        shutil.copy(p, tmp_path / p.name)
    contract = derive_contract(
        data["instruction"], [o["name"] for o in data["expected_outputs"]], input_facts(tmp_path)
    )
    for p in (folder / "reference" / "outputs").iterdir():
        shutil.copy(p, tmp_path / p.name)
    failed = {k: v for k, v in check(contract, tmp_path).items() if not v[0]}
    assert not failed, failed


def _points(n=4, crs=4326):
    return gpd.GeoDataFrame(
        {"pid": [f"p{i}" for i in range(n)], "code": list(range(n, 0, -1))},
        geometry=[Point(16.3 + i * 0.01, 48.2) for i in range(n)],
        crs=crs,
    )


_NATIONAL = (
    "is in a projected CRS in metres whose area of use contains the data (the region's grid, not a world-wide one)"
)


def test_defects_fail_the_requirement_that_names_them(tmp_path):
    _points().to_file(tmp_path / "in.geojson")
    facts = input_facts(tmp_path)
    contract = derive_contract(
        "Take `in.geojson`, reproject it to the national grid and write `out.geojson` with one row per input point, "
        "keeping the original `pid`. Also write `summary.json` with keys `count` and `bbox_wgs84`. "
        "Write `table.csv` with columns `pid` and `code` (integer); sort rows by `code`.",
        ["out.geojson", "summary.json", "table.csv"],
        facts,
    )
    # The defects: left in degrees; one row lost and an invented id; a bbox in metres; unsorted.
    bad = _points().iloc[:3].copy()
    bad.loc[0, "pid"] = "x9"
    bad.to_file(tmp_path / "out.geojson")
    (tmp_path / "summary.json").write_text(
        json.dumps({"count": 4, "bbox_wgs84": [1813000.0, 6140000.0, 1816000.0, 6141000.0]})
    )
    _points().drop(columns="geometry").to_csv(tmp_path / "table.csv", index=False)
    seen = check(contract, tmp_path)
    failed = {k for k, (ok, _) in seen.items() if not ok}
    assert failed == {
        _NATIONAL,
        "one row per feature of `in.geojson` (4)",
        "`pid` keeps the original values of `in.geojson`",
        "`bbox_wgs84` holds longitude/latitude values (WGS84 degrees)",
        "rows are sorted by `code` ascending",
    }, seen
    assert "EPSG:4326" in seen[_NATIONAL][1]
    assert "x9" in seen["`pid` keeps the original values of `in.geojson`"][1]
    assert "1813000" in seen["`bbox_wgs84` holds longitude/latitude values (WGS84 degrees)"][1]

    # Fixed: Austria's grid, all rows, lon/lat bbox, sorted -> everything holds.
    _points().to_crs(31287).to_file(tmp_path / "out.geojson")
    (tmp_path / "summary.json").write_text(json.dumps({"count": 4, "bbox_wgs84": [16.3, 48.2, 16.33, 48.2]}))
    _points().drop(columns="geometry").sort_values("code").to_csv(tmp_path / "table.csv", index=False)
    assert all(ok for ok, _ in check(contract, tmp_path).values()), check(contract, tmp_path)
    # A projected CRS of another continent is not the region's grid.
    _points().to_crs(32618).to_file(tmp_path / "out.geojson")
    crs = check(contract, tmp_path)[_NATIONAL]
    assert not crs[0] and "is far from" in crs[1]
    # A world-wide CRS in metres contains every place, and is no national grid.
    _points().to_crs(6933).to_file(tmp_path / "out.geojson")
    crs = check(contract, tmp_path)[_NATIONAL]
    assert not crs[0] and "world-wide" in crs[1]
    # Asked only for a metric CRS, a world-wide one still holds (the request names no region's grid).
    metric = derive_contract("Reproject `in.geojson` to a metric CRS and write `out.geojson`.", ["out.geojson"], facts)
    [kept] = [v for k, v in check(metric, tmp_path).items() if k.startswith("is in a projected CRS in metres")]
    assert kept[0], kept


def test_missing_or_broken_files_fail_every_requirement_with_the_reason(tmp_path):
    contract = derive_contract("Write `a.geojson` with columns `x`, `y`.", ["a.geojson"])
    assert {v for v in check(contract, tmp_path).values()} == {(False, "`a.geojson` does not exist")}
    (tmp_path / "a.geojson").write_text("{not json")
    assert all(not ok and "does not open" in seen for ok, seen in check(contract, tmp_path).values())
    gpd.GeoDataFrame({"x": [1]}, geometry=[box(0, 0, 1, 1)], crs=4326).to_file(tmp_path / "a.geojson")
    columns = next(v for k, v in check(contract, tmp_path).items() if k.startswith("has the columns x, y"))
    assert columns[0] is False and "missing ['y']" in columns[1]


def _transects():
    """Two lines in lon/lat: one local, one jumping from +179.5 to -179.5 (drawn across the globe)."""
    from shapely.geometry import LineString

    return gpd.GeoDataFrame(
        {"tid": ["a", "b"]},
        geometry=[
            LineString([(178.0, -17.0), (178.5, -17.2)]),
            LineString([(179.0, -16.0), (179.5, -16.1), (-179.5, -16.3)]),
        ],
        crs=4326,
    )


def test_lines_across_the_antimeridian_must_be_cut_in_the_deliverable(tmp_path):
    _transects().to_file(tmp_path / "t.geojson")
    facts = input_facts(tmp_path)
    assert facts["t.geojson"]["defects"] == {"antimeridian": 1}
    contract = derive_contract(
        "Reproject `t.geojson` to EPSG:3460 and write `out.geojson` and `out.gpkg`.", ["out.geojson", "out.gpkg"], facts
    )
    cut = {r.output: r.id for r in contract.requirements if r.kind == "antimeridian_cut"}

    def seen_by_id():
        return {
            r["id"]: (r["passed"], r["observed"])
            for r in in_folder(tmp_path, HELPER.check_contract, check_payload(contract))
        }

    # Reprojected without cutting: still one piece across +-180 in the GeoJSON; the GeoPackage in a
    # projected CRS is continuous and holds (RFC 7946 binds GeoJSON).
    _transects().to_crs(3460).to_file(tmp_path / "out.geojson")
    _transects().to_crs(3460).to_file(tmp_path / "out.gpkg")
    seen = seen_by_id()
    assert seen[cut["out.geojson"]][0] is False and "1 of 2 features still cross" in seen[cut["out.geojson"]][1]
    assert seen[cut["out.gpkg"]][0] is True
    # Cut in lon/lat first (GDAL's RFC 7946 writer), then reprojected: holds, one feature each.
    _transects().to_file(tmp_path / "cut.geojson", driver="GeoJSON", RFC7946="YES")
    fixed = gpd.read_file(tmp_path / "cut.geojson")
    assert list(fixed.geom_type) == ["LineString", "MultiLineString"]
    fixed.to_crs(3460).to_file(tmp_path / "out.geojson")
    assert all(ok for ok, _ in seen_by_id().values()), seen_by_id()
    # In lon/lat, a GeoPackage must be cut too.
    _transects().to_file(tmp_path / "out.gpkg")
    assert seen_by_id()[cut["out.gpkg"]][0] is False


def test_geojson_polygons_wound_against_rfc7946_fail_until_oriented(tmp_path):
    import shapely
    from shapely.geometry import Polygon

    ring, hole = [(0, 0), (0, 1), (1, 1), (1, 0), (0, 0)], [(0.2, 0.2), (0.4, 0.2), (0.4, 0.4), (0.2, 0.4), (0.2, 0.2)]
    legacy = gpd.GeoDataFrame({"fid": [1, 2]}, geometry=[Polygon(ring, [hole]), box(2, 2, 3, 3, ccw=False)], crs=4326)
    legacy.to_file(tmp_path / "legacy.geojson")
    facts = input_facts(tmp_path)
    assert facts["legacy.geojson"]["defects"] == {"winding": 2}
    contract = derive_contract("Fix `legacy.geojson` for web viewers; write `fixed.geojson`.", ["fixed.geojson"], facts)
    [winding] = [r.text for r in contract.requirements if r.kind == "rfc7946_winding"]
    legacy.to_file(tmp_path / "fixed.geojson")  # read and written back: geopandas keeps the winding
    assert check(contract, tmp_path)[winding] == (
        False,
        "2 of 2 polygons wound against RFC 7946 (exterior clockwise or a hole counter-clockwise)",
    )
    legacy.assign(geometry=shapely.orient_polygons(legacy.geometry.values, exterior_cw=False)).to_file(
        tmp_path / "fixed.geojson"
    )
    assert check(contract, tmp_path)[winding] == (True, "all 2 polygons follow the right-hand rule")


def test_rings_rewound_keep_every_feature_unless_the_request_selects(tmp_path):
    """Rewinding rings is the same features: a file of one rewound polygon out of two meets the ring
    order yet lost a feature, and fails; a request that also selects or joins features gets no such
    requirement (a "join key" only names a column)."""
    import shapely

    legacy = gpd.GeoDataFrame(
        {"fid": [1, 2]}, geometry=[box(0, 0, 1, 1, ccw=False), box(2, 2, 3, 3, ccw=False)], crs=4326
    )
    legacy.to_file(tmp_path / "legacy.geojson")
    facts = input_facts(tmp_path)
    request = (
        "Fix the geometries of `legacy.geojson` so web viewers render them right; write `fixed.geojson`. "
        "`fid` is the join key."
    )
    contract = derive_contract(request, ["fixed.geojson"], facts)
    [rows] = [r for r in contract.requirements if r.kind == "rows_as_input"]
    assert rows.sure and rows.params == {"input": "legacy.geojson", "rows": 2}
    oriented = legacy.assign(geometry=shapely.orient_polygons(legacy.geometry.values, exterior_cw=False))
    oriented.iloc[:1].to_file(tmp_path / "fixed.geojson")
    assert check(contract, tmp_path)[rows.text][0] is False
    oriented.to_file(tmp_path / "fixed.geojson")
    assert all(ok for ok, _ in check(contract, tmp_path).values()), check(contract, tmp_path)
    for selecting in ("Keep only the buildings over 10 m.", "Drop the sheds.", "Join them to `owners.csv`."):
        kinds = {r.kind for r in derive_contract(f"{request} {selecting}", ["fixed.geojson"], facts).requirements}
        assert "rfc7946_winding" in kinds and "rows_as_input" not in kinds, selecting


def test_numbers_written_as_text_must_be_numbers_when_the_request_is_about_numbers(tmp_path):
    stations = gpd.GeoDataFrame(
        {
            "sid": ["1", "2", "3"],
            "zip": ["02134", "10001", "02139"],
            "name": ["Ság", "Nő", "Tű"],
            "value": ["84.5", "N/A", "80.9"],
        },
        geometry=[Point(100.5 + i / 100, 13.7) for i in range(3)],
        crs=4326,
    )
    stations.to_file(tmp_path / "st.geojson")
    facts = input_facts(tmp_path)
    # "02134" is a code, not a number: left out; "N/A" is a placeholder
    assert facts["st.geojson"]["defects"] == {"numbers_as_text": {"sid": "integer", "value": "number"}}
    request = (
        "The averages of `st.geojson` come back NaN; fix what keeps the numeric computations from working. "
        "Leave the string columns alone. Write `typed.geojson` and `summary.geojson`."
    )
    contract = derive_contract(request, ["typed.geojson", "summary.geojson"], facts)
    texts = {
        (r.output, r.kind, r.params.get("name")): r.id for r in contract.requirements if not r.params.get("as_type")
    }
    read = {(r.output, r.params["name"]): r for r in contract.requirements if r.params.get("as_type")}
    assert ("typed.geojson", "integer", "sid") in texts and ("typed.geojson", "numeric", "value") in texts
    # the numbers are the input's, read from the text: gating, as nothing in the request changes them
    assert read["typed.geojson", "value"].sure and read["typed.geojson", "value"].params["as_type"] == "float64"
    assert ("typed.geojson", "values_from_input", "name") in texts and (
        "typed.geojson",
        "values_from_input",
        "zip",
    ) in texts
    assert ("typed.geojson", "values_from_input", "sid") not in texts  # a number to fix, not a string to keep
    # Not a request about numbers: the same data binds nothing of the kind.
    plain = derive_contract("Reproject `st.geojson` and write `typed.geojson`.", ["typed.geojson"], facts)
    assert not [r for r in plain.requirements if r.kind in ("integer", "numeric")]

    def seen():
        return {
            r["id"]: (r["passed"], r["observed"])
            for r in in_folder(tmp_path, HELPER.check_contract, check_payload(contract))
        }

    stations.to_file(tmp_path / "typed.geojson")  # written back as it came: still text
    stations[["sid", "geometry"]].to_file(tmp_path / "summary.geojson")
    got = seen()
    assert (
        got[texts["typed.geojson", "integer", "sid"]][0] is False
        and "dtype" in got[texts["typed.geojson", "integer", "sid"]][1]
    )
    assert got[texts["typed.geojson", "numeric", "value"]][0] is False
    assert got[texts["summary.geojson", "numeric", "value"]] == (True, "`value` is not in the file (nothing to check)")
    import pandas as pd

    fixed = stations.assign(sid=stations["sid"].astype(int), value=pd.to_numeric(stations["value"], errors="coerce"))
    fixed.to_file(tmp_path / "typed.geojson")
    fixed[["sid", "geometry"]].to_file(tmp_path / "summary.geojson")
    assert not {k: v for k, v in seen().items() if not v[0]}
    # numbers cut to integers are numbers, but not the input's
    fixed.assign(value=fixed["value"].fillna(0).astype(int)).to_file(tmp_path / "typed.geojson")
    assert seen()[read["typed.geojson", "value"].id] == (
        False,
        "`value`: 3 of 3 values are none of st.geojson's, e.g. 84 (it has 80.9 … 84.5)",
    )
    # stored as float32, or a number made missing: still the input's numbers
    fixed.assign(value=fixed["value"].astype("float32")).iloc[[0, 2]].to_parquet(tmp_path / "typed.parquet")
    typed = derive_contract(request.replace("typed.geojson", "typed.parquet"), ["typed.parquet"], facts)
    [values] = [r for r in typed.requirements if r.params.get("as_type") == "float64"]
    assert in_folder(tmp_path, HELPER.check_contract, check_payload(typed))[
        [r.id for r in typed.requirements].index(values.id)
    ]["passed"]
    fixed.assign(value=[84.5, None, None]).to_file(tmp_path / "typed.geojson")
    assert seen()[read["typed.geojson", "value"].id][0] is True
    # a request that also rounds them: shown, not gating
    rounded = derive_contract(request + " Round the values to whole numbers.", ["typed.geojson"], facts)
    assert [r.sure for r in rounded.requirements if r.params.get("as_type")] == [False, False]


def test_null_invalid_and_repeated_geometries_and_templates_are_seen(tmp_path):
    from shapely.geometry import Polygon

    bowtie = Polygon([(0, 0), (1, 1), (1, 0), (0, 1), (0, 0)])
    contract = derive_contract(
        "Write `clean.gpkg` with no empty geometries, no invalid geometries and no duplicate "
        "geometries, and `audit.csv` with declared_crs (formatted as `EPSG:NNNN`).",
        ["clean.gpkg", "audit.csv"],
    )
    gpd.GeoDataFrame(
        {"k": [1, 2, 3, 4]}, geometry=[bowtie, box(0, 0, 1, 1), box(1, 0, 0, 1, ccw=False), None], crs=4326
    ).to_file(tmp_path / "clean.gpkg")
    (tmp_path / "audit.csv").write_text("declared_crs\nEPSG:4326\n4326\n")
    seen = check(contract, tmp_path)
    assert seen["no feature has a null or empty geometry"] == (False, "1 of 4 features have a null or empty geometry")
    assert (
        not seen["every geometry is valid (OGC rules)"][0]
        and "Self-intersection" in seen["every geometry is valid (OGC rules)"][1]
    )
    # the same square drawn from another vertex and the other way round is the same geometry
    assert seen["no two features have the same geometry"] == (
        False,
        "1 of 4 features repeat an earlier feature's geometry",
    )
    assert seen["`declared_crs` is written as `EPSG:NNNN`"] == (
        False,
        "`declared_crs`: 1 value(s) not written that way, e.g. ['4326']",
    )
    gpd.GeoDataFrame({"k": [1, 2]}, geometry=[box(0, 0, 1, 1), box(2, 0, 3, 1)], crs=4326).to_file(
        tmp_path / "clean.gpkg"
    )
    (tmp_path / "audit.csv").write_text("declared_crs\nEPSG:4326\nEPSG:32647\n")
    assert all(ok for ok, _ in check(contract, tmp_path).values()), check(contract, tmp_path)


def test_geometry_left_alone_means_same_crs_and_shapes(tmp_path):
    import shapely
    from shapely.geometry import Polygon

    src = gpd.GeoDataFrame(
        {"v": ["1", "2"]}, geometry=[Polygon([(0, 0), (0, 1), (1, 1), (0, 0)]), Point(5, 5)], crs=4326
    )
    src.to_file(tmp_path / "in.geojson")
    contract = derive_contract(
        "Write `out.geojson` from `in.geojson` with fixed values. Leave the geometry alone.",
        ["out.geojson"],
        input_facts(tmp_path),
    )
    [req] = [r.text for r in contract.requirements if r.kind == "geometry_unchanged"]
    src.to_crs(32633).to_file(tmp_path / "out.geojson")  # an unasked reprojection
    assert check(contract, tmp_path)[req] == (
        False,
        "EPSG:32633 (WGS 84 / UTM zone 33N); the input is in EPSG:4326 (WGS 84)",
    )
    src.assign(geometry=src.geometry.translate(0.1, 0)).to_file(tmp_path / "out.geojson")  # moved
    assert check(contract, tmp_path)[req][0] is False
    # Other values, rings turned the other way round: the same shapes.
    src.assign(v=[1, 2], geometry=shapely.orient_polygons(src.geometry.values)).to_file(tmp_path / "out.geojson")
    assert check(contract, tmp_path)[req] == (True, "every geometry is one of in.geojson's, same CRS")


def test_a_conversion_keeps_each_feature_s_shape_reprojected_or_exploded_but_not_simplified(tmp_path):
    # `simplify(tolerance=0.01)` in degrees reshapes every feature though every other requirement
    # holds, when the request asked only for layers, single parts and a national grid: a check fails it.
    from shapely.geometry import LineString, MultiPolygon, Polygon

    ring = [(31.20 + 0.001 * i, 30.00 + 0.0005 * (i % 2)) for i in range(20)]
    poly = Polygon(ring + [(31.22, 30.02), (31.20, 30.02)])
    src = gpd.GeoDataFrame(
        {"site_id": ["a", "b", "c"]},
        crs=4326,
        geometry=[MultiPolygon([poly, box(31.3, 30.1, 31.31, 30.11)]), LineString(ring), Point(31.25, 30.05)],
    )
    src.to_file(tmp_path / "sites.geojson")
    request = (
        "Give me back `sites.gpkg` with the layers `polys` and `others`, every feature single-part, "
        "keeping `site_id`. Use Egypt's national grid."
    )
    contract = derive_contract(request, ["sites.gpkg"], input_facts(tmp_path))
    [kept] = [r for r in contract.requirements if r.kind == "shapes_kept"]
    assert kept.sure and kept.checkable  # nothing in the request makes new shapes: a right answer keeps them
    req = kept.text

    def write(frame):
        (tmp_path / "sites.gpkg").unlink(missing_ok=True)
        frame[frame.geom_type == "Polygon"].to_file(tmp_path / "sites.gpkg", layer="polys")
        frame[frame.geom_type != "Polygon"].to_file(tmp_path / "sites.gpkg", layer="others")

    write(src.explode(index_parts=False).to_crs(22992))  # split into parts and reprojected: the same shapes
    assert check(contract, tmp_path)[req] == (
        True,
        "[polys] every feature's shape is one of sites.geojson's or a part "
        "of one; [others] every feature's shape is one of sites.geojson's or a part of one",
    )
    simplified = src.explode(index_parts=False)
    write(simplified.set_geometry(simplified.simplify(0.01)).to_crs(22992))
    passed, observed = check(contract, tmp_path)[req]
    assert not passed and observed.startswith(
        "[polys] 2 of 2 features' shapes are none of sites.geojson's (nor a part of one): off by up to 727.399 m"
    ), observed
    assert "[others] 1 of 2 features' shapes" in observed  # the line; the point stays where it was
    # A request that asks for new shapes, or draws on two layers, asks no feature to keep its own.
    (tmp_path / "sites.gpkg").unlink()  # an output: not there when a run derives its contract
    for other in (
        "Buffer every site by 50 m into `sites.gpkg`.",
        "Clip the sites to the city into `sites.gpkg`.",
        "Convert the sites to points in `sites.gpkg`.",
        "Write the polygons' vertices to `sites.gpkg`.",
    ):
        assert "shapes_kept" not in {
            r.kind for r in derive_contract(other, ["sites.gpkg"], input_facts(tmp_path)).requirements
        }
    polygons_only = tmp_path / "polygons"
    polygons_only.mkdir()
    src.iloc[:1].to_file(polygons_only / "parcels.geojson")
    points = derive_contract(
        "Write `p.gpkg` from `parcels.geojson`, every feature a Point.", ["p.gpkg"], input_facts(polygons_only)
    )  # points of polygons: new shapes
    assert "geometry_types" in {r.kind for r in points.requirements}
    assert "shapes_kept" not in {r.kind for r in points.requirements}
    src.to_file(tmp_path / "roads.geojson")
    assert "shapes_kept" not in {
        r.kind for r in derive_contract(request, ["sites.gpkg"], input_facts(tmp_path)).requirements
    }


def test_stored_column_types_are_read_from_the_file_schema(tmp_path):
    import pandas as pd

    request = (
        "Convert `in.csv` to `{out}`: `seen_at` as `timestamp[us]`, `units` as `int32`, all other columns as string."
    )
    contract = derive_contract(request.format(out="out.geoparquet"), ["out.geoparquet"])
    texts = {r.text for r in contract.requirements if r.kind == "dtype"}
    assert texts == {
        "`seen_at` is stored as timestamp[us]",
        "`units` is stored as int32",
        "every other attribute column is stored as string",
    }
    frame = _points()  # pid text, code int64
    frame["seen_at"] = pd.to_datetime([f"2024-01-0{i + 1}" for i in range(4)]).astype("datetime64[ns]")
    frame["units"] = frame["code"].astype("int64")
    frame.to_parquet(tmp_path / "out.geoparquet")
    seen = check(contract, tmp_path)
    assert seen["`seen_at` is stored as timestamp[us]"] == (False, "`seen_at` is stored as timestamp[ns]")
    assert seen["`units` is stored as int32"] == (False, "`units` is stored as int64")
    assert seen["every other attribute column is stored as string"] == (False, "not string: {'code': 'int64'}")
    # Cast as asked: every type holds (read from the Arrow schema: pandas would read timestamp[us] back as [ns]).
    frame.assign(
        seen_at=frame["seen_at"].astype("datetime64[us]"),
        units=frame["units"].astype("int32"),
        code=frame["code"].astype(str),
    ).to_parquet(tmp_path / "out.geoparquet")
    assert all(ok for ok, _ in check(contract, tmp_path).values()), check(contract, tmp_path)

    # A GeoPackage stores OGR types (Integer is int32, Integer64 int64); CSV stores none (no requirement).
    contract = derive_contract(request.format(out="out.gpkg"), ["out.gpkg"])
    frame.drop(columns="seen_at").to_file(tmp_path / "out.gpkg")
    assert check(contract, tmp_path)["`units` is stored as int32"] == (False, "`units` is stored as int64")
    frame.assign(units=frame["units"].astype("int32")).drop(columns="seen_at").to_file(tmp_path / "out.gpkg")
    assert check(contract, tmp_path)["`units` is stored as int32"] == (True, "`units` is stored as int32")
    assert not [
        r for r in derive_contract(request.format(out="out.csv"), ["out.csv"]).requirements if r.kind == "dtype"
    ]


def test_geometry_parsed_from_wkt_text_is_not_carried_beside_it(tmp_path):
    """An input keeping its geometry as WKT text: the spatial deliverable stores it once (the text
    column dropped), unless the request keeps that column; and a plain conversion keeps every row."""
    import pandas as pd

    frame = _points()
    table = pd.DataFrame({"pid": frame["pid"], "geom_text": frame.geometry.to_wkt()})
    table.to_csv(tmp_path / "in.csv", index=False)
    facts = input_facts(tmp_path)
    assert facts["in.csv"]["defects"] == {"wkt_text": ["geom_text"]}
    contract = derive_contract("Convert `in.csv` to `out.gpkg` in EPSG:4326.", ["out.gpkg"], facts)
    texts = {r.kind: r.text for r in contract.requirements}
    once, rows = texts["geometry_once"], texts["rows_as_input"]
    assert "`geom_text`" in once and "(4)" in rows
    parsed = gpd.GeoDataFrame(table, geometry=gpd.GeoSeries.from_wkt(table["geom_text"]), crs=4326)
    parsed.to_file(tmp_path / "out.gpkg")
    seen = check(contract, tmp_path)
    assert seen[once] == (
        False,
        "`geom_text` (POINT (16.3 48.2)) repeats the geometry as WKT text beside the geometry column",
    )
    assert seen[rows] == (True, "4 rows (the input has 4)")
    parsed.drop(columns="geom_text").iloc[:3].to_file(tmp_path / "out.gpkg")
    seen = check(contract, tmp_path)
    assert seen[once][0] is True and seen[rows] == (False, "3 rows (the input has 4)")
    # The request keeps the text column; a selection may drop rows: neither is a requirement then.
    kept = derive_contract(
        "Convert `in.csv` to `out.gpkg` with the columns `pid` and `geom_text`, only the first two.",
        ["out.gpkg"],
        facts,
    )
    assert not {"geometry_once", "rows_as_input"} & {r.kind for r in kept.requirements}


def test_a_missing_column_carried_from_another_layer_is_joined_in_not_computed():
    """A CSV built from the stations that lacks `district_name`, a column of the districts layer:
    the repair must say where it lives and how to bring it in, and name only the columns really
    missing."""
    from geoagent_ext.contract import Requirement
    from geoagent_ext.contract.advice import repair_line

    req = Requirement(
        id="r2",
        output="counts.csv",
        text="has the columns district_code, district_name, n",
        kind="columns",
        params={
            "names": ["district_code", "district_name", "n"],
            "provenance": {
                "district_code": "from `districts.geojson`",
                "district_name": "from `districts.geojson`",
                "n": "computed: a count per row or group (0 for groups with none)",
            },
        },
    )
    line = repair_line(req, "missing ['district_name']; it has ['district_code', 'geometry', 'n', 'station_id']")
    how = line.split("How: ", 1)[1]
    assert how.startswith("district_name come(s) from `districts.geojson`")
    assert "gpd.sjoin(" in how and "predicate='within'" in how
    assert "district_code" not in how.split(":", 1)[0]  # present already: not named as missing


def test_a_measure_in_the_wrong_unit_or_crs_fails_with_what_it_looks_like(tmp_path):
    """`area_km2` must be each feature's area in km²: computed in degrees, in Web Mercator or left in
    m², the file fails with the factor seen; per row by its own geometry, by a key into the input,
    or — groups of the input's features — by the total."""
    import pandas as pd

    districts = gpd.GeoDataFrame(
        {"code": [1, 2, 3], "kind": ["a", "a", "b"]},
        geometry=[box(16.30, 48.18, 16.36, 48.22), box(16.36, 48.18, 16.42, 48.24), box(16.28, 48.22, 16.34, 48.26)],
        crs=4326,
    )
    districts.to_file(tmp_path / "districts.geojson")
    contract = derive_contract(
        "Write `areas.geojson` and `areas.csv` from `districts.geojson` with `code` and "
        "`area_km2`, and `kinds.csv` with `kind` and `area_km2` per kind.",
        ["areas.geojson", "areas.csv", "kinds.csv"],
        input_facts(tmp_path),
    )
    km2 = districts.to_crs(3035).area / 1e6  # LAEA Europe: equal-area
    right = districts.assign(area_km2=km2)

    def write(values) -> dict[str, dict]:
        """{output: its measure_units result} after writing the three files with these areas."""
        right.assign(area_km2=values).to_file(tmp_path / "areas.geojson")
        right.assign(area_km2=values).drop(columns="geometry").to_csv(tmp_path / "areas.csv", index=False)
        pd.DataFrame({"kind": ["a", "b"], "area_km2": [values[0] + values[1], values[2]]}).to_csv(
            tmp_path / "kinds.csv", index=False
        )
        results = {r["id"]: r for r in in_folder(tmp_path, HELPER.check_contract, check_payload(contract))}
        return {r.output: results[r.id] for r in contract.requirements if r.kind == "measure_units"}

    seen = write(km2.tolist())
    assert sorted(seen) == ["areas.csv", "areas.geojson", "kinds.csv"] and all(r["passed"] for r in seen.values()), seen
    # A CSV written from the GeoDataFrame keeps a WKT "geometry" column: a table, matched by key
    # (not "could not check: 'DataFrame' object has no attribute 'crs'").
    right.to_csv(tmp_path / "areas.csv", index=False)
    results = {r["id"]: r for r in in_folder(tmp_path, HELPER.check_contract, check_payload(contract))}
    [csv] = [results[r.id] for r in contract.requirements if r.kind == "measure_units" and r.output == "areas.csv"]
    assert csv["passed"] and "feature of the same `code`" in csv["observed"], csv
    assert "each row's geometry" in seen["areas.geojson"]["observed"]
    assert "feature of the same `code`" in seen["areas.csv"]["observed"]
    assert "sums to" in seen["kinds.csv"]["observed"]
    for values, said in [
        ((km2 * 1e6).tolist(), "m² written as km²"),
        (districts.area.tolist(), "as if measured in degrees"),
        ((districts.to_crs(3857).area / 1e6).tolist(), "distorts"),
    ]:
        seen = write(values)
        assert not seen["areas.geojson"]["passed"] and not seen["areas.csv"]["passed"], seen
        assert said in seen["areas.geojson"]["observed"] and said in seen["areas.csv"]["observed"], seen
        # Groups are checked by their total, in a wide band: units and degrees fail, a distortion of 2.6x too.
        assert not seen["kinds.csv"]["passed"], seen


def test_a_row_far_from_its_own_geometrys_measure_fails_though_the_bulk_holds(tmp_path):
    """Nine rows in ten right is enough for the bulk, not for a row under half or over twice its own
    geometry's area (an outline measured before its repair, a zero); a value rounded to the
    precision the column shows is not such a row."""
    parcels = gpd.GeoDataFrame(
        {"code": range(20)},
        geometry=[box(16.30 + i * 0.002, 48.20, 16.30 + i * 0.002 + 0.0005 + i * 0.0001, 48.201) for i in range(20)],
        crs=4326,
    )
    contract = contract_of_input(
        tmp_path,
        parcels,
        "parcels_in.geojson",
        "Write parcels.geojson from parcels_in.geojson with code, area_ha.",
        "parcels.geojson",
    )
    (req,) = [r for r in contract.requirements if r.kind == "measure_units"]
    hectares = parcels.to_crs(3035).area / 1e4  # 0.4 ha to 1.8 ha

    def measured(values) -> tuple[bool, str]:
        parcels.assign(area_ha=values).to_file(tmp_path / "parcels.geojson")
        return check(contract, tmp_path)[req.text]

    assert measured(hectares.tolist())[0]
    assert measured(hectares.round().tolist())[0]  # whole hectares: 0.4 ha written as 0
    two_zeros = hectares.where(parcels.index >= 2, 0.0)
    passed, observed = measured(two_zeros.tolist())
    assert not passed, observed
    assert "2 row(s) under half or over twice" in observed, observed


def test_a_summary_bbox_of_the_whole_layer_and_a_count_per_group_are_checked_on_their_values(tmp_path):
    """The bbox of one clinic and `count_per_subdistrict` as a frame's to_dict()
    ({"subdistrict": {...}, "count": {...}}) both pass "min <= max" and "integer counts" yet are
    wrong. "The overall bounding box" is every feature's, and a value per group is an object keyed
    by the group column's values."""
    import pandas as pd

    pts = [(18.40, -34.05, "North"), (18.80, -33.72, "South"), (18.50, -33.90, "North"), (18.60, -33.80, "East")]
    pd.DataFrame(
        {
            "site_id": [1, 2, 3, 4],
            "area_name": [a for _, _, a in pts],
            "wkt_geom": [f"POINT ({x} {y})" for x, y, _ in pts],
        }
    ).to_csv(tmp_path / "sites.csv", index=False)
    contract = derive_contract(
        "Summarise `sites.csv` in `summary.json` with keys `count`, `bbox` and "
        "`count_per_area_name`: the overall bounding box and the count per area.",
        ["summary.json"],
        input_facts(tmp_path),
    )

    def seen(doc) -> dict[str, tuple]:
        (tmp_path / "summary.json").write_text(json.dumps(doc))
        return {k: v for k, v in check(contract, tmp_path).items() if k.startswith("`bbox`") or "is an object" in k}

    right = {
        "count": 4,
        "bbox": [18.4, -34.05, 18.8, -33.72],
        "count_per_area_name": {"North": 2, "South": 1, "East": 1},
    }
    results = seen(right)
    assert len(results) == 2 and all(ok for ok, _ in results.values()), results
    one_site = dict(right, bbox=[18.5, -33.9, 18.5, -33.9])
    [(ok, observed)] = [v for k, v in seen(one_site).items() if k.startswith("`bbox`")]
    assert not ok and "the whole layer of `sites.csv` spans [18.4, -34.05, 18.8, -33.72]" in observed
    records = dict(right, count_per_area_name={"area_name": {"0": "East", "1": "North"}, "count": {"0": 1, "1": 2}})
    [(ok, observed)] = [v for k, v in seen(records).items() if "is an object" in k]
    assert not ok and "3 value(s) of `area_name` missing" in observed and "not values of `area_name`" in observed
    as_list = dict(right, count_per_area_name=[{"area_name": "North", "count": 2}])
    [(ok, observed)] = [v for k, v in seen(as_list).items() if "is an object" in k]
    assert not ok and "a JSON list, not an object keyed by the values of `area_name`" in observed


def test_a_whole_layer_bbox_passes_in_the_layers_crs_in_lonlat_or_in_the_crs_the_request_names(tmp_path):
    layer = gpd.GeoDataFrame({"n": [1, 2]}, geometry=[Point(500000, 4000000), Point(510000, 4010000)], crs=32633)
    layer.to_file(tmp_path / "pts.geojson")
    contract = derive_contract(
        "Write `box.json` with the key `bbox`: the bounding box of the whole layer `pts.geojson` in EPSG:3857.",
        ["box.json"],
        input_facts(tmp_path),
    )
    [req] = [r for r in contract.requirements if r.kind == "bbox"]
    assert req.params == {"name": "bbox", "input": "pts.geojson", "epsg": 3857}
    for crs in (32633, 4326, 3857):
        bounds = [round(v, 7) for v in layer.to_crs(crs).total_bounds]
        (tmp_path / "box.json").write_text(json.dumps({"bbox": bounds}))
        [(ok, observed)] = [v for k, v in check(contract, tmp_path).items() if k.startswith("`bbox`")]
        assert ok, (crs, observed)


def test_a_geojson_written_with_rfc7946_fails_its_projected_crs_and_the_repair_says_why(tmp_path):
    """A frame in the national grid written with ``to_file(..., RFC7946='YES')`` lands in EPSG:4326
    whatever the frame's CRS: the check fails it and the repair says to write without RFC7946."""
    from geoagent_ext.contract.advice import repair_line

    lines = gpd.GeoDataFrame(
        {"tid": ["a", "b"]},
        geometry=[box(178.0, -18.2, 178.1, -18.1).exterior, box(178.2, -18.2, 178.3, -18.1).exterior],
        crs=4326,
    )
    contract = contract_of_input(
        tmp_path,
        lines,
        "in.geojson",
        "Reproject `in.geojson` to EPSG:3460 and write `out.geojson` with `tid`.",
        "out.geojson",
    )
    lines.to_crs(3460).to_file(tmp_path / "out.geojson", driver="GeoJSON", RFC7946="YES")
    crs = next(r for r in contract.requirements if r.kind == "crs_epsg")
    passed, observed = check(contract, tmp_path)[crs.text]
    assert not passed and observed.startswith("EPSG:4326")
    assert "without RFC7946" in repair_line(crs, observed)
    lines.to_crs(3460).to_file(tmp_path / "out.geojson", driver="GeoJSON")
    assert check(contract, tmp_path)[crs.text][0]


def test_a_spatial_file_written_without_its_geometry_gets_one_repair_line_naming_the_cause(tmp_path):
    """A column selection that drops the geometry fails every geometry requirement; they get one
    repair line naming that cause (keep the geometry in the selection), not advice of their own each."""
    import pandas as pd

    from geoagent_ext.agent.deliverables import DeliverableChecks
    from geoagent_ext.contract import RequirementResult

    parcels = gpd.GeoDataFrame(
        {"pid": [1, 2], "cls": ["a", "b"]},
        geometry=[box(31.2, 30.0, 31.3, 30.1), box(31.3, 30.0, 31.4, 30.1)],
        crs=4326,
    )
    parcels.to_file(tmp_path / "in.geojson")
    contract = derive_contract(
        "Write `out.geoparquet` from `in.geojson` with `pid` and `cls`: every feature a "
        "MultiPolygon, no duplicate geometries and no empty geometries.",
        ["out.geoparquet"],
        input_facts(tmp_path),
    )
    pd.DataFrame(parcels[["pid", "cls"]]).to_parquet(tmp_path / "out.geoparquet")
    results = in_folder(tmp_path, HELPER.check_contract, check_payload(contract))
    by_id = {r.id: r for r in contract.requirements}
    pairs = [(by_id[r["id"]], RequirementResult(**r)) for r in results]
    blind = [req.text for req, res in pairs if not res.passed and res.observed == "no geometry in the file"]
    # MultiPolygon, no duplicates, none empty, a declared CRS, where the input lies, the input's CRS,
    # the GeoParquet's geometry column named `geometry` (shapes kept is an unsure reading: not checked)
    assert len(blind) == 8  # shapes kept too: nothing in the request reshapes them
    lines = DeliverableChecks.failures(pairs)
    about_geometry = [line for line in lines if "no geometry" in line]
    assert len(about_geometry) == 1 and "gdf[['a', 'b', 'geometry']]" in about_geometry[0]
    assert all(text in about_geometry[0] for text in blind)


def test_geometry_requirements_do_not_hold_of_null_geometries(tmp_path):
    """A GeoDataFrame built from columns alone, without geometry=, is written with a null geometry on
    every row; "every feature is a MultiLineString" and the antimeridian cut must not pass by holding
    of nothing."""
    _transects().to_file(tmp_path / "t.geojson")
    contract = derive_contract(
        "Write `out.geojson` from `t.geojson`, every feature a MultiLineString.", ["out.geojson"], input_facts(tmp_path)
    )
    kinds = {r.text: r.kind for r in contract.requirements}
    gpd.GeoDataFrame({"tid": ["a", "b"]}, geometry=[None, None], crs=4326).to_file(tmp_path / "out.geojson")
    seen = check(contract, tmp_path)
    geometric = {text for text, kind in kinds.items() if kind in ("geometry_types", "antimeridian_cut")}
    assert len(geometric) == 2 and all(seen[text] == (False, "no geometry in the file") for text in geometric), seen
    _transects().to_file(tmp_path / "cut.geojson", driver="GeoJSON", RFC7946="YES")
    from shapely.geometry import MultiLineString

    cut = gpd.read_file(tmp_path / "cut.geojson")
    cut.geometry = [MultiLineString([g]) if g.geom_type == "LineString" else g for g in cut.geometry]
    cut.to_file(tmp_path / "out.geojson")
    assert all(check(contract, tmp_path)[text][0] for text in geometric), check(contract, tmp_path)


def test_a_buffer_at_the_wrong_distance_or_in_the_wrong_metres_fails_with_the_distance_seen(tmp_path):
    """ "A 400 m buffer around every connector" written as 800 m buffers would pass every other
    requirement. The distance the request states is checked as a region, whatever the file's CRS
    or row layout."""
    stops = gpd.GeoDataFrame(
        {"sid": ["a", "b", "c"]}, geometry=[Point(139.70, 35.69), Point(139.75, 35.68), Point(139.72, 35.70)], crs=4326
    )
    stops.to_file(tmp_path / "stops.geojson")
    contract = derive_contract(
        "Draw a 400 m buffer around every stop in `stops.geojson` and save it as `zones.geoparquet` with `sid`.",
        ["zones.geoparquet"],
        input_facts(tmp_path),
    )
    [req] = [r for r in contract.requirements if r.kind == "buffer_distance"]
    assert req.params == {"input": "stops.geojson", "distance_m": 400.0}
    metric = stops.to_crs(stops.estimate_utm_crs())

    def seen(frame):
        frame.to_parquet(tmp_path / "zones.geoparquet")
        return check(contract, tmp_path)[req.text]

    assert seen(metric.assign(geometry=metric.buffer(400)).to_crs(6677))[0]  # another metric CRS: the same region
    assert seen(metric.assign(geometry=metric.buffer(400)).dissolve())[0]  # dissolved: the same region too
    passed, observed = seen(metric.assign(geometry=metric.buffer(800)))
    assert not passed and "as if buffered by about 800 m" in observed
    mercator = stops.to_crs(3857)
    assert not seen(mercator.assign(geometry=mercator.buffer(400)))[0]  # Web Mercator's metres are 0.81 true ones here
    from geoagent_ext.contract.advice import repair_line

    assert "out.buffer(400)" in repair_line(req, observed)


def test_a_count_per_polygon_is_checked_by_location_with_every_polygon_present(tmp_path):
    """ "Count the stations in each district" computed with a groupby on the stations' own column
    gives wrong counts no other requirement sees. A count column over one point layer and one
    polygon layer is checked against the points inside each polygon, matched by the key the file
    shares with the polygons ("3" and 3 alike), zero rows included."""
    districts = gpd.GeoDataFrame(
        {"code": ["01", "02", "03"], "name": ["Mitte", "Nord", "Leer"]},
        geometry=[box(0, 0, 10, 10), box(10, 0, 20, 10), box(20, 0, 30, 10)],
        crs=31287,
    )
    districts.to_file(tmp_path / "districts.geojson")
    stations = gpd.GeoDataFrame(
        {"sid": range(5), "code": ["02"] * 5},  # the stations' own column lies
        geometry=[Point(1, 1), Point(2, 2), Point(3, 3), Point(12, 5), Point(15, 5)],
        crs=31287,
    ).to_crs(4326)
    stations.to_file(tmp_path / "stations.geojson")
    request = (
        "Count the stations of `stations.geojson` in every district of `districts.geojson` and write "
        "`per_district.csv` with `code`, `name` and `station_count`."
    )
    contract = derive_contract(request, ["per_district.csv"], input_facts(tmp_path))
    [req] = [r for r in contract.requirements if r.kind == "point_counts"]
    assert req.params == {
        "name": "station_count",
        "points": "stations.geojson",
        "polygons": "districts.geojson",
        "key": "code",
    }

    def seen(rows):
        import pandas as pd

        pd.DataFrame(rows, columns=["code", "name", "station_count"]).to_csv(tmp_path / "per_district.csv", index=False)
        return check(contract, tmp_path)[req.text]

    assert seen([[1, "Mitte", 3], [2, "Nord", 2], [3, "Leer", 0]])[0]
    passed, observed = seen([[2, "Nord", 5]])  # the groupby on the stations' column
    assert not passed and "2 of 3 polygons have no row" in observed and "counted 2" in observed
    passed, observed = seen([[1, "Mitte", 3], [2, "Nord", 2]])  # the empty district dropped
    assert not passed and "1 of 3 polygons have no row" in observed
    # a join's one row per station, each with its district's count: every count right, rows repeated
    passed, observed = seen([[1, "Mitte", 3]] * 3 + [[2, "Nord", 2]] * 2 + [[3, "Leer", 0]])
    assert not passed and "3 of 6 rows repeat a polygon another row has: 3 polygons, 6 rows" in observed
    assert seen([["Nord", "Nord", 2], ["Mitte", "Mitte", 3], ["Leer", "Leer", 0]])[0]  # keyed by the names instead
    passed, observed = seen([["a", "?", 0], ["b", "?", 3], ["c", "?", 2]])  # no key: compared as a multiset
    assert passed and "compared sorted" in observed
    passed, observed = seen([["a", "?", 1], ["b", "?", 1], ["c", "?", 3]])
    assert not passed and "[0, 2, 3]" in observed
    from geoagent_ext.contract.advice import coder_view, repair_line

    # The advice is code with this data's names: no placeholder for the coder to copy as a variable.
    assert "gpd.read_file('stations.geojson')" in repair_line(req, observed)
    assert "polys[['code', 'geometry']]" in repair_line(req, observed) and "KEY" not in coder_view(contract)
    # The mend counts them on the written file: the coder leaves the count out (a coder's count can
    # land on the wrong rows); without a key to carry counts by, it is told how up front.
    assert "leave `station_count` out of the code" in coder_view(contract)
    unkeyed = derive_contract(request.replace("`code`, `name` and ", ""), ["per_district.csv"], input_facts(tmp_path))
    assert "predicate='within'" in coder_view(unkeyed) and "leave" not in coder_view(unkeyed)
    districts.assign(station_count=[3, 2, 0]).to_file(tmp_path / "counted.geojson")
    own = derive_contract(
        request.replace("per_district.csv", "counted.geojson"), ["counted.geojson"], input_facts(tmp_path)
    )
    assert all(passed for passed, _ in check(own, tmp_path).values())  # the file's own polygons


def test_a_count_column_of_something_else_is_not_a_point_count(tmp_path):
    """Only the point layer the count's noun names (or the only one, for a generic "n_points")."""
    gpd.GeoDataFrame({"code": [1]}, geometry=[box(0, 0, 1, 1)], crs=3035).to_file(tmp_path / "zones.geojson")
    gpd.GeoDataFrame({"k": [1]}, geometry=[Point(0.5, 0.5)], crs=3035).to_file(tmp_path / "trees.geojson")
    facts = input_facts(tmp_path)
    words = "Use `trees.geojson` and `zones.geojson` and write `out.csv` with `code` and `{}`."
    kinds = {
        name: [r.kind for r in derive_contract(words.format(name), ["out.csv"], facts).requirements]
        for name in ("tree_count", "n_points", "vertex_count")
    }
    assert "point_counts" in kinds["tree_count"] and "point_counts" in kinds["n_points"]
    assert "point_counts" not in kinds["vertex_count"] and "integer" in kinds["vertex_count"]


def test_a_rate_per_unit_is_its_count_over_its_measure_scaled_to_the_unit_named(tmp_path):
    """ "Stations per 10 km²" is the count over the area scaled to 10 km², not the count divided by 10."""
    contract = derive_contract(
        "Write `out.csv` with `code`, `tree_count`, `area_ha` and `trees_per_10km2`.", ["out.csv"]
    )
    [req] = [r for r in contract.requirements if r.kind == "density"]
    assert req.params == {"name": "trees_per_10km2", "count": "tree_count", "measure": "area_ha", "factor": 1000.0}

    def seen(rate):
        import pandas as pd

        pd.DataFrame(
            {"code": [1, 2, 3], "tree_count": [4, 0, 9], "area_ha": [200.0, 50.0, 300.0], "trees_per_10km2": rate}
        ).to_csv(tmp_path / "out.csv", index=False)
        return check(contract, tmp_path)[req.text]

    passed, observed = seen([20.0, 0.0, 30.0])
    assert passed and observed.startswith("`trees_per_10km2` = ")
    passed, observed = seen([0.4, 0.0, 0.9])  # the count over 10
    assert not passed and "expected 20" in observed
    no_measure = derive_contract("Write `out.csv` with `tree_count` and `trees_per_10km2`.", ["out.csv"])
    assert "density" not in {r.kind for r in no_measure.requirements}  # nothing in the file to check it by


def test_invalid_features_dropped_instead_of_repaired_fail_the_validity_requirement(tmp_path):
    """ "Remove invalid geometries" that drops parcels from a registry whose request asked for no
    invalid geometries must fail: the invalid input features are to be repaired and kept."""
    from shapely.geometry import Polygon

    square, bowtie = Polygon([(0, 0), (0, 1), (1, 1), (1, 0)]), Polygon([(2, 0), (3, 1), (3, 0), (2, 1)])
    legacy = gpd.GeoDataFrame(
        {"parcel_id": ["p1", "p2", "p3"]}, geometry=[square, bowtie, square.buffer(-0.1)], crs=3857
    )
    legacy.to_file(tmp_path / "legacy.geojson")
    request = (
        "Clean up `legacy.geojson` and write `canon.geoparquet` with `parcel_id` unique and no invalid geometries."
    )
    contract = derive_contract(request, ["canon.geoparquet"], input_facts(tmp_path))
    [valid] = [r for r in contract.requirements if r.kind == "geometries_valid"]
    assert valid.params["key"] == "parcel_id" and "repaired" in valid.text
    legacy[legacy.is_valid].to_parquet(tmp_path / "canon.geoparquet")
    passed, observed = check(contract, tmp_path)[valid.text]
    assert not passed and "1 of them are missing (`parcel_id` p2)" in observed and "make_valid" in observed
    legacy.assign(geometry=legacy.make_valid()).to_parquet(tmp_path / "canon.geoparquet")
    assert check(contract, tmp_path)[valid.text] == (
        True,
        "0 of 3 geometries are invalid; 1 feature(s) of `legacy.geojson` had invalid geometries, each kept",
    )
    # The request lets them go: dropping them meets it.
    dropped = derive_contract(
        request.replace("no invalid geometries", "the invalid geometries dropped"),
        ["canon.geoparquet"],
        input_facts(tmp_path),
    )
    assert not [r for r in dropped.requirements if r.kind == "geometries_valid" and r.params.get("key")]


def test_a_distance_between_the_two_places_a_row_names_is_measured_between_them(tmp_path):
    """A table of distances is checked pair by pair: the row's feature and the feature its id column
    names (or the point the request writes in coordinates), in metres on the ground: degrees,
    kilometres under a metres name, a feature paired with itself or fewer than its k nearest fail."""
    homes = gpd.GeoDataFrame(
        {"home_id": [1, 2, 3]}, geometry=[Point(16.30, 48.20), Point(16.40, 48.21), Point(16.35, 48.18)], crs=4326
    )
    shops = gpd.GeoDataFrame(
        {"shop_id": ["a", "b", "c", "d"]},
        geometry=[Point(16.31, 48.20), Point(16.38, 48.22), Point(16.36, 48.17), Point(16.50, 48.30)],
        crs=4326,
    )
    homes.to_file(tmp_path / "homes.geojson")
    shops.to_file(tmp_path / "shops.geojson")
    facts = input_facts(tmp_path)
    utm = homes.estimate_utm_crs()
    h, s = homes.to_crs(utm), shops.to_crs(utm)

    def table(k, scale=1.0):
        rows = []
        for _, home in h.iterrows():
            d = s.distance(home.geometry).sort_values()[:k]
            rows += [{"home_id": home.home_id, "shop_id": shops.shop_id[j], "dist_m": v * scale} for j, v in d.items()]
        return __import__("pandas").DataFrame(rows)

    two = derive_contract(
        "For every home in `homes.geojson`, the two closest shops of `shops.geojson` with the straight-line "
        "distance: write `pairs.csv` with home_id, shop_id, dist_m.",
        ["pairs.csv"],
        facts,
    )
    [req] = [r for r in two.requirements if r.kind == "pair_distance"]
    assert req.params["to"] == "shops.geojson" and req.params["k"] == 2 and req.params["to_key"] == "shop_id"

    def seen(contract, frame):
        frame.to_csv(tmp_path / "pairs.csv", index=False)
        return check(contract, tmp_path)[next(r.text for r in contract.requirements if r.kind == "pair_distance")]

    assert seen(two, table(2))[0]
    assert not seen(two, table(1))[0]  # the nearest only
    assert not seen(two, table(2, 1 / 1000))[0]  # kilometres under a metres name
    passed, observed = seen(two, table(2, 1 / 111_000))  # degrees
    assert not passed and "straight-line distance" in observed

    landmark = derive_contract(
        "Distance in metres from each home in `homes.geojson` to the tower (16.37 E, 48.21 N): "
        "`pairs.csv` with home_id and dist_m.",
        ["pairs.csv"],
        facts,
    )
    tower = gpd.GeoSeries([Point(16.37, 48.21)], crs=4326).to_crs(utm).iloc[0]
    right = __import__("pandas").DataFrame({"home_id": homes.home_id, "dist_m": h.distance(tower)})
    assert seen(landmark, right)[0]
    assert not seen(landmark, right.assign(dist_m=right.dist_m / 1000))[0]
    # Along roads is not a straight line: no such requirement.
    roads = derive_contract(
        "Road distance in metres from each home in `homes.geojson` to the tower (16.37 E, 48.21 N): "
        "`pairs.csv` with home_id and dist_m.",
        ["pairs.csv"],
        facts,
    )
    assert not any(r.kind == "pair_distance" for r in roads.requirements)


def test_the_area_claimed_by_one_of_two_layers_and_label_points_inside_it(tmp_path):
    """A symmetric difference covers what exactly one of two layers covers (a side left out fails),
    and label points asked to fall strictly inside their polygons fail where a centroid falls out."""
    official = gpd.GeoDataFrame({"pid": [1]}, geometry=[box(0, 0, 100, 100)], crs=32633)
    other = gpd.GeoDataFrame({"pid": [1]}, geometry=[box(50, 0, 150, 100)], crs=32633)
    official.to_file(tmp_path / "parks.gpkg", layer="official")
    other.to_file(tmp_path / "parks.gpkg", layer="osm")
    contract = derive_contract(
        "`parks.gpkg` holds two park layers. Write every patch claimed by exactly one side to `diff.geojson`, and "
        "a label point strictly inside each patch to `diff_labels.geojson`, in matching order.",
        ["diff.geojson", "diff_labels.geojson"],
        input_facts(tmp_path),
    )
    region = next(r for r in contract.requirements if r.kind == "symmetric_difference")
    inside = next(r for r in contract.requirements if r.kind == "points_inside")
    assert region.output == "diff.geojson" and inside.output == "diff_labels.geojson"
    # An L-shaped patch, whose centroid lies outside it, and a plain one.
    ell = box(0, 0, 50, 100).union(box(0, 0, 10, 100))
    patches = gpd.GeoDataFrame({"source": ["official", "osm"]}, geometry=[ell, box(100, 0, 150, 100)], crs=32633)

    def seen(polys, points):
        polys.to_crs(4326).to_file(tmp_path / "diff.geojson")
        points.to_crs(4326).to_file(tmp_path / "diff_labels.geojson")
        got = check(contract, tmp_path)
        return got[region.text][0], got[inside.text][0]

    label = patches.assign(geometry=patches.representative_point())
    assert seen(patches, label) == (True, True)
    assert seen(patches.iloc[:1], label.iloc[:1]) == (False, True)  # one side left out
    bent = gpd.GeoDataFrame({"source": ["a"]}, geometry=[box(0, 0, 100, 10).union(box(0, 0, 10, 100))], crs=32633)
    assert not seen(bent, bent.assign(geometry=bent.centroid))[1]  # an L's centroid is outside it


def test_an_area_weighted_mean_is_recomputed_from_the_overlapping_polygons(tmp_path):
    """Each zone's value is the mean of the other layer's column weighted by the area shared with the
    zone; polygons under the area the request names are left out. A plain mean fails, and so does
    keeping the small polygons when they change the mean."""
    zones = gpd.GeoDataFrame(
        {"zone_id": ["z1", "z2"]}, geometry=[box(0, 0, 100, 100), box(100, 0, 200, 100)], crs=32631
    )
    polys = gpd.GeoDataFrame(
        {"kind": ["a", "b", "c"], "density": [10.0, 30.0, 1000.0]},
        geometry=[box(0, 0, 150, 100), box(150, 0, 200, 100), box(10, 10, 15, 15)],  # the last: 25 m²
        crs=32631,
    )
    zones.to_crs(4326).to_file(tmp_path / "zones.geojson")
    polys.to_crs(4326).to_file(tmp_path / "land.geojson")
    contract = derive_contract(
        "For each zone of `zones.geojson`, the area-weighted mean density of the `land.geojson` polygons "
        "overlapping it; polygons under 100 m² are noise and left out. Write `z.csv` with zone_id and mean_density.",
        ["z.csv"],
        input_facts(tmp_path),
    )
    [req] = [r for r in contract.requirements if r.kind == "area_weighted"]
    assert req.params["value"] == "density" and req.params["min_area_m2"] == 100.0

    def seen(values):
        __import__("pandas").DataFrame({"zone_id": ["z1", "z2"], "mean_density": values}).to_csv(
            tmp_path / "z.csv", index=False
        )
        return check(contract, tmp_path)[req.text]

    assert seen([10.0, 20.0])[0]  # z2: half at 10, half at 30
    assert not seen([10.0, 40.0])[0]  # an unweighted mean of the polygons' values
    kept_small = (10.0 * 9975 + 1000.0 * 25) / 10000
    passed, observed = seen([kept_small, 20.0])
    assert not passed and "area-weighted mean of `density`" in observed


def test_geometry_types_kept_fail_when_parts_are_exploded_or_promoted(tmp_path):
    from shapely.geometry import MultiPolygon

    two = MultiPolygon([box(31.20, 30.00, 31.21, 30.01), box(31.22, 30.00, 31.23, 30.01)])
    src = gpd.GeoDataFrame(
        {"id": [1, 2, 3]}, geometry=[Point(31.2, 30.0), box(31.20, 30.02, 31.21, 30.03), two], crs=4326
    )
    src.to_file(tmp_path / "h.geojson")
    contract = derive_contract(
        "Reproject `h.geojson` to EPSG:32636 into `h.gpkg`. Leave the geometry types alone.",
        ["h.gpkg"],
        input_facts(tmp_path),
    )
    [req] = [r for r in contract.requirements if r.kind == "geometry_types_kept"]

    def seen(frame):
        frame.to_crs(32636).to_file(tmp_path / "h.gpkg")
        return check(contract, tmp_path)[req.text]

    assert seen(src)[0]
    passed, observed = seen(src.explode(index_parts=False))
    assert not passed and "MultiPolygon 1 → 0" in observed
    from shapely.geometry import MultiPoint

    promoted = src.assign(geometry=[MultiPoint([src.geometry[0]]), src.geometry[1], two])
    assert not seen(promoted)[0]
