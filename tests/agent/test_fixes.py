"""The registry of certain fixes: each rule's guard reports what it saw as data, its rewrite reads
that data (not the guard's words), and the strategy names the events carry come from the rules."""

from __future__ import annotations

import asyncio
import io
from contextlib import redirect_stdout

import pandas as pd
import pytest
from pydantic import ValidationError

from geoagent_ext.agent import fixes, repair
from geoagent_ext.agent.events import Repaired
from geoagent_ext.agent.events_schema import sent_event_schema
from geoagent_ext.agent.fixes import (
    columns_not_layers,
    csv_records,
    frame_meant,
    keep_frame,
    keep_one,
    kept_copy,
    make_valid,
    measure_column,
    measure_reprojected,
    metric_crs,
    nearest_distance,
    nearest_uncapped,
    not_geometry,
    orient_ring,
    own_column,
    property_called,
    rebuilt_frame,
    rename_onto,
    set_geometry,
    stub_value,
    unwritten_frame,
    written_result,
)
from geoagent_ext.agent.fixes.keep_frame import KeepFrame
from geoagent_ext.agent.fixes.keep_geometry import KeepGeometry, column_selections, with_geometry_selected
from geoagent_ext.agent.fixes.stub_value import stub_values


class _Probes:
    """A kernel that answers the guards' probes from a table."""

    def __init__(self, answers: dict):
        self.answers = answers

    async def probe(self, function: str, *args, probe_timeout=None):
        return self.answers[function]


def _tripped(rule: fixes.Rule, code: str, namespace: dict, answers: dict, facts: fixes.TrialFacts):
    """Run ``code`` with ``rule``'s guard here, as a trial would: (the error it raised, what it reported)."""
    suffix = asyncio.run(rule.guard(_Probes(answers), code, facts))
    printed = io.StringIO()
    with redirect_stdout(printed), pytest.raises(Exception) as raised:
        exec(code + suffix, namespace)
    return raised.value, fixes.tripped_guard(printed.getvalue())


def _points():
    import geopandas as gpd
    from shapely.geometry import Point

    return gpd.GeoDataFrame({"name": ["a", "b"]}, geometry=[Point(0, 0), Point(1, 1)], crs=4326)


def _classified(code: str, frames: dict, error: type[Exception], lineno: int, **known):
    """Run ``code`` on copies of ``frames`` as a failing attempt would, and classify its ``error``."""
    with pytest.raises(error) as raised:
        exec(code, dict(frames))
    return repair.classify(code, error.__name__, str(raised.value), str(raised.value), lineno, **known)


def test_the_repaired_events_strategies_are_the_registrys():
    """The event's schema (and so the panel's generated types, kept in step by the event types'
    drift test) lists every strategy the rules, the model-asked repairs and the solvers give, and
    the event refuses any other."""
    strategy = sent_event_schema()["$defs"]["Repaired"]["properties"]["strategy"]
    assert strategy == {"enum": fixes.strategy_names(), "type": "string"}
    made = {"run_id": "r", "seq": 1, "subtask_id": "s1", "attempt": 2, "diagnosis": ""}
    assert all(Repaired(**made, strategy=name).strategy == name for name in fixes.strategy_names())
    with pytest.raises(ValidationError):
        Repaired(**made, strategy="not_a_rule")


def test_the_documentation_table_lists_every_rule_by_the_mistake_it_fixes():
    rows = fixes.table().splitlines()[2:]
    assert len(rows) == len(fixes.rules())
    assert any(r.startswith("| `fixes/keep_geometry.py` | keep_geometry | ``gdf = gdf[['a', 'b']]``") for r in rows)


def test_every_module_of_the_registry_holds_a_rule_and_every_certain_rule_says_what_it_did():
    import pkgutil

    modules = {m.name for m in pkgutil.iter_modules(fixes.__path__)} - {"base"}
    assert modules == {type(rule).__module__.rsplit(".", 1)[-1] for rule in fixes.rules()}
    for rule in fixes.rules():
        if rule.strategy:
            said = rule.said(fixes.Diagnosis(rule.strategy, "", name="x", expression="y", fixed_code="z"))
            assert said, rule


def test_a_selection_that_leaves_out_the_geometry_is_tripped_and_gets_the_column_back():
    """A spatial output written from `gdf = gdf[['name']]` has no geometry (seven repairs of such a
    GeoParquet before the guard): the trial fails it and the column joins the selection."""
    code = "pts = pts[['name']]"
    answers = {"geometry_names": {"pts": "geometry"}}
    error, seen = _tripped(KeepGeometry(), code, {"pts": _points()}, answers, fixes.TrialFacts(spatial_output=True))
    assert isinstance(error, TypeError) and "left out its geometry column 'geometry'" in str(error)
    assert seen == {"rule": "KeepGeometry", "name": "pts", "source": "pts", "geometry": "geometry"}
    d = repair.classify(code, "TypeError", str(error), str(error), 1, tripped=seen)
    assert (d.strategy, d.fixed_code) == ("keep_geometry", "pts = pts[['name', 'geometry']]")
    assert d.fix_said == "kept the geometry column `geometry` in `pts`'s column selection"
    # the guard's words alone are not read: the rewrite follows the data it reported
    assert repair.classify(code, "TypeError", str(error), str(error), 1).strategy != "keep_geometry"
    # no spatial output: no guard
    assert asyncio.run(KeepGeometry().guard(_Probes(answers), code, fixes.TrialFacts())) == ""


def test_a_selection_that_rebinds_its_frame_gets_the_geometry_column_added():
    code = "gdf = gdf[['a', 'b']]\nother = gdf[['a']]\ngdf = gdf[['a', 'geometry']]"
    assert column_selections(code) == [("gdf", "gdf")]  # `other` is a new frame: its own choice
    assert with_geometry_selected(code, "gdf", "geometry").splitlines() == [
        "gdf = gdf[['a', 'b', 'geometry']]",
        "other = gdf[['a']]",
        "gdf = gdf[['a', 'geometry']]",
    ]
    assert with_geometry_selected("gdf = gdf[['a', 'geom']]", "gdf", "geom") is None


def test_a_selection_into_a_new_frame_written_to_a_spatial_output_keeps_the_geometry(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "out").mkdir()
    code = "out = pts[['name']]\nout.to_parquet('out/named.geoparquet')\ntable = pts[['name']]\ntable.to_csv('t.csv')"
    facts = fixes.TrialFacts(spatial_output=True, spatial_paths=("out/named.geoparquet",))
    assert column_selections(code, facts.spatial_paths) == [("out", "pts")]  # `table` is written as CSV
    answers = {"geometry_names": {"pts": "geometry"}}
    error, seen = _tripped(KeepGeometry(), code, {"pts": _points(), "__name__": "x"}, answers, facts)
    assert seen == {"rule": "KeepGeometry", "name": "out", "source": "pts", "geometry": "geometry"}, error
    d = repair.classify(code, "TypeError", str(error), str(error), 1, tripped=seen)
    assert d.strategy == "keep_geometry" and d.fixed_code.splitlines()[0] == "out = pts[['name', 'geometry']]"
    # the same selection written to an output without geometries is the model's choice
    assert column_selections(code.replace("geoparquet", "parquet"), ("out/named.csv",)) == []


def test_a_frame_rebuilt_from_a_dict_of_its_own_columns_gets_its_geometry_back():
    """``gdf = gpd.GeoDataFrame({'label': gdf['name']})`` rebinds the frame it reads, so after the
    step the source holds no geometry either: the kernel tells the guard, before the step, that it
    held a GeoDataFrame, and the call is given its geometry."""
    import geopandas as gpd

    code = "pts = gpd.GeoDataFrame({'label': pts['name'], 'name': pts['name']})"
    assert set_geometry.geometryless_builds(code) == [("pts", "pts")]
    answers = {"geometry_names": {"pts": "geometry"}}
    rule = set_geometry.SetGeometry()
    error, seen = _tripped(rule, code, {"pts": _points(), "gpd": gpd}, answers, fixes.TrialFacts())
    assert seen == {"rule": "SetGeometry", "name": "pts", "source": "pts", "kind": "given"}, error
    d = repair.classify(code, "TypeError", str(error), str(error), 1, tripped=seen)
    assert d.strategy == "set_geometry" and d.fixed_code.endswith("'name': pts['name']}, geometry=pts.geometry)")
    namespace = {"pts": _points(), "gpd": gpd}
    exec(d.fixed_code, namespace)
    assert list(namespace["pts"]["label"]) == ["a", "b"] and namespace["pts"].crs == "EPSG:4326"
    # a source that held no GeoDataFrame before the step: nothing to give back, no trip
    suffix = asyncio.run(rule.guard(_Probes({"geometry_names": {}}), code, fixes.TrialFacts()))
    exec(code + suffix, {"pts": _points(), "gpd": gpd})


def test_a_frame_from_a_dict_of_columns_refused_its_crs_gets_the_sources_geometry():
    """geopandas refuses ``crs=`` on such a frame before any guard runs; the live kernel tells the
    source is a GeoDataFrame, and the call is given its geometry (a source that is not one is left
    to the model)."""
    import geopandas as gpd

    code = "out = gpd.GeoDataFrame({'label': pts['name']}, crs=pts.crs)"
    with pytest.raises(ValueError) as raised:
        exec(code, {"pts": _points(), "gpd": gpd})
    d = repair.classify(code, "ValueError", str(raised.value), str(raised.value), 1)
    fixed = asyncio.run(fixes.diagnose_live(d, code, 1, _Probes({"geometry_names": {"pts": "geometry"}})))
    assert fixed.strategy == "set_geometry"
    assert fixed.fixed_code == "out = gpd.GeoDataFrame({'label': pts['name']}, crs=pts.crs, geometry=pts.geometry)"
    namespace = {"pts": _points(), "gpd": gpd}
    exec(fixed.fixed_code, namespace)
    assert len(namespace["out"].geometry) == 2
    rule = set_geometry.SetGeometry()
    assert asyncio.run(rule.diagnose_live(d, code, 1, _Probes({"geometry_names": {}}))) is None


def test_dropping_every_copy_of_a_duplicate_where_the_contract_keeps_one_becomes_keep_first():
    """``drop_duplicates(keep=False)`` and ``gdf[~gdf.duplicated(keep=False)]`` lose every feature
    that had a copy: where the contract keeps one of each set the trial fails the step and each
    becomes ``keep='first'``; selecting the copies (not negated) is left alone."""
    from geoagent_ext.contract.model import Contract, Requirement

    kept = Requirement(
        id="r1",
        output="o.parquet",
        text="one of each kept",
        kind="geometries_unique",
        params={"input": "in.geojson", "key": "id"},
    )
    assert Contract(requirements=[kept]).keeps_one_of_duplicates()
    assert not Contract(requirements=[kept.model_copy(update={"params": {}})]).keeps_one_of_duplicates()

    code = (
        "copies = pts[pts.duplicated(subset='name', keep=False)]\n"
        "pts = pts.drop_duplicates(subset='geometry', keep=False)\n"
        "pts = pts[~pts.duplicated(subset='name', keep=False)]"
    )
    namespace = {"pts": pd.concat([_points(), _points()], ignore_index=True)}
    facts = fixes.TrialFacts(keeps_one=True)
    error, seen = _tripped(keep_one.KeepOne(), code, namespace, {}, facts)
    assert seen == {"rule": "KeepOne", "calls": 2}, error
    d = repair.classify(code, "ValueError", str(error), str(error), 3, tripped=seen)
    assert d.strategy == "keep_one"
    assert d.fixed_code.splitlines() == [
        "copies = pts[pts.duplicated(subset='name', keep=False)]",
        "pts = pts.drop_duplicates(subset='geometry', keep='first')",
        "pts = pts[~pts.duplicated(subset='name', keep='first')]",
    ]
    assert namespace["pts"].empty  # as written, nothing is left
    namespace = {"pts": pd.concat([_points(), _points()], ignore_index=True)}
    exec(d.fixed_code, namespace)
    assert list(namespace["pts"]["name"]) == ["a", "b"]
    # a contract that keeps no copy, or code without keep=False: no guard
    assert asyncio.run(keep_one.KeepOne().guard(_Probes({}), code, fixes.TrialFacts())) == ""
    assert asyncio.run(keep_one.KeepOne().guard(_Probes({}), "pts = pts.drop_duplicates()", facts)) == ""


def test_a_nearest_join_capped_where_every_row_is_kept_and_no_limit_was_asked_loses_its_cap():
    """``sjoin_nearest(..., max_distance=2)`` drops the rows with nothing that near: where the contract
    keeps one row per input feature and caps no distance, the trial fails the step and the cap goes."""
    import geopandas as gpd
    from shapely.geometry import Point

    def frames():
        far = gpd.GeoDataFrame({"name": ["c"]}, geometry=[Point(100, 100)], crs=3857)
        return {"gpd": gpd, "pts": _points().to_crs(3857), "far": far}

    code = (
        "near = gpd.sjoin_nearest(pts, far, how='inner',\n"
        "    max_distance=2,  # the model's own limit\n"
        "    distance_col='distance_m')"
    )
    facts = fixes.TrialFacts(keeps_every_row=True)
    error, seen = _tripped(nearest_uncapped.NearestUncapped(), code, frames(), {}, facts)
    assert seen == {"rule": "NearestUncapped", "calls": 1}, error
    d = repair.classify(code, "ValueError", str(error), str(error), 4, tripped=seen)
    assert d.strategy == "nearest_uncapped"
    assert d.fixed_code == "near = gpd.sjoin_nearest(pts, far, how='inner', distance_col='distance_m')"
    namespace = frames()
    exec(code, namespace)
    assert namespace["near"].empty  # as written, no point is that near
    namespace = frames()
    exec(d.fixed_code, namespace)
    assert len(namespace["near"]) == 2 and namespace["near"]["distance_m"].gt(0).all()
    # a request that caps the distance, or an output that need not keep every row: no guard
    rule = nearest_uncapped.NearestUncapped()
    capped = fixes.TrialFacts(keeps_every_row=True, caps_distance=True)
    assert asyncio.run(rule.guard(_Probes({}), code, capped)) == ""
    assert asyncio.run(rule.guard(_Probes({}), code, fixes.TrialFacts())) == ""


def test_a_frame_another_library_failed_to_write_to_a_vector_file_is_written_with_to_file(tmp_path, monkeypatch):
    """A module function given a frame and a vector file's path failed (here a name the module
    lacks): the next attempt writes the frame with ``to_file``, keeping its ``layer=``, and it runs."""
    import types

    import geopandas as gpd

    monkeypatch.chdir(tmp_path)
    code = "import geemap\ngeemap.gdf_to_gpkg(pts, 'out/pts.gpkg', layer='points', overwrite=True)\nprint(len(pts))"
    namespace = {"pts": _points(), "geemap": types.ModuleType("geemap")}
    (tmp_path / "out").mkdir()
    with pytest.raises(AttributeError) as raised:
        exec(code.split("\n", 1)[1], namespace)
    d = repair.classify(code, "AttributeError", str(raised.value), f"AttributeError: {raised.value}", 2)
    assert d.strategy == "vector_write" and "`pts` to 'out/pts.gpkg'" in d.fix_said
    assert d.fixed_code.splitlines()[1] == "pts.to_file('out/pts.gpkg', layer='points')"
    exec(d.fixed_code.split("\n", 1)[1], namespace)
    assert list(gpd.read_file("out/pts.gpkg", layer="points")["name"]) == ["a", "b"]
    # a path that is not a vector file, or no frame first, is left to the other repairs
    for other in ("geemap.gdf_to_csv(pts, 'pts.csv')", "geemap.read('pts.geojson', pts)", "pts.to_json('pts.geojson')"):
        assert repair.classify(other, "AttributeError", "x", "AttributeError: x", 1).strategy != "vector_write"


def test_a_frame_with_a_second_geometry_column_is_written_with_its_active_geometry(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code = "pts['centre'] = pts.centroid\nprint(len(pts))\npts.to_file('pts.geojson')"
    namespace = {"pts": _points()}
    with pytest.raises(ValueError) as raised:
        exec(code, namespace)
    failure = fixes.Failure(code, "ValueError", str(raised.value), str(raised.value), 3)
    d = fixes.diagnose(failure)
    assert d is not None and d.strategy == "extra_geometries", d
    exec(d.fixed_code, {"pts": _points()})
    import geopandas as gpd

    written = gpd.read_file(tmp_path / "pts.geojson")
    assert list(written.columns) == ["name", "geometry"] and len(written) == len(_points())
    assert d.fixed_code.splitlines()[:2] == code.splitlines()[:2]  # only the write changes


def test_a_frame_whose_index_is_also_a_column_is_written_with_the_column(tmp_path, monkeypatch):
    """A dissolve key kept as the index and set again as a column fails the write (pandas: "cannot
    insert source, already exists"); the write takes the frame without that index level, the
    column the code set is what the file holds, and only the write changes."""
    monkeypatch.chdir(tmp_path)
    import geopandas as gpd
    from shapely.geometry import box

    parts = gpd.GeoDataFrame(
        {"source": ["a", "b", "a"]}, geometry=[box(0, 0, 1, 1), box(5, 0, 6, 1), box(1, 0, 2, 1)], crs=32118
    )
    code = (
        "groups = parts.dissolve(by='source')\n"
        "groups['source'] = ['left', 'right']\n"
        "for _ in range(1):\n    groups.to_file('groups.geojson', driver='GeoJSON')"
    )
    with pytest.raises(ValueError) as raised:
        exec(code, {"parts": parts})
    failure = fixes.Failure(code, "ValueError", str(raised.value), str(raised.value), 4)
    d = fixes.diagnose(failure)
    assert d is not None and d.strategy == "index_twice", d
    assert d.fixed_code.splitlines()[:3] == code.splitlines()[:3]
    exec(d.fixed_code, {"parts": parts})
    written = gpd.read_file(tmp_path / "groups.geojson")
    assert written["source"].tolist() == ["left", "right"] and list(written.columns) == ["source", "geometry"]
    assert written.geometry.area.round(6).tolist() == [2.0, 1.0]
    # the same words about anything but a write of a named frame on the failing line go to the model
    other = "x = parts.dissolve(by='source')\nx['source'] = 1\ny = x.reset_index()"
    assert fixes.diagnose(fixes.Failure(other, "ValueError", str(raised.value), str(raised.value), 3)) is None


def test_zero_buffers_of_a_layer_are_found_and_written_make_valid_and_others_left_alone():
    code = (
        "a = a.set_geometry(a.geometry.buffer(0))\nb['geometry'] = b['geometry'].buffer(distance=0.0)\n"
        "c = c.buffer(10)\nd = d.geometry.apply(lambda g: g.buffer(0))"
    )
    assert make_valid.zero_buffers(code) == ["a", "b"]  # a shapely geometry in a lambda has no make_valid()
    assert make_valid.with_make_valid(code, "a").splitlines()[0] == "a = a.set_geometry(a.geometry.make_valid())"
    assert make_valid.with_make_valid(code, "b").splitlines()[1] == "b['geometry'] = b['geometry'].make_valid()"
    assert make_valid.with_make_valid(code, "c") is None


def test_a_written_frame_without_its_geometry_set_gets_its_one_geometry_column_set_before_the_write():
    code = "out = stops[['id', 'buf']]\nwith open('log.txt', 'w') as f:\n    out.to_parquet('z.parquet')\nprint(1)"
    assert set_geometry.written_frames(code) == ["out"]
    evalue = (
        "`out` was written without a geometry column set: its geometries are in 'buf', and the file written "
        "from it does not open as a spatial file. ..."
    )
    seen = {"rule": "SetGeometry", "kind": "unset", "name": "out", "geometry": "buf"}
    d = repair.classify(code, "TypeError", evalue, "", 4, tripped=seen)
    assert (d.strategy, d.name, d.expression) == ("set_geometry", "out", "buf")
    assert d.fixed_code == (
        "import geopandas as gpd\nout = stops[['id', 'buf']]\nwith open('log.txt', 'w') as f:\n"
        "    out = gpd.GeoDataFrame(out, geometry='buf')\n"
        "    out = out.rename_geometry('geometry') if 'geometry' not in out.columns else out\n"
        "    out.to_parquet('z.parquet')\nprint(1)"
    )
    assert set_geometry.with_geometry_set("print(out)", "out", "buf") is None  # nothing writes it


def test_a_geodataframe_built_from_one_frame_s_columns_gets_that_frame_s_geometry():
    code = "out = gpd.GeoDataFrame({'a': src['a'], 'b': src.b},)\nprint(out)"
    assert set_geometry.geometryless_builds(code) == [("out", "src")]
    evalue = "`out` was built from `src`'s columns without its geometry: no row of it has one. ..."
    seen = {"rule": "SetGeometry", "kind": "given", "name": "out", "source": "src"}
    d = repair.classify(code, "TypeError", evalue, "", 1, tripped=seen)
    assert (d.strategy, d.expression) == ("set_geometry", "src.geometry")
    assert d.fixed_code == "out = gpd.GeoDataFrame({'a': src['a'], 'b': src.b}, geometry=src.geometry)\nprint(out)"
    assert set_geometry.geometryless_builds("out = gpd.GeoDataFrame({'a': src['a']}, geometry=src.geometry)") == []
    assert set_geometry.geometryless_builds("out = gpd.GeoDataFrame({'a': src['a'], 'b': other['b']})") == []
    # a column computed by the frame's own methods comes from it too; a module's function, a literal
    # or a bare name is another source, so the build is left as written
    computed = "out = gpd.GeoDataFrame({'len': src['geometry'].apply(lambda g: g.length), 'b': src.b.astype(int)})"
    assert set_geometry.geometryless_builds(computed) == [("out", "src")]
    for other in ("pd.to_numeric(src['b'])", "[1, 2]", "values", "f(src)"):
        assert set_geometry.geometryless_builds(f"out = gpd.GeoDataFrame({{'a': src['a'], 'b': {other}}})") == []


def test_a_frame_rebuilt_from_its_own_geometry_and_columns_keeps_its_values():
    """``GeoDataFrame(geometry=gdf.geometry, columns=gdf.columns)`` gives NaN in every column: the
    rewrite before the run keeps the frame's values and takes the geometry."""
    code = (
        "import geopandas as gpd\n"
        "sites = gpd.GeoDataFrame(\n    geometry=sites.geometry.buffer(1),\n    crs=sites.crs,\n"
        "    columns=sites.columns\n)\n"
        "other = gpd.GeoDataFrame(geometry=sites['geometry'], columns=sites.columns, crs=sites.crs)\n"
    )
    fixed = fixes.before_run(code, {"sites"})
    assert "sites = sites.set_geometry(sites.geometry.buffer(1))" in fixed
    assert "other = sites.set_geometry(sites['geometry'])" in fixed
    space = {"sites": _points()}
    exec(compile(fixed, "<fixed>", "exec"), space)
    assert space["sites"]["name"].tolist() == ["a", "b"] and space["sites"].geom_type.tolist() == ["Polygon"] * 2
    assert space["other"]["name"].tolist() == ["a", "b"] and space["other"].crs.to_epsg() == 4326
    asked = {"sites": _points()}
    exec(compile(code, "<asked>", "exec"), asked)
    assert asked["sites"]["name"].isna().all()  # the mistake the rewrite removes
    for kept in (
        "x = gpd.GeoDataFrame(geometry=a.geometry, columns=b.columns)",  # another frame's columns
        "x = gpd.GeoDataFrame(a, geometry=a.geometry, columns=a.columns)",  # given its data
        "x = gpd.GeoDataFrame(geometry=a.geometry, columns=a.columns, index=a.index)",  # more than asked
        "x = gpd.GeoDataFrame(geometry=a.geometry, columns=a.columns, crs=3857)",  # geopandas refuses it
        "x = gpd.GeoDataFrame(geometry=a.to_crs(3857).geometry, columns=a.columns, crs=a.crs)",  # refused too
    ):
        assert rebuilt_frame.with_frames_kept(kept) == kept


def test_a_measure_read_as_a_column_becomes_the_geometry_s_measure_in_metres_by_the_crs():
    code = "a = hexes[hexes['area'] >= 100]\nb = roads['length'].sum()\nc = parcels['area'] * 2"
    assert sorted(measure_column.measure_reads(code, "area")) == ["hexes", "parcels"]
    units = {"hexes": "metre", "parcels": "geographic", "roads": "geographic"}
    assert measure_column.with_measures(code, "area", units).splitlines() == [
        "a = hexes[hexes.area >= 100]",
        "b = roads['length'].sum()",
        "c = parcels.to_crs(6933).area * 2",
    ]
    assert measure_column.with_measures(code, "length", units).splitlines()[1] == (
        "b = roads.to_crs(roads.estimate_utm_crs()).length.sum()"
    )
    assert measure_column.with_measures(code, "area", {"hexes": "metre"}).endswith("c = parcels['area'] * 2")
    made = "hexes['area'] = hexes.area\nsmall = hexes[hexes['area'] < 1]"  # a column the code makes: its own
    assert measure_column.measure_reads(made, "area") == []


def test_a_write_s_result_bound_to_a_name_becomes_the_frame_written(tmp_path):
    """``typed = gdf.to_file(path)`` binds None; after the rewrite the name holds the frame and the
    same file is written."""
    path = tmp_path / "typed.geojson"
    code = (
        f"typed = sites.to_crs(3857).to_file({str(path)!r}, driver='GeoJSON')\n"
        "for _ in range(1):\n    table = sites.to_csv(None)\n    kept = sites.to_csv(path_or_buf=None)\n"
        "print(typed.crs)"
    )
    fixed = fixes.before_run(code, {"sites"})
    assert f"typed = sites.to_crs(3857)\ntyped.to_file({str(path)!r}, driver='GeoJSON')" in fixed
    assert "    table = sites.to_csv(None)\n    kept = sites.to_csv(path_or_buf=None)" in fixed  # text, not None
    space = {"sites": _points()}
    with pytest.raises(AttributeError, match="'NoneType' object has no attribute 'crs'"):
        exec(compile(code, "<asked>", "exec"), {"sites": _points()})
    with redirect_stdout(io.StringIO()) as printed:
        exec(compile(fixed, "<fixed>", "exec"), space)
    assert printed.getvalue().strip() == "EPSG:3857"
    import geopandas as gpd

    assert gpd.read_file(path)["name"].tolist() == ["a", "b"]
    nested = "if True:\n    out = sites.to_parquet('x.parquet')\n"
    assert written_result.with_written_frames_kept(nested) == (
        "if True:\n    out = sites\n    out.to_parquet('x.parquet')\n"
    )


def test_a_name_rebound_to_its_own_geometry_is_found_and_kept_a_frame():
    """`gdf = gdf.simplify(10)` (or a chain of per-row geometry members on `gdf`) is what the
    frame guard watches and `keep_frame` rewrites; a filter, a dissolve or a later other binding
    of the name is not: its rows or meaning changed, so set_geometry would misalign it."""
    code = (
        "sites = sites.simplify(tolerance=0.01)  # single parts\n"
        "b = b.to_crs(3857).buffer(5)\nb = b.dissolve()\n"
        "c = c[c.is_valid].geometry\n"
        "d = d['geometry'].centroid\n"
        "e = e.to_crs(3857)\nfor e in range(2):\n    pass\n"
    )
    assert keep_frame.frame_rebinds(code) == ["sites", "d"]
    assert (
        keep_frame.with_frame_kept(code, "sites").splitlines()[0]
        == "sites = sites.set_geometry(sites.simplify(tolerance=0.01))  # single parts"
    )
    assert keep_frame.with_frame_kept(code, "d").splitlines()[4] == "d = d.set_geometry(d['geometry'].centroid)"
    assert keep_frame.with_frame_kept(code, "b") is None and keep_frame.with_frame_kept(code, "c") is None
    # the guard is only for frames with columns to lose; what it reports is the certain fix's cue
    guard = KeepFrame().guard
    assert asyncio.run(guard(_Probes({"geo_frames": {"sites": []}}), code, fixes.TrialFacts())) == ""
    assert "'sites'" in asyncio.run(guard(_Probes({"geo_frames": {"sites": ["site_id"]}}), code, fixes.TrialFacts()))
    error = "`sites` held a GeoDataFrame with the columns ['site_id'] and this step made it a GeoSeries"
    seen = {"rule": "KeepFrame", "name": "sites"}
    diagnosis = repair.classify(code, "TypeError", error, "TypeError: " + error, 9, tripped=seen)
    assert diagnosis.strategy == "keep_frame" and diagnosis.fixed_code == keep_frame.with_frame_kept(code, "sites")
    assert repair.classify(code, "TypeError", error, "", 9, tripped={**seen, "name": "c"}).strategy != "keep_frame"


def test_column_assignments_between_two_frames_are_the_ones_the_alignment_guard_watches():
    code = (
        "near['name'] = hospitals['name']\nnear['d'] = near['distance']\nif True:\n    a['x'] = b['y']\nc['k'] = d.k\n"
    )
    assert own_column.cross_frame_assignments(code) == [("near", "name", "hospitals", "name", 1)]
    assert (
        own_column.with_assigned_value(code, 1, "near['name_right']").splitlines()[0]
        == "near['name'] = near['name_right']"
    )
    assert own_column.with_assigned_value(code, 3, "x") is None


def test_validity_filters_are_found_and_written_as_the_repair():
    code = "a = a[a.is_valid].copy()\nb = b[~b.geometry.is_valid]\nc = c[c['geometry'].is_valid]"
    assert make_valid.row_filters(code) == ["a", "c"]  # b keeps the invalid ones (an audit): not a filter to undo
    assert (
        make_valid.with_validity_repaired(code, "a").splitlines()[0]
        == "a = a.set_geometry(a.geometry.make_valid(method='structure', keep_collapsed=False)).copy()"
    )
    assert make_valid.with_validity_repaired(code, "b") is None


def test_validity_filters_written_per_geometry_or_through_loc_are_found_too():
    code = (
        "p = p[p.geometry.apply(lambda geom: geom.is_valid)]\n"
        "q = q.loc[q.is_valid == True]\n"
        "r = r[r['geometry'].map(shapely.is_valid)]\n"
        "s = s[s.geometry.apply(lambda g: not g.is_valid)]\n"  # keeps the invalid ones
        "t = t[t.geometry.apply(lambda g: u.is_valid)]\n"  # another object's validity
        "v = w[w.is_valid]\n"  # a new frame: the input keeps its features
    )
    assert make_valid.row_filters(code) == ["p", "q", "r"]
    repaired = "{0} = {0}.set_geometry({0}.geometry.make_valid(method='structure', keep_collapsed=False))"
    for line, name in enumerate("pqr"):
        assert make_valid.with_validity_repaired(code, name).splitlines()[line] == repaired.format(name)


def _frames():
    import geopandas as gpd
    import pandas as pd

    pts = _points()
    return {
        "pts": pts,
        "gpd": gpd,
        "near": pd.DataFrame({"name_right": ["x", "y", "z"]}, index=[0, 1, 5]),
        "hosp": pd.DataFrame({"name": ["p", "q"]}),
    }


@pytest.mark.parametrize(
    "rule, code, answers, strategy",
    [
        (KeepFrame(), "pts = pts.simplify(1)", {"geo_frames": {"pts": ["name"]}}, "keep_frame"),
        (
            make_valid.MakeValid(),
            "pts = pts.set_geometry(pts.geometry.buffer(0))",
            {"geo_present": {"pts": [2, 2]}},
            "make_valid",
        ),
        (own_column.OwnColumn(), "near['hn'] = hosp['name']", {}, "own_column"),
        (
            set_geometry.SetGeometry(),
            "pts['buf'] = pts.to_crs(3857).buffer(1)\nout = pts[['name', 'buf']]\n"
            "out.to_parquet(folder + '/x.parquet')",
            {},
            "set_geometry",
        ),
        (set_geometry.SetGeometry(), "out = gpd.GeoDataFrame({'a': pts['name']})", {}, "set_geometry"),
        (
            rename_onto.RenameOnto(),
            "pts['seq'] = [2, 1]\npts.rename(columns={'seq': 'name'}, inplace=True)",
            {},
            "rename_onto",
        ),
    ],
)
def test_each_guard_reports_what_it_saw_and_its_rule_rewrites_from_that(rule, code, answers, strategy, tmp_path):
    error, seen = _tripped(rule, code, {**_frames(), "folder": str(tmp_path)}, answers, fixes.TrialFacts())
    assert seen and seen["rule"] == type(rule).__name__
    d = repair.classify(code, type(error).__name__, str(error), str(error), 1, tripped=seen)
    assert d.strategy == strategy and d.fixed_code and d.fixed_code != code
    assert d.fix_said
    # the fixed code passes the guard
    suffix = asyncio.run(rule.guard(_Probes(answers), d.fixed_code, fixes.TrialFacts()))
    exec(d.fixed_code + suffix, {**_frames(), "folder": str(tmp_path)})


def test_an_undefined_name_in_a_frame_s_mask_or_own_reprojection_becomes_that_frame():
    """``hexes.to_crs(gdf.estimate_utm_crs())`` and ``hexes[gdf.area > x]`` with nothing named
    ``gdf``: the rewrite reads ``hexes`` there and runs; a name used otherwise is left alone."""
    import geopandas as gpd
    from shapely.geometry import box

    def hexes():
        return gpd.GeoDataFrame(
            {"hex_id": [1, 2]}, geometry=[box(3.3, 6.4, 3.31, 6.41), box(3.4, 6.4, 3.40005, 6.40005)], crs=4326
        )

    code = "hexes = hexes.to_crs(gdf.estimate_utm_crs())\nbig = hexes[gdf.geometry.area >= 100]\nprint(len(big))"
    with pytest.raises(NameError) as raised:
        exec(code, {"hexes": hexes()})
    d = fixes.diagnose(fixes.Failure(code, "NameError", str(raised.value), str(raised.value), 1, {"hexes"}))
    assert d is not None and d.strategy == "frame_meant", d
    assert d.fixed_code.splitlines()[:2] == [
        "hexes = hexes.to_crs(hexes.estimate_utm_crs())",
        "big = hexes[hexes.geometry.area >= 100]",
    ]
    space = {"hexes": hexes()}
    with redirect_stdout(io.StringIO()) as printed:
        exec(d.fixed_code, space)
    assert printed.getvalue().strip() == "1" and space["hexes"].crs.to_epsg() == 32631  # UTM 31N, metres
    # the undefined name bound by the statement that reads it: the reads before are the frame's
    same_line = "gdf = hexes[gdf.area >= 100]\nprint(gdf.crs)"
    assert frame_meant.with_frame_meant(same_line, "gdf", {"hexes"}) == "gdf = hexes[hexes.area >= 100]\nprint(gdf.crs)"
    for left in (
        "small = hexes[helper(hexes.area)]",  # a function, not a frame
        "out = gdf.to_crs(3857)",  # not inside another frame's expression
        "out = hexes.to_crs(gdf.crs)",  # another frame's CRS: which one is not known
        "out = parcels[gdf.area > 1]",  # the frame is bound nowhere
    ):
        name = "helper" if "helper" in left else "gdf"
        assert frame_meant.with_frame_meant(left, name, {"hexes"}) is None, left


def test_an_area_column_named_for_its_unit_gets_that_unit_s_factor():
    """``parcels['area_m2'] = parcels.area * 0.000001`` stores km² under a name that says m²: the
    factor becomes the name's unit's before the run (m², ha, km²); other factors are left alone."""
    import geopandas as gpd
    from shapely.geometry import box

    parcels = gpd.GeoDataFrame({"id": [1]}, geometry=[box(0, 0, 100, 200)], crs=32636)  # 20,000 m²
    code = (
        "parcels['area_m2'] = parcels.geometry.area * 0.000001\n"
        "parcels['area_km2'] = parcels.area / 10**4\n"
        "parcels['area_ha'] = 1e-6 * parcels.area\n"
        "parcels['area_sqft'] = parcels.area * 10.7639\n"
        "parcels['area_ha_ok'] = parcels.area / 1e4\n"
        "parcels['share_km2'] = parcels.area * 0.5"
    )
    fixed = fixes.before_run(code, {"parcels"})
    assert fixed.splitlines() == [
        "parcels['area_m2'] = parcels.geometry.area",
        "parcels['area_km2'] = parcels.area / 1e6",
        "parcels['area_ha'] = parcels.area / 1e4",
        *code.splitlines()[3:],
    ]
    exec(fixed, {"parcels": parcels})
    assert parcels.loc[0, ["area_m2", "area_km2", "area_ha"]].tolist() == [20000.0, 0.02, 2.0]


def test_per_feature_bounds_used_as_one_box_become_the_layer_s_bounding_box():
    """`.bounds` is a frame of one box per feature, with no `tolist` or `total_bounds`: asked for one
    list, through the attribute or a name bound to it in the code, the rewrite gives the whole
    layer's box; a frame of other columns is left to the model."""
    points = _points().set_geometry(_points().geometry.translate(2, 3).union(_points().geometry))
    for code, lineno in [
        ("out = {'bbox': points.geometry.bounds.tolist()}", 1),
        ("box = points.bounds\nout = {'bbox': box.tolist()}", 2),
        ("out = {'bbox': points.bounds.total_bounds.tolist()}", 1),
    ]:
        with pytest.raises(AttributeError) as raised:
            exec(code, {"points": points})
        d = repair.classify(code, "AttributeError", str(raised.value), f"AttributeError: {raised.value}", lineno)
        assert d.strategy == "layer_box" and d.fixed_code, code
        namespace = {"points": points}
        exec(d.fixed_code, namespace)
        assert namespace["out"] == {"bbox": [0.0, 0.0, 3.0, 4.0]}, d.fixed_code
    code = "import pandas as pd\nt = pd.DataFrame({'a': [1]})\nout = t.tolist()"
    d = repair.classify(code, "AttributeError", "'DataFrame' object has no attribute 'tolist'", "", 3)
    assert d.strategy != "layer_box" and d.fixed_code is None


def test_a_rename_onto_a_column_the_frame_has_loses_that_entry_and_keeps_both_columns(tmp_path):
    code = (
        "a = a.rename(columns={'seq': 'id', 'nm': 'name'})\n"
        "b.rename({'seq': 'id'}, axis=1, inplace=True)\n"
        "c = c.rename(columns={'seq': 'id', **more})"
    )
    assert rename_onto.without_renames_onto(code, "a", {"id"}).splitlines()[0] == "a = a.rename(columns={'nm': 'name'})"
    assert rename_onto.without_renames_onto(code, "b", {"id"}).splitlines()[1] == "b.rename({}, axis=1, inplace=True)"
    assert rename_onto.without_renames_onto(code, "c", {"id"}).splitlines()[2] == "c = c.rename(columns={**more})"
    assert rename_onto.without_renames_onto(code, "a", {"name2"}) is None
    # the same rename in a step that writes the frame: the writer's error names the pair
    wrote = "pts['seq'] = [2, 1]\npts = pts.rename(columns={'seq': 'name'})\npts.to_parquet(folder + '/x.parquet')"
    with pytest.raises(ValueError) as raised:
        exec(wrote, {**_frames(), "folder": str(tmp_path)})
    d = repair.classify(wrote, "ValueError", str(raised.value), str(raised.value), 3)
    assert d.strategy == "rename_onto" and "pts = pts.rename(columns={})" in d.fixed_code
    exec(d.fixed_code, {**_frames(), "folder": str(tmp_path)})
    # an index rename and a rename onto a new name pass the guard
    frames = {"pts": _points()}
    ok = "pts = pts.rename(index={0: 'name'})\npts = pts.rename(columns={'name': 'label'})"
    suffix = asyncio.run(rename_onto.RenameOnto().guard(_Probes({}), ok, fixes.TrialFacts()))
    exec(ok + suffix, frames)
    assert list(frames["pts"].columns) == ["label", "geometry"]


def test_a_reprojected_measure_becomes_the_measure_of_the_reprojected_geometries():
    code = (
        "pts['a'] = pts.geometry.area.to_crs(epsg=3857).area\n"
        "pts['b'] = (pts['v'] * pts.area) / pts['geometry'].length.to_crs(3857)\n"
        "pts['c'] = pts.to_crs(3857).area"
    )
    fixed = measure_reprojected.with_reprojection_measured(code).splitlines()
    assert fixed[0] == "pts['a'] = pts.geometry.to_crs(epsg=3857).area"
    assert fixed[1] == "pts['b'] = (pts['v'] * pts.area) / pts['geometry'].to_crs(3857).length"
    assert fixed[2] == "pts['c'] = pts.to_crs(3857).area"
    assert fixes.before_run(code, set()).splitlines() == fixed
    frames = {"pts": _points().assign(v=[1.0, 2.0]).to_crs(3857).buffer(10).to_frame("geometry").assign(v=[1.0, 2.0])}
    with pytest.raises(AttributeError):
        exec(code, dict(frames))
    exec("\n".join(fixed), frames)
    assert frames["pts"]["a"].round().tolist() == [314.0, 314.0]


def test_records_handed_to_a_csv_writer_are_written_as_their_values():
    code = (
        "import csv, io\n"
        "records = [{'n': 2, 'name': 'a'}, {'n': 5, 'name': 'b'}]\n"
        "ordered, own, kept = io.StringIO(), io.StringIO(), io.StringIO()\n"
        "w = csv.writer(ordered)\n"
        "w.writerow(['name', 'n'])\n"
        "for record in records:\n"
        "    w.writerow(record)\n"
        "csv.writer(own).writerow(['n', 'name'])\n"
        "mine = csv.writer(own)\n"
        "mine.writerows(records)\n"
        "plain = csv.writer(kept)\n"
        "for row in [[1, 'x'], ('2', 'y')]:\n"
        "    plain.writerow(row)\n"
        "plain.writerow(records[0])\n"
    )
    as_written: dict = {}
    exec(code, as_written)
    assert as_written["ordered"].getvalue().splitlines() == ["name,n", "n,name", "n,name"]
    fixed = csv_records.with_records_as_rows(code)
    assert fixes.before_run(code, set()) == fixed
    ran: dict = {}
    exec(fixed, ran)
    # a loop's records follow the header the same writer wrote; writerows keeps each record's own order
    assert ran["ordered"].getvalue().splitlines() == ["name,n", "a,2", "b,5"]
    assert ran["own"].getvalue().splitlines() == ["n,name", "2,a", "5,b"]
    # rows that are not dicts, and a dict written outside a loop over records, are written as before
    assert ran["kept"].getvalue() == as_written["kept"].getvalue()
    assert csv_records.with_records_as_rows("for r in rows:\n    out.writerow(r)\n") == (
        "for r in rows:\n    out.writerow(r)\n"
    )


def test_an_attribute_column_wrapped_in_a_geoseries_is_used_as_the_column():
    import geopandas as gpd

    frames = {"gpd": gpd, "pts": _points().assign(code=["7", "9"])}
    code = "total = 0\npts['code'] = gpd.GeoSeries(pts['code']).astype(int)\nshapes = gpd.GeoSeries(pts['geometry'])"
    d = _classified(code, frames, TypeError, 2)
    assert d.strategy == "not_geometry" and d.fix_said
    assert d.fixed_code.splitlines() == ["total = 0", "pts['code'] = pts['code'].astype(int)", code.splitlines()[2]]
    ran = dict(frames, pts=frames["pts"].copy())
    exec(d.fixed_code, ran)
    assert ran["pts"]["code"].tolist() == [7, 9] and ran["shapes"].geom_type.tolist() == ["Point", "Point"]
    # the geometry column, and a line without such a call, are not rewritten
    assert not_geometry.with_columns_unwrapped("s = gpd.GeoSeries(pts['geometry'])", 1) is None
    assert not_geometry.with_columns_unwrapped(code, 1) is None


def test_a_value_the_code_calls_a_placeholder_fails_the_trial():
    code = (
        "rows = []\n"
        "for name in ['a', 'b']:\n"
        "    encoding = 'utf-8'  # Placeholder, replace with actual check\n"
        "    # TODO: replace with the real count\n"
        "    count = 0\n"
        "    rows.append({'name': name, 'encoding': encoding, 'count': count})\n"
        "out = dict(kind='x')\n"
        "out['area'] = None  # dummy value, computed later\n"
    )
    assert [(t, line) for t, line, _ in stub_values(code)] == [("encoding", 3), ("count", 5), ("out['area']", 8)]
    rule = next(r for r in fixes.rules() if isinstance(r, stub_value.StubValue))
    error, _ = _tripped(rule, code, {}, {}, fixes.TrialFacts())
    assert isinstance(error, ValueError) and "`encoding` (line 3" in str(error) and "placeholder" in str(error)
    # a computed value, and a literal whose comment says nothing of replacing it, pass
    fine = "n = len(rows)  # placeholder rows are counted too\nfill = 'unknown'  # placeholder for missing names\n"
    assert stub_values(fine) == [] and asyncio.run(rule.guard(_Probes({}), fine, fixes.TrialFacts())) == ""
    # a column the contract's mend computes may hold a placeholder (the mend replaces it); the others still fail
    mended = fixes.TrialFacts(mended_columns=("encoding", "area"))
    error, _ = _tripped(rule, code, {}, {}, mended)
    assert "`count` (line 5" in str(error) and "encoding" not in str(error) and "area" not in str(error)
    only_mended = "encoding = 'utf-8'  # Placeholder, replace with actual check\n"
    assert asyncio.run(rule.guard(_Probes({}), only_mended, mended)) == ""


def test_a_geometry_property_called_as_a_method_is_read_as_the_property():
    frames = {"pts": _points().to_crs(3857), "shapely": __import__("shapely")}
    code = (
        "merged = pts.buffer(5).unary_union()\n"
        "anchor = merged.centroid()\n"
        "parts = shapely.ops.unary_union(list(pts.geometry))"
    )
    d = _classified(code, frames, TypeError, 1)
    assert d.strategy == "property_called" and d.fix_said
    assert d.fixed_code.splitlines()[0] == "merged = pts.buffer(5).union_all()"
    # the next failure, on the next line, is read the same way; a module's function with arguments stays
    d = _classified(d.fixed_code, frames, TypeError, 2)
    assert d.fixed_code.splitlines()[1:] == ["anchor = merged.centroid", code.splitlines()[2]]
    ran = dict(frames)
    exec(d.fixed_code, ran)
    assert ran["anchor"].geom_type == "Point"
    nested = property_called.with_properties_read("a = gdf.geometry.centroid().area()", 1)
    assert nested == ("a = gdf.geometry.centroid.area", "area")
    assert property_called.with_properties_read("a = gdf.area", 1) is None


def test_a_distance_read_from_a_nearest_join_without_one_becomes_its_distance_col():
    import geopandas as gpd

    frames = {"pts": _points().to_crs(3857), "gpd": gpd}
    frames["far"] = frames["pts"].assign(geometry=frames["pts"].translate(30, 40))
    code = (
        "pts['distance_m'] = gpd.sjoin_nearest(\n    pts,\n    far,\n    how='inner',\n)['distance_m']\n"
        "near = pts.sjoin_nearest(far)\nd = near['dist']"
    )
    d = _classified(code, frames, KeyError, 1)
    assert d.strategy == "nearest_distance" and d.fix_said
    assert "how='inner', distance_col='distance_m')['distance_m']" in d.fixed_code
    d = _classified(d.fixed_code, frames, KeyError, 7)
    assert d.fixed_code.splitlines()[-2] == "near = pts.sjoin_nearest(far, distance_col='dist')"
    ran = dict(frames)
    exec(d.fixed_code, ran)
    assert ran["pts"]["distance_m"].round().tolist() == [50.0, 50.0] and ran["d"].round().tolist() == [50.0, 50.0]
    # a missing column that is not a distance, or a join that names its distance column, is not this fix
    assert repair.classify(
        "x = gpd.sjoin_nearest(pts, far)['name_x']", "KeyError", "'name_x'", "'name_x'", 1
    ).strategy != ("nearest_distance")
    assert (
        nearest_distance.with_distance_col("x = gpd.sjoin_nearest(pts, far, distance_col='d')['dist']", "dist") is None
    )


def test_an_undefined_metric_crs_given_to_to_crs_is_bound_to_the_first_frame_s_utm_zone():
    import geopandas as gpd

    frames = {"pts": _points(), "gpd": gpd}
    code = "import geopandas as gpd\nnear = gpd.sjoin_nearest(\n    pts.to_crs(metric),\n    pts.to_crs(crs=metric),\n)"
    d = _classified(code, frames, NameError, 3, defined_before={"pts"})
    assert d.strategy == "metric_crs" and d.fix_said
    assert d.fixed_code.splitlines()[1] == "metric = pts.estimate_utm_crs()"
    ran = dict(frames)
    exec(d.fixed_code, ran)
    assert ran["near"].crs.to_epsg() == 32631
    # a name that does not say it is a metric CRS, or one read elsewhere too, is left to the model
    assert metric_crs.with_metric_crs_bound("x = pts.to_crs(target)", "target", {"pts"}) is None
    assert metric_crs.with_metric_crs_bound("x = pts.to_crs(utm)\nprint(utm)", "utm", {"pts"}) is None


def test_an_exterior_ring_handed_to_orient_is_the_polygon_oriented_whole():
    code = (
        "from shapely.geometry import Polygon\n"
        "from shapely.geometry.polygon import orient\n"
        "import shapely\n"
        "p = Polygon([(0, 0), (1, 0), (1, 1), (0, 1)], [[(0.2, 0.2), (0.2, 0.4), (0.4, 0.4), (0.4, 0.2)]])\n"
        "cw = Polygon(list(p.exterior.coords)[::-1], [list(p.interiors[0].coords)[::-1]])\n"
        "fixed = orient(cw.exterior, sign=1.0)\n"
        "both = shapely.orient_polygons(cw.exterior) if hasattr(shapely, 'orient_polygons') else orient(cw.exterior)\n"
    )
    as_written: dict = {}
    exec(code, as_written)
    assert as_written["fixed"].geom_type == "LinearRing"  # the mistake: the ring comes back, holes lost
    fixed = orient_ring.with_polygons_oriented(code)
    assert fixes.before_run(code, set()) == fixed
    assert "orient(cw, sign=1.0)" in fixed and "orient_polygons(cw)" in fixed
    ran: dict = {}
    exec(fixed, ran)
    for name in ("fixed", "both"):
        polygon = ran[name]
        assert polygon.geom_type == "Polygon" and len(polygon.interiors) == 1
        assert polygon.exterior.is_ccw and not polygon.interiors[0].is_ccw
    # a ring oriented on its own terms, and other attributes, are left as written
    kept = "r = orient(p)\nq = p.exterior.is_ccw\n"
    assert orient_ring.with_polygons_oriented(kept) == kept


def test_a_frame_s_columns_walked_as_layers_walk_the_file_s_layers(tmp_path, monkeypatch):
    import geopandas as gpd
    from shapely.geometry import Point

    monkeypatch.chdir(tmp_path)
    gpd.GeoDataFrame({"n": [1]}, geometry=[Point(0, 0)], crs=4326).to_file("two.gpkg", layer="wells")
    gpd.GeoDataFrame({"n": [2, 3]}, geometry=[Point(1, 1)] * 2, crs=3857).to_file("two.gpkg", layer="pipes")
    code = (
        "import geopandas as gpd\n"
        "data = gpd.read_file('two.gpkg')\n"
        "rows = []\n"
        "for name, layer in data.items():\n"
        "    rows.append((name, layer.crs.to_epsg(), len(layer)))\n"
    )
    with pytest.raises(AttributeError):  # the mistake: the first column is a plain Series
        exec(code, {})
    fixed = columns_not_layers.with_layers_walked(code)
    assert fixes.before_run(code, set()) == fixed
    ran: dict = {}
    exec(fixed, ran)
    assert sorted(ran["rows"]) == [("pipes", 3857, 2), ("wells", 4326, 1)]
    # names that do not say layer: the untested `.crs` of each value says it; without it, columns
    columns = (
        code.replace("name, layer", "column, values").replace("layer.crs", "values.crs").replace("(layer)", "(values)")
    )
    assert "gpd.list_layers('two.gpkg')" in columns_not_layers.with_layers_walked(columns)
    counted = columns.replace("values.crs.to_epsg()", "values.nunique()")
    assert columns_not_layers.with_layers_walked(counted) == counted
    # a frame read with layer= stays as written
    one = code.replace("read_file('two.gpkg')", "read_file('two.gpkg', layer='wells')")
    assert columns_not_layers.with_layers_walked(one) == one
    # the frame read by an earlier step: the loop walks the layers too, unless a step rebinds it
    read, loop = code.split("rows = []\n")
    walked = fixes.before_run("rows = []\n" + loop, {"data", "gpd"}, read)
    ran = {}
    exec(read + walked, ran)
    assert sorted(ran["rows"]) == [("pipes", 3857, 2), ("wells", 4326, 1)]
    rebound = read + "data = data.to_crs(3857)\n"
    assert fixes.before_run("rows = []\n" + loop, {"data", "gpd"}, rebound) == "rows = []\n" + loop
    assert columns_not_layers.with_layers_walked("data = data[['n']]\n" + loop, read) == "data = data[['n']]\n" + loop
    # read in the loop's header, `layer=None`, names that do not say layer but read each value's CRS
    inline = (
        "import geopandas as gpd\nrows = []\n"
        "for name, df in gpd.read_file('two.gpkg', layer=None).items():\n"
        "    kind = 'text' if 'text' in df.columns else 'none'\n"
        "    rows.append((name, df.crs.to_epsg(), len(df)))\n"
    )
    ran = {}
    exec(fixes.before_run(inline, set()), ran)
    assert sorted(ran["rows"]) == [("pipes", 3857, 2), ("wells", 4326, 1)]
    # columns read as columns (a value tested before its CRS is read, or no frame member) stay
    tested = "for column, values in data.items():\n    if values.dtype == 'geometry':\n        print(values.crs)\n"
    assert columns_not_layers.with_layers_walked(tested, read) == tested
    plain = "for column, values in data.items():\n    print(column, values.nunique())\n"
    assert columns_not_layers.with_layers_walked(plain, read) == plain


def test_a_step_that_built_its_table_and_wrote_nothing_writes_that_table(tmp_path, monkeypatch):
    import pandas as pd

    from geoagent_ext.agent.requested import output_guard

    monkeypatch.chdir(tmp_path)
    code = (
        "import pandas as pd\n"
        "rows = {'a': 1, 'b': 2}\n"
        "table = pd.DataFrame({'name': list(rows), 'n': list(rows.values())})\n"
        "print(table.shape)\n"
    )
    with pytest.raises(FileNotFoundError) as raised:  # the trial's own check of the step's output
        exec(code + output_guard(["out/table.csv"]), {})
    d = repair.classify(code, "FileNotFoundError", str(raised.value), str(raised.value), 5)
    assert d.strategy == "write_frame" and d.name == "table" and d.fix_said
    (tmp_path / "out").mkdir()
    exec(d.fixed_code + output_guard(["out/table.csv"]), {})
    assert pd.read_csv("out/table.csv").to_dict("list") == {"name": ["a", "b"], "n": [1, 2]}
    # two tables, a writer already called, or a format a plain table cannot have: the model decides
    two = code + "other = pd.concat([table, table])\n"
    assert unwritten_frame.with_table_written(two, "t.csv") is None
    assert unwritten_frame.with_table_written(code + "table.to_csv('x.csv')\n", "t.csv") is None
    assert unwritten_frame.with_table_written(code, "t.geojson") is None
    assert unwritten_frame.with_table_written(code, "t.parquet")[0].endswith(
        "table.to_parquet('t.parquet', index=False)\n"
    )


def test_an_output_written_under_another_extension_of_its_name_is_written_to_the_output():
    """The trial says the step did not write `parcels.geoparquet`; its one write of `parcels` went to
    `.geojson` with `to_parquet`, the writer a GeoParquet takes: the path becomes the output's. A
    writer of another format, another name or two such writes are the model's to repair."""
    evalue = "this step must write parcels.geoparquet (the request asks for it), but the code did not write it"
    code = "parcels = parcels.dissolve('id')\nparcels.to_parquet('parcels.geojson')\nprint(len(parcels))"
    d = repair.classify(code, "FileNotFoundError", evalue, evalue, 3)
    assert d.strategy == "output_path"
    assert (
        d.fixed_code
        == "parcels = parcels.dissolve('id')\nparcels.to_parquet('parcels.geoparquet')\nprint(len(parcels))"
    )
    assert repair.classify(
        "out.to_parquet(path='parcels.parquet')", "FileNotFoundError", evalue, evalue, 1
    ).fixed_code == ("out.to_parquet(path='parcels.geoparquet')")
    for other in (
        "parcels.to_csv('parcels.csv')",  # another format's writer
        "parcels.to_parquet('lots.parquet')",  # another name
        "parcels.to_parquet('parcels.parquet')\nparcels.to_parquet('parcels.pq')",  # which one is unsure
    ):
        assert repair.classify(other, "FileNotFoundError", evalue, evalue, 1).strategy != "output_path", other


def test_a_duplicate_dropped_unordered_where_the_request_names_the_kept_copy_is_ordered_first():
    """The contract keeps, of each `pid`, the row with the earliest `seq`; the step drops duplicates
    keeping whichever comes first in the frame. The trial fails it and the call is written over the
    frame sorted by `seq`: the earliest copy of each stays, the rows in their order. Code that orders
    by `seq`, drops every copy (``keep=False``, the `keep_one` fix's) or another key is left."""
    import pandas as pd

    rows = pd.DataFrame({"pid": ["a", "b", "a", "c", "b"], "seq": [5, 2, 1, 7, 9], "v": [1, 2, 3, 4, 5]})
    facts = fixes.TrialFacts(kept_copies=((("pid",), "seq", "min"),))
    code = "out = rows.drop_duplicates(subset='pid', keep='first')\nprint(len(out))"
    rule = next(r for r in fixes.rules() if isinstance(r, kept_copy.KeptCopy))
    error, seen = _tripped(rule, code, {"rows": rows}, {}, facts)
    assert "earliest `seq`" in str(error) and seen == {"rule": "KeptCopy", "kept": [[["pid"], "seq", "min"]]}
    d = repair.classify(code, "ValueError", str(error), str(error), 2, tripped=seen)
    assert d.strategy == "kept_copy"
    namespace = {"rows": rows}
    exec(d.fixed_code, namespace)
    assert namespace["out"].to_dict("list") == {"pid": ["b", "a", "c"], "seq": [2, 1, 7], "v": [2, 3, 4]}
    latest = fixes.TrialFacts(kept_copies=((("pid",), "seq", "max"),))
    error, seen = _tripped(rule, code, {"rows": rows}, {}, latest)
    namespace = {"rows": rows}
    exec(repair.classify(code, "ValueError", str(error), str(error), 2, tripped=seen).fixed_code, namespace)
    assert namespace["out"]["seq"].tolist() == [5, 7, 9]
    for left in (
        "out = rows.sort_values('seq').drop_duplicates(subset='pid')",
        "out = rows.drop_duplicates(subset='pid', keep=False)",
        "out = rows.drop_duplicates(subset=['v'])",
    ):
        assert asyncio.run(rule.guard(_Probes({}), left, facts)) == "", left
