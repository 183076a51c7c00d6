"""Pure pieces of the agent: plan parsing, static code facts, repair classes, p-UCB."""

from __future__ import annotations

import asyncio
import math

import pytest

from geoagent_ext.agent import codeinfo, repair
from geoagent_ext.agent.events import ExecutionSummary, Solved, parse_event
from geoagent_ext.agent.fixes import (
    assigned_inplace,
    drop_keyword,
    drop_print,
    fix_call,
    frame_methods,
    rename_local,
    results_kept,
    start_list,
    text_not_frame,
)
from geoagent_ext.agent.planner import PlanError, parse_plan
from geoagent_ext.agent.search import Node, beta, instrument, p_ucb, priors, split_rollout


def test_parse_plan_tolerates_markdown_and_finds_artifacts():
    plan = parse_plan("Sure!\n**1.** Load `parcels.gpkg`.\n2) Compute areas\n- note\n3. Write areas.csv\n")
    assert [s.description for s in plan.subtasks] == ["Load `parcels.gpkg`.", "Compute areas", "Write areas.csv"]
    assert plan.subtasks[2].artifacts == ["areas.csv"] and plan.subtasks[0].artifacts == ["parcels.gpkg"]


def test_parse_plan_skips_code_under_steps_and_echoed_rules():
    reply = (
        "1. **Load the data**:\n   ```python\n   # 2. not a step\n   gdf = gpd.read_file('a.geojson')\n   ```\n"
        "2. **Compute the area of each unit**:\n"
        "3. Every value the user asks for is computed in some step.\n"
        "4. Write the result to `areas.csv`."
    )
    assert [s.description for s in parse_plan(reply).subtasks] == [
        "Load the data",
        "Compute the area of each unit",
        "Write the result to `areas.csv`.",
    ]


def test_the_planner_adds_no_unrequested_map_and_keeps_a_requested_one():
    # An unrequested map step ("Use geemap to visualize the areas" after "area of every unit, write
    # a CSV") can fail for minutes (Earth Engine sign-in): maps only when asked.
    from geoagent_ext.agent.prompts import PLANNER_SYSTEM

    assert "Make a map or a plot only when the user asks for one." in " ".join(PLANNER_SYSTEM.split())
    reply = (
        "1. Load the parcels.\n2. Show the parcels on a map.\n3. Make a map or a plot only when the user asks for one."
    )
    assert [s.description for s in parse_plan(reply).subtasks] == ["Load the parcels.", "Show the parcels on a map."]


def test_the_planner_relates_layers_by_location_and_keeps_spatial_join_steps():
    # Plans for "stations per district" or "nearest hospital per address" that merge on a column
    # one layer lacks fail on a KeyError whatever the code: layers are related by location.
    from geoagent_ext.agent.prompts import PLANNER_SYSTEM

    rules = " ".join(PLANNER_SYSTEM.split())
    assert "related by location: a spatial join (sjoin)" in rules and "Merge on a column only when both" in rules
    reply = (
        "1. Load the districts and the stations.\n2. Count the points in polygons with a spatial join.\n"
        "3. Merge on a column only when both layers have it."
    )
    assert [s.description for s in parse_plan(reply).subtasks] == [
        "Load the districts and the stations.",
        "Count the points in polygons with a spatial join.",
    ]


def test_parse_plan_decline_and_garbage():
    assert parse_plan("DECLINE: no raster here").declined == "no raster here"
    with pytest.raises(PlanError):
        parse_plan("I cannot help with that")


def test_codeinfo_a_comment_or_text_only_answer_is_no_code():
    # A repair answered with only a comment ("# Cause: the `how` parameter ... not 'nearest'.") runs
    # without error; it is no code, so it cannot be committed as the step.
    for answer in ["# Cause: `how` should be 'left', 'right' or 'inner'.", "pass", "'Just text.'", ""]:
        info = codeinfo.analyse(answer)
        assert not info.ok and info.problem_kind == "NoCode" and info.problem.startswith("No code"), answer
    assert codeinfo.analyse("# Cause: typo\nx = 1").ok


def test_codeinfo_finds_assignments_writes_and_calls():
    info = codeinfo.analyse(
        "import geopandas as gpd\ngdf = gpd.read_file('a.gpkg')\ngdf.to_file('out.geojson')\n"
        "with open('x.json', 'w') as f:\n    pass\nfig.savefig(fname='m.png')"
    )
    assert info.assigned == ["gdf"]
    assert sorted(info.written_files) == ["m.png", "out.geojson", "x.json"]
    assert "gpd.read_file" in info.calls and "gdf.to_file" in info.calls
    assert codeinfo.analyse("x = (").problem.startswith("SyntaxError")


def test_attribute_owner_prefers_failing_line():
    code = "a = gdf.area\nb = parcels.to_crss(3035)\n"
    assert codeinfo.attribute_owner(code, "to_crss", 2) == "parcels"
    assert codeinfo.callee_of("x = gpd.sjoin(a, b, how='left', op='within')", "sjoin", 1) == "gpd.sjoin"


@pytest.mark.parametrize(
    "ename,evalue,strategy,expr",
    [
        ("NameError", "name 'np' is not defined", "add_import", None),
        ("NameError", "name 'pyogrio' is not defined", "add_import", None),  # a module: imported, not a step
        ("NameError", "name 'districts' is not defined", "insert_subtask", None),
        ("AttributeError", "'GeoDataFrame' object has no attribute 'to_crss'", "members", "parcels"),
        ("AttributeError", "module 'geopandas' has no attribute 'read_files'", "members", "geopandas"),
        ("TypeError", "sjoin() got an unexpected keyword argument 'lsuffix_'", "members", "gpd.sjoin"),
        ("ImportError", "cannot import name 'foo' from 'shapely.ops'", "members", "shapely.ops"),
        ("KeyError", "'population'", "data_profile", None),
        ("ValueError", "something odd", "analyse", None),
    ],
)
def test_classify(ename, evalue, strategy, expr):
    code = "x = parcels.to_crss(3035)\ny = gpd.sjoin(a, b, op='within')"
    d = repair.classify(code, ename, evalue, f"{ename}: {evalue}", 1)
    assert d.strategy == strategy
    if expr:
        assert d.expression == expr
    if strategy == "add_import":
        assert d.fixed_code.startswith(("import numpy as np\n", "import pyogrio\n"))


def test_every_known_import_binds_its_name_and_a_class_used_unimported_gets_it():
    """The import a NameError gets is the name's real home (checked on the installed packages),
    and a class of a geospatial library used without its import (``Geod``) is imported rather than
    left to the model, which reads the NameError as a variable to create."""
    import importlib.util

    from geoagent_ext.agent.fixes.imports import KNOWN_IMPORTS

    for name, line in KNOWN_IMPORTS.items():
        module = line.split()[1]
        if importlib.util.find_spec(module.split(".")[0]) is None:
            continue  # an optional library this environment lacks
        space: dict = {}
        exec(line, space)
        assert name in space, line
    code = "g = Geod(ellps='WGS84')\nd = g.inv(0, 0, 1, 1)[2]"
    d = repair.classify(code, "NameError", "name 'Geod' is not defined", "NameError: name 'Geod' is not defined", 1)
    assert (d.strategy, d.fixed_code) == ("add_import", "from pyproj import Geod\n" + code)


def test_a_function_that_hides_the_function_it_calls_gets_its_own_name_renamed():
    """A function that assigns the name of a function it calls (`buffer = buffer(centroid, 0.01)`
    after `from shapely import buffer`) fails with an UnboundLocalError: its own variable is renamed
    and the calls keep the import."""
    code = (
        "from shapely import buffer\n\ndef anchors(patches):\n    out = []\n    for p in patches:\n"
        "        buffer = buffer(p.centroid, 0.01)\n        out.append(buffer)\n    return out\n\n"
        "result = anchors(parks)\nbuffer_value = 1"
    )
    evalue = "cannot access local variable 'buffer' where it is not associated with a value"
    d = repair.classify(code, "UnboundLocalError", evalue, f"UnboundLocalError: {evalue}", 10)
    assert d.strategy == "rename_local"
    assert "        buffer_result = buffer(p.centroid, 0.01)\n        out.append(buffer_result)\n" in d.fixed_code
    from shapely.geometry import Point

    scope = {"parks": [Point(0, 0), Point(2, 0)]}
    exec(d.fixed_code, scope)
    assert [round(g.area, 6) for g in scope["result"]] == [0.000312, 0.000312]  # two 16-gon discs
    assert rename_local.with_local_renamed("def f(buffer):\n    buffer = buffer(1)\n", "buffer") is None  # a parameter
    assert rename_local.with_local_renamed("def f():\n    x = 1\n    return x\n", "x") is None  # nothing called


def test_geopandas_methods_written_as_module_functions_are_called_on_their_frame():
    """Calls geopandas does not have (`gpd.estimate_utm_crs(g)`, `gpd.GeoDataFrame.from_wkt`,
    `gpd.points_from_wkt`) fail whatever else the step does: they are rewritten as the calls it has,
    on their frame, without a model call."""
    import pandas as pd
    from shapely.geometry import Point

    code = (
        "g = g[g['n'] > 0].to_crs(gpd.estimate_utm_crs())\nutm = gpd.estimate_utm_crs(g)\n"
        "w = gpd.GeoDataFrame.from_wkt(df['wkt'], crs='EPSG:4326')\n"
        "p = gpd.GeoDataFrame(df, geometry=gpd.points_from_wkt(df['wkt']), crs=4326)"
    )
    fixed = frame_methods.with_frame_methods(code)
    assert fixed.splitlines() == [
        "g = g[g['n'] > 0].to_crs(g[g['n'] > 0].estimate_utm_crs())",
        "utm = g.estimate_utm_crs()",
        "w = gpd.GeoDataFrame(df, geometry=gpd.GeoSeries.from_wkt(df['wkt']), crs='EPSG:4326')",
        "p = gpd.GeoDataFrame(df, geometry=gpd.GeoSeries.from_wkt(df['wkt']), crs=4326)",
    ]
    import geopandas as gpd

    scope = {
        "gpd": gpd,
        "g": gpd.GeoDataFrame({"n": [1, 2]}, geometry=[Point(139.7, 35.6), Point(139.8, 35.7)], crs=4326),
        "df": pd.DataFrame({"id": [7], "wkt": ["POINT (1 2)"]}),
    }
    exec(fixed, scope)
    assert scope["g"].crs.to_epsg() == scope["utm"].to_epsg() == 32654
    assert list(scope["w"].columns) == ["id", "wkt", "geometry"] and scope["w"].geometry[0].x == 1.0
    valid = "y = g.to_crs(g.estimate_utm_crs())\nx = gpd.GeoDataFrame.estimate_utm_crs(g)"
    assert frame_methods.with_frame_methods(valid) == valid  # calls that run are left as written


def test_a_failing_print_is_taken_out_unless_its_arguments_change_data():
    code = "t.to_csv('t.csv')\nprint(\n    f'CRS: {t.crs}',\n    len(t))\nn = 1"
    assert drop_print.without_failing_print(code, 3) == "t.to_csv('t.csv')\n\nn = 1"
    assert (
        drop_print.without_failing_print("for r in rows:\n    print(r.crs)\nn = 1", 2)
        == "for r in rows:\n    pass\nn = 1"
    )
    assert drop_print.without_failing_print("print(d.pop('a'))", 1) is None  # pop changes the dict
    assert drop_print.without_failing_print("print(t.to_file(path))", 1) is None  # a write, not a report
    assert drop_print.without_failing_print("x = t.crs\nprint(x)", 1) is None  # the failing line is no print
    error = ("AttributeError", "'DataFrame' object has no attribute 'crs'", "", 3)
    assert repair.classify(code, *error, subtask="Write the areas to t.csv.").strategy == "drop_print"
    assert repair.classify(code, *error, subtask="Print the CRS of t.").strategy == "data_profile"
    assert repair.classify(code, *error).strategy == "data_profile"  # no subtask: the certain fixes alone


def test_a_layer_name_used_as_its_frame_is_told_to_read_the_layer_not_shown_str_members():
    """`layer.crs` in a loop over layer names is an attribute of a str, and listing str's members
    does not help; the repair says to read the layer the name stands for and keep the name as a value."""
    code = "for layer in pyogrio.list_layers(path)[:, 0]:\n    rows.append({'layer_name': layer, 'crs': layer.crs})"
    d = repair.classify(code, "AttributeError", "'str' object has no attribute 'crs'", "AttributeError: ...", 2)
    assert (d.strategy, d.name, d.expression) == ("text_not_frame", "crs", "layer")
    note = asyncio.run(repair.enrich(d, code, 2, kernel=None))
    assert "gpd.read_file(path, layer=layer)" in note and "`frame.crs`" in note and "for key, frame in" in note
    named = "for layer in pyogrio.list_layers('deliveries.gpkg')[:, 0]:\n    print(layer.crs)"
    assert "gpd.read_file('deliveries.gpkg', layer=layer)" in asyncio.run(repair.enrich(d, named, 2, kernel=None))
    other = repair.classify(
        "s = name.upper_case()", "AttributeError", "'str' object has no attribute 'upper_case'", "", 1
    )
    assert other.strategy == "members"  # a str member mistyped is a members repair still


def test_a_layer_name_used_as_its_frame_in_a_loop_over_layers_reads_the_layer():
    """A note alone can be echoed back as comments; in a loop over a file's layers the fix is
    certain: read the layer at the top of the body."""
    rows = "for name, layer in pyogrio.list_layers('d.gpkg'):\n    rows.append({'layer_name': name, 'crs': layer.crs})"
    d = repair.classify(rows, "AttributeError", "'str' object has no attribute 'crs'", "", 2)
    assert d.strategy == "text_not_frame" and d.fixed_code == (
        "import geopandas as gpd\nfor name, layer in pyogrio.list_layers('d.gpkg'):\n"
        "    layer = gpd.read_file('d.gpkg', layer=name)\n    rows.append({'layer_name': name, 'crs': layer.crs})"
    )
    names = (
        "import geopandas as gpd\nlayers = fiona.listlayers('d.gpkg')\nfor layer in layers:\n"
        "    rows.append({'layer_name': layer.upper(), 'n': len(layer), 'crs': layer.crs})"
    )
    assert text_not_frame.with_layer_read(names, "layer", 4) == (
        "import geopandas as gpd\nlayers = fiona.listlayers('d.gpkg')\nfor layer in layers:\n"
        "    layer_frame = gpd.read_file('d.gpkg', layer=layer)\n"
        "    rows.append({'layer_name': layer.upper(), 'n': len(layer_frame), 'crs': layer_frame.crs})"
    )
    assert text_not_frame.with_layer_read("for l in names:\n    l.crs", "l", 2) is None  # not a file's layers
    assert (
        text_not_frame.with_layer_read("for l in gpd.list_layers('d.gpkg'):\n    l.crs", "l", 2) is None
    )  # a DataFrame
    assert text_not_frame.with_layer_read(rows, "layer", 1) is None  # the failing line is not in the loop


def test_a_layer_looked_up_by_name_in_a_frame_of_one_layer_reads_the_layer():
    """`len(delivery[name])` in a loop over the file's layers, as if the frame read from the file
    held every layer, fails with KeyError 'parcels' however it is reworded. The certain fix reads
    the layer at the top of the body and the lookups take it; a dict the step fills is left."""
    code = (
        "import pyogrio\nrows = []\nfor name, _ in pyogrio.list_layers('d.gpkg'):\n"
        "    rows.append({'layer_name': name, 'n': len(delivery[name]), 'x': delivery[name].centroid.x})"
    )
    d = repair.classify(code, "KeyError", "'parcels'", "KeyError: 'parcels'", 4)
    assert (
        d.strategy == "text_not_frame"
        and d.expression == "delivery[name]"
        and d.fixed_code
        == (
            "import geopandas as gpd\nimport pyogrio\nrows = []\nfor name, _ in pyogrio.list_layers('d.gpkg'):\n"
            "    name_frame = gpd.read_file('d.gpkg', layer=name)\n"
            "    rows.append({'layer_name': name, 'n': len(name_frame), 'x': name_frame.centroid.x})"
        )
    )
    assert "looked the layer up in a frame that holds one layer" in d.fix_said
    filled = (
        "import geopandas as gpd\nfor name in fiona.listlayers('d.gpkg'):\n"
        "    frames[name] = gpd.read_file('d.gpkg', layer=name)\n    print(len(frames[name]))"
    )
    assert text_not_frame.with_layer_looked_up(filled, 4) is None  # the step's own dict of layers
    elsewhere = "for name in names:\n    print(len(delivery[name]))"
    assert text_not_frame.with_layer_looked_up(elsewhere, 2) is None  # not a file's layers
    assert repair.classify(elsewhere, "KeyError", "'parcels'", "", 2).strategy == "data_profile"


def test_a_frame_dumped_as_json_records_into_a_geojson_is_written_with_to_file():
    """`json.dump(gdf.to_dict(orient='records'), f)` into a .geojson fails on the shapes, and
    turning the geometries into dicts by hand mangles them. The certain fix writes each such block
    with `to_file(..., driver='GeoJSON')`; a .json document is left to the model."""
    code = (
        "import json\nparks['source'] = 'a'\nwith open('parks.geojson', 'w') as f:\n"
        "    json.dump(parks.to_dict(orient='records'), f, indent=4)\n"
        "with open('anchors.geojson', 'w') as out:\n    json.dump(anchors, out)\n"
        "with open('summary.json', 'w') as f:\n    json.dump(summary, f)\nprint('written')"
    )
    d = repair.classify(code, "TypeError", "Object of type Polygon is not JSON serializable", "TypeError: ...", 4)
    assert d.strategy == "fix_call" and d.fixed_code == (
        "import json\nparks['source'] = 'a'\nparks.to_file('parks.geojson', driver='GeoJSON')\n"
        "anchors.to_file('anchors.geojson', driver='GeoJSON')\n"
        "with open('summary.json', 'w') as f:\n    json.dump(summary, f)\nprint('written')"
    )
    assert "json.dump` cannot write shapes" in d.fix_said
    assert fix_call.with_geojson_written("with open('s.json', 'w') as f:\n    json.dump(s, f)") is None


def test_a_standard_library_module_used_without_its_import_gets_it():
    """`csv.writer(file)` without `import csv` is a missing import, not a missing step ("Create the
    variable `csv`"): a name used as a module that the standard library has is imported."""
    code = "with open('a.csv', 'w') as f:\n    w = csv.writer(f)"
    d = repair.classify(code, "NameError", "name 'csv' is not defined", "", 2)
    assert (d.strategy, d.fixed_code) == ("add_import", "import csv\n" + code)
    # A variable that happens to share a module's name is not a module: the step that makes it is missing.
    assert (
        repair.classify("print(queue)", "NameError", "name 'queue' is not defined", "", 1).strategy == "insert_subtask"
    )


def test_defined_name_is_not_inserted_again():
    d = repair.classify("print(pts)", "NameError", "name 'pts' is not defined", "", 1, defined_before={"pts"})
    assert d.strategy == "analyse"


def test_beta_and_p_ucb_follow_the_paper():
    assert beta(0, 1.0, 10.0) == pytest.approx(math.log(11 / 10) + 1.0)
    parent = Node("p", "", visits=4)
    a = Node("a", "", parent=parent, prior=0.7)
    b = Node("b", "", parent=parent, prior=0.3)
    assert p_ucb(parent, a, 1.0, 10.0) > p_ucb(parent, b, 1.0, 10.0)  # higher prior first
    a.visits, a.value = 3, 0.3
    b.visits, b.value = 1, 1.0
    assert p_ucb(parent, b, 1.0, 10.0) > p_ucb(parent, a, 1.0, 10.0)  # better Q and fewer visits win
    failed = Node("f", "", parent=parent, prior=1.0, status="failed")
    assert failed.q == -1.0


def test_priors_softmax_and_uniform():
    ps = priors([-2.0, -10.0], [10, 10])
    assert sum(ps) == pytest.approx(1.0) and ps[0] > ps[1]
    assert priors([None, -1.0], [5, 5]) == [0.5, 0.5]


def test_rollout_split_and_instrumentation():
    chunks = split_rollout("import x\n# Step 2\na = 1\n# Step 3: write\nb = 2\n")
    assert len(chunks) == 2 and chunks[0].startswith("import x") and "b = 2" in chunks[1]
    program = instrument("n = 0", chunks)
    assert program.count("__GEOAGENT_STEP_DONE__") == 3


def test_events_roundtrip_through_json():
    event = Solved(
        run_id="r", seq=3, subtask_id="s", code="x=1", attempts=1, result=ExecutionSummary(status="ok", stdout="1")
    )
    again = parse_event(event.model_dump_json())
    assert again == event and again.type == "solved"


def test_a_submodule_used_without_its_import_is_imported():
    code = "import shapely\ngeoms = df['wkt'].apply(shapely.wkt.loads)"
    d = repair.classify(
        code,
        "AttributeError",
        "module 'shapely' has no attribute 'wkt'",
        "AttributeError: module 'shapely' has no attribute 'wkt'",
        2,
    )
    assert d.strategy == "add_import"
    assert d.fixed_code == "import shapely.wkt\n" + code
    # a misspelt function of the module is not a submodule: the members go to the model
    d = repair.classify(code, "AttributeError", "module 'shapely' has no attribute 'loads_wkt'", "", 2)
    assert d.strategy == "members" and d.expression == "shapely"


def test_a_geo_method_on_a_plain_frame_is_repaired_from_the_data_profile():
    code = "bbox = clinics.total_bounds"
    d = repair.classify(code, "AttributeError", "'DataFrame' object has no attribute 'total_bounds'", "", 1)
    assert d.strategy == "data_profile"
    d = repair.classify(code, "AttributeError", "'DataFrame' object has no attribute 'foo'", "", 1)
    assert d.strategy == "members"


def test_a_file_read_in_a_docs_example_is_named_as_the_examples_not_the_datas():
    """A repair that reads a file of a recipe it was shown (`sites.csv`) fails on a missing file;
    the next prompt says it is the example's file, not the data's."""
    docs = "Recipe: csv-coordinates\ndf = pd.read_csv('sites.csv')\nsites = gpd.GeoDataFrame(df)"
    own = "Fix the numeric columns of `stations.geojson` and write `typed.geojson`."
    for ename, evalue in [
        ("FileNotFoundError", "[Errno 2] No such file or directory: 'sites.csv'"),
        ("DataSourceError", "sites.csv: No such file or directory"),
    ]:
        d = repair.classify("df = pd.read_csv('sites.csv')", ename, evalue, "", 1, examples=docs, own_words=own)
        assert (d.strategy, d.name, d.expression) == ("example_name", "sites.csv", "file")
        note = asyncio.run(repair.enrich(d, "", 1, None))
        assert note.startswith("`sites.csv` is a file of an example in the documentation, not of this data")
    # A file the request names is the user's, missing or not: the general advice stays.
    d = repair.classify(
        "pd.read_csv('sites.csv')",
        "FileNotFoundError",
        "No such file or directory: 'sites.csv'",
        "",
        1,
        examples=docs,
        own_words="Read `sites.csv` and count its rows.",
    )
    assert d.strategy != "example_name"


def test_a_name_copied_from_a_docs_example_is_not_given_a_step_of_its_own():
    docs = "Recipe: buffer-in-metres\nutm = stations.estimate_utm_crs()\nbuffers = stations.to_crs(utm)"
    code = "utm = stations.estimate_utm_crs()"
    d = repair.classify(
        code,
        "NameError",
        "name 'stations' is not defined",
        "",
        1,
        examples=docs,
        own_words="Buffer every connector of `connectors.geojson` by 400 m.",
    )
    assert d.strategy == "example_name" and d.name == "stations"
    # A name the request (or the step) speaks of is the user's: a step defining it is inserted.
    d = repair.classify(
        code,
        "NameError",
        "name 'stations' is not defined",
        "",
        1,
        examples=docs,
        own_words="Buffer the stations of `stations.geojson` by 400 m.",
    )
    assert d.strategy == "insert_subtask"
    # Only a variable the example uses counts, not a word of its prose.
    d = repair.classify(
        "print(buffers_km)",
        "NameError",
        "name 'buffers_km' is not defined",
        "",
        1,
        examples="The buffers_km column holds ...",
        own_words="Buffer the points.",
    )
    assert d.strategy == "insert_subtask"


def test_a_keyword_rejected_inside_a_library_is_taken_out_of_the_call_that_passed_it():
    # pyarrow's ParquetWriter rejects what gdf.to_parquet passed on: to_parquet's own signature
    # does not list it either, so the keyword goes.
    code = "import geopandas as gpd\nparcels.to_parquet('out.geoparquet', driver='GeoParquet')"
    d = repair.classify(code, "TypeError", "__cinit__() got an unexpected keyword argument 'driver'", "", 2)
    assert (d.strategy, d.name) == ("drop_keyword", "driver")
    assert d.fixed_code == "import geopandas as gpd\nparcels.to_parquet('out.geoparquet')"
    d = repair.classify(
        "parcels.to_parquet('o.parquet', schema=['a'])",
        "TypeError",
        "ParquetWriter.__init__() got multiple values for argument 'schema'",
        "",
        1,
    )
    assert (d.strategy, d.fixed_code) == ("drop_keyword", "parcels.to_parquet('o.parquet')")
    # A call the code cannot lose the keyword from (passed in **kwargs): its signature goes to the model.
    d = repair.classify(
        "parcels.to_parquet('o.parquet', **opts)",
        "TypeError",
        "__cinit__() got an unexpected keyword argument 'driver'",
        "",
        1,
    )
    assert d.strategy != "drop_keyword"


def test_an_engine_the_kernel_does_not_have_is_taken_out_of_the_calls_that_name_it():
    code = "t = frame[['a']]\nt.to_parquet('o.parquet', engine='fastparquet', compression='snappy')"
    for evalue in (
        "`Import fastparquet` failed. fastparquet is required for parquet support. Use pip, conda, or your "
        "preferred package management tool to install the fastparquet package.",
        "Missing optional dependency 'fastparquet'.  fastparquet is required for parquet support.",
    ):
        d = repair.classify(code, "ImportError", evalue, "", 2)
        assert (d.strategy, d.name) == ("drop_keyword", "engine")
        assert d.fixed_code == "t = frame[['a']]\nt.to_parquet('o.parquet', compression='snappy')"
    # a missing module the code does not name as an engine is not this fix's to drop
    d = repair.classify(code.replace("fastparquet", "pyarrow"), "ImportError", "`Import fastparquet` failed.", "", 2)
    assert d.strategy != "drop_keyword"


def test_a_crs_definition_pyproj_cannot_read_becomes_the_crs_the_step_names():
    code = (
        "import geopandas as gpd\nfrom pyproj import CRS\n"
        "stops['geometry'] = stops['geometry'].to_crs(CRS.from_cf({'proj': 'merc', 'datum': 'WGS84'}))"
    )
    error = "CF projection parameters missing 'grid_mapping_name'"
    for step in (
        "Convert the geometry column to a projected CRS (JGD2011 / Japan Plane Rectangular CS IX) using pyproj.",
        "Reproject the stops to EPSG:6677 so that buffers are in metres.",
    ):
        d = repair.classify(code, "CRSError", error, "", 3, subtask=step)
        assert d.strategy == "named_crs" and d.name == "EPSG:6677", step
        assert d.fixed_code == code.replace("CRS.from_cf({'proj': 'merc', 'datum': 'WGS84'})", "'EPSG:6677'")
    by_number = "gdf = gdf.to_crs(epsg=CRS.from_cf({'proj': 'merc'}))"
    d = repair.classify(by_number, "CRSError", error, "", 1, subtask="Reproject to EPSG:6677.")
    assert d.fixed_code == "gdf = gdf.to_crs(epsg=6677)"
    # no CRS named, two named, or the named one already passed: not this fix's to choose
    for step, failing in (
        ("Reproject to a CRS in metres.", code),
        ("Reproject from EPSG:32654 to EPSG:6677.", code),
        ("Reproject to EPSG:6677.", "gdf = gdf.to_crs('EPSG:6677')"),
    ):
        assert repair.classify(failing, "CRSError", error, "", 1, subtask=step).strategy != "named_crs", step


def test_a_keyword_the_library_refuses_is_taken_out_without_the_model():
    """`to_file(..., crs=32647)` is refused by pyogrio, and a model may pass it again after being
    told so; an unknown keyword pyogrio turns into a GDAL option fails the same way. Both are taken out."""
    code = "import geopandas as gpd\nout = gdf.copy()\nout.to_file('out.geojson', crs=32647)\nprint(len(out))"
    d = repair.classify(code, "ValueError", "Passing 'crs' is not supported with the 'pyogrio' engine.", "", 3)
    assert d.strategy == "drop_keyword" and d.fix_said.startswith("took `crs=` out")
    assert d.fixed_code == "import geopandas as gpd\nout = gdf.copy()\nout.to_file('out.geojson')\nprint(len(out))"
    # Refused by the writer, so by each of its calls: one fix for the three layers, not a trial each.
    code = (
        "for n in ['points', 'lines']:\n    g.to_file('h.gpkg', layer=n, crs=22992)\n"
        "g.to_file('h.gpkg', layer='polygons', crs=22992)\ng.to_crs(crs=22992)"
    )
    d = repair.classify(code, "ValueError", "Passing 'crs' is not supported with the 'pyogrio' engine.", "", 2)
    assert d.fixed_code == (
        "for n in ['points', 'lines']:\n    g.to_file('h.gpkg', layer=n)\n"
        "g.to_file('h.gpkg', layer='polygons')\ng.to_crs(crs=22992)"
    )
    code = "gdf.to_file('out.geojson', driver='GeoJSON',\n            columns=['a', 'b'])"
    d = repair.classify(code, "DataSourceError", "unrecognized option 'COLUMNS' for driver 'GeoJSON'", "", 1)
    assert d.fixed_code == "gdf.to_file('out.geojson', driver='GeoJSON')"
    # The called function's own keyword may have a new name: its signature goes to the model.
    d = repair.classify(
        "y = gpd.overlay(a, b, op='union')", "TypeError", "overlay() got an unexpected keyword argument 'op'", "", 1
    )
    assert d.strategy == "members" and d.fixed_code is None
    # set_crs's keyword passed to to_crs: to_crs converts the same without it.
    d = repair.classify(
        "g = g.to_crs(epsg=22992, allow_override=True)",
        "TypeError",
        "GeoDataFrame.to_crs() got an unexpected keyword argument 'allow_override'",
        "",
        1,
    )
    assert (d.strategy, d.fixed_code) == ("drop_keyword", "g = g.to_crs(epsg=22992)")
    # merge's join key passed to sjoin: the spatial join is the call without it.
    d = repair.classify(
        "j = gpd.sjoin(cells, landuse, how='inner', on='id')",
        "TypeError",
        "sjoin() got an unexpected keyword argument 'on'",
        "",
        1,
    )
    assert (d.strategy, d.fixed_code) == ("drop_keyword", "j = gpd.sjoin(cells, landuse, how='inner')")
    # A keyword the code does not pass: nothing to take out.
    d = repair.classify("gdf.to_file('out.geojson')", "ValueError", "Passing 'crs' is not supported", "", 1)
    assert d.strategy == "analyse"


@pytest.mark.parametrize(
    "code,ename,evalue,fixed",
    [
        # sjoin given how='nearest' and sjoin_nearest's distance_col: the call meant is sjoin_nearest.
        (
            "import geopandas as gpd\n"
            "j = addresses.sjoin(hospitals, how='nearest', distance_col='d')  # join\nprint(j)",
            "TypeError",
            "sjoin() got an unexpected keyword argument 'distance_col'",
            "import geopandas as gpd\nj = addresses.sjoin_nearest(hospitals, distance_col='d')  # join\nprint(j)",
        ),
        (
            "j = gpd.sjoin(a, b, how='nearest', predicate='intersects')",
            "ValueError",
            "`how` was \"nearest\" but is expected to be in ['left', 'right', 'inner']",
            "j = gpd.sjoin_nearest(a, b)",
        ),
        # `op=` is `predicate=` since geopandas 1.0.
        (
            "y = gpd.sjoin(a, b, how='left', op='within')",
            "TypeError",
            "sjoin() got an unexpected keyword argument 'op'",
            "y = gpd.sjoin(a, b, how='left', predicate='within')",
        ),
        # sjoin_nearest given sjoin's how='nearest': the keyword goes.
        (
            "j = gpd.sjoin_nearest(a, b, how='nearest', distance_col='d')",
            "ValueError",
            "`how` was \"nearest\" but is expected to be in ['left', 'right', 'inner']",
            "j = gpd.sjoin_nearest(a, b, distance_col='d')",
        ),
        # A bare sjoin(...) imported by name: sjoin_nearest may not be imported, the model is asked.
        (
            "j = sjoin(a, b, distance_col='d')",
            "TypeError",
            "sjoin() got an unexpected keyword argument 'distance_col'",
            None,
        ),
    ],
)
def test_a_call_written_for_another_geopandas_api_is_rewritten_without_the_model(code, ename, evalue, fixed):
    d = repair.classify(code, ename, evalue, "", code.count("\n") and 2 or 1)
    assert (d.strategy == "fix_call") == (fixed is not None) and d.fixed_code == fixed
    assert fixed is None or "sjoin" in d.fix_said


def test_a_keyword_the_function_refuses_again_after_its_signature_was_shown_is_taken_out():
    """A keyword the function refuses (`distance(h, method='haversine')`) can come back with another
    value after the members repair showed the signature. The second refusal takes the keyword out."""
    from types import SimpleNamespace

    from geoagent_ext.agent.subtask_work import Attempt, SubtaskWork

    run = SimpleNamespace(
        subtasks=[SimpleNamespace(id="s", description="Measure the distance.")],
        request="r",
        defined_names=lambda: {"a", "h"},
    )
    work = SubtaskWork(run, 0)
    evalue = "GeoPandasBase.distance() got an unexpected keyword argument 'method'"
    first = Attempt(code="a['d'] = a.distance(h, method='haversine')", ename="TypeError", evalue=evalue, lineno=1)
    assert work.classify(first).strategy == "members"
    again = Attempt(code="a['d'] = a.distance(h, method='geodesic')", ename="TypeError", evalue=evalue, lineno=1)
    d = work.classify(again)
    assert (d.strategy, d.fixed_code) == ("drop_keyword", "a['d'] = a.distance(h)")


def test_without_keyword_keeps_the_rest_of_the_text():
    assert drop_keyword.without_keyword("x = f(crs=1, b=2)  # note", "crs") == "x = f(b=2)  # note"
    assert drop_keyword.without_keyword("x = f(crs=1)\ny = f(crs=2)", "crs", 2) == "x = f(crs=1)\ny = f()"
    assert drop_keyword.without_keyword("s = 'é'; f('é', crs=1)", "CRS") == "s = 'é'; f('é')"
    assert drop_keyword.without_keyword("f(a, **kw)", "crs") is None


def test_inplace_in_an_assigned_call_is_taken_out_of_the_coders_answer():
    """`pois = pois.drop_duplicates(subset='parcel_id', inplace=True)` makes `pois` None and the next
    line fails; in a call whose result is assigned, inplace=True is never meant."""
    from geoagent_ext.agent.subtask_work import code_of

    answer = (
        "```python\npois = pois.drop_duplicates(subset='parcel_id', inplace=True)  # dedupe\n"
        "pois.reset_index(drop=True, inplace=True)\nb = a.fillna(0, inplace=False)\n```"
    )
    assert code_of(answer) == (
        "pois = pois.drop_duplicates(subset='parcel_id')  # dedupe\n"
        "pois.reset_index(drop=True, inplace=True)\nb = a.fillna(0, inplace=False)"
    )
    assert (
        assigned_inplace.without_assigned_inplace("x = y.f(inplace=True)\nz = w.g(a, inplace=True)")
        == "x = y.f()\nz = w.g(a)"
    )
    # `parks.to_crs(epsg=32118)` on its own line would leave the parks in degrees: its result is kept.
    code = "parks.to_crs(epsg=32118)\nparks.dropna(inplace=True)\nprint(parks.crs)\nparks.sort_values('a')"
    assert (
        results_kept.with_results_kept(code)
        == "parks = parks.to_crs(epsg=32118)\nparks.dropna(inplace=True)\nprint(parks.crs)\nparks.sort_values('a')"
    )
    assert code_of("no code here") == ""


async def test_a_rewritten_step_is_the_step_not_the_line_that_introduces_it():
    """A rewriter's answer that puts "Replace the current step 4 with the following:" above the new
    step gives the new step, not that line."""
    from geoagent_ext.agent.planner import Planner
    from geoagent_ext.llm.client import LLMClient
    from geoagent_ext.llm.scripted import ScriptedChatModel

    answers = iter(
        [
            "Replace the current step 4 with the following:\n\n4. Count the stations per district with "
            "gpd.sjoin(stations, districts, predicate='within').",
            "Count the stations per district:",
            "3. Compute areas.",
            "stations = stations.to_frame()\nCount the stations of each district by a spatial join.",
            "stations = stations.to_frame()",
        ]
    )
    planner = Planner(LLMClient(ScriptedChatModel(responder=lambda messages: next(answers)), retries=1))
    plan = ["Load.", "Reproject.", "Compute areas.", "Count the number of stations in each district."]
    assert (
        await planner.rewrite("r", "", plan, 3, "KeyError")
        == "Count the stations per district with gpd.sjoin(stations, districts, predicate='within')."
    )
    assert await planner.rewrite("r", "", plan, 3, "KeyError") == "Count the stations per district:"  # the only line
    assert await planner.rewrite("r", "", plan, 3, "KeyError") is None  # another step's words: no rewording
    # The failing code given back as the step's new words: a line of code is no step.
    assert (
        await planner.rewrite("r", "", plan, 3, "KeyError") == "Count the stations of each district by a spatial join."
    )
    assert await planner.rewrite("r", "", plan, 3, "KeyError") is None


def test_a_module_alias_used_without_its_import_gets_it_before_the_code_runs():
    """A coder's answer may leave out `import geopandas as gpd`, and each NameError would cost a
    trial. An alias the code and the earlier steps never bind is imported before it runs."""
    from geoagent_ext.agent.subtask_work import code_of

    answer = (
        "# Cause: the frame had no geometry\n```python\n"
        "gdf = gpd.GeoDataFrame(df, geometry=gpd.GeoSeries.from_wkt(df['wkt']), crs=4326)\n"
        "n = np.int32(len(gdf))\n```"
    )
    assert code_of(answer) == (
        "import geopandas as gpd\nimport numpy as np\n"
        "gdf = gpd.GeoDataFrame(df, geometry=gpd.GeoSeries.from_wkt(df['wkt']), crs=4326)\n"
        "n = np.int32(len(gdf))"
    )
    # imported by an earlier step, by the code itself, or a variable of that name: left alone
    assert code_of(answer, [("s1", "import geopandas as gpd\nimport numpy as np")]).startswith("gdf = ")
    assert (
        code_of("```python\nimport geopandas as gpd\nx = gpd.read_file('a.gpkg')\n```")
        == "import geopandas as gpd\nx = gpd.read_file('a.gpkg')"
    )
    assert code_of("```python\nfor re in rows:\n    print(re.name)\n```") == "for re in rows:\n    print(re.name)"
    # a class name (`CRS`) may be the user's own: only module aliases are added up front
    assert code_of("```python\ngrid = CRS.from_epsg(3460)\n```") == "grid = CRS.from_epsg(3460)"


def test_a_geoparquet_written_with_to_file_is_written_with_to_parquet(tmp_path, monkeypatch):
    """`to_file('addresses.geoparquet', driver='GeoParquet')` fails where GDAL has no such driver,
    and without `driver=` the same call writes a Shapefile folder under the GeoParquet name: a
    .geoparquet is written with `to_parquet`."""
    import geopandas as gpd
    from shapely.geometry import Point

    from geoagent_ext.agent.subtask_work import code_of

    answer = (
        "```python\nout = gdf.to_crs(4326)  # é\nout.to_file('a.geoparquet', driver='GeoParquet', crs='EPSG:4326')\n"
        "gdf[gdf.n > 1].to_file(\"b.parquet\")\ngdf.to_file('c.gpkg', layer='x')\n"
        "back = gpd.read_file('a.geoparquet', engine='pyogrio')\n```"
    )
    code = code_of(answer)
    assert code == (
        "import geopandas as gpd\nout = gdf.to_crs(4326)  # é\nout.to_parquet('a.geoparquet')\n"
        "gdf[gdf.n > 1].to_parquet(\"b.parquet\")\ngdf.to_file('c.gpkg', layer='x')\n"
        "back = gpd.read_parquet('a.geoparquet')"
    )  # read_file of a GeoParquet becomes read_parquet: GDAL may have no Parquet reader
    gdf = gpd.GeoDataFrame({"n": [1, 2]}, geometry=[Point(0, 0), Point(1, 1)], crs=4326)
    monkeypatch.chdir(tmp_path)
    scope = {"gdf": gdf}
    exec(code, scope)
    assert len(gpd.read_parquet("b.parquet")) == 1 and scope["back"].crs.to_epsg() == 4326
    # the other way round: geopandas' pyarrow readers of a GeoJSON or GeoPackage become read_file
    read = code_of(
        "```python\nback = gpd.read_feather('c.gpkg', layer='x')\nj = geopandas.read_parquet(\"c.geojson\")\n"
        "t = pd.read_parquet('b.parquet')\n```"
    )
    assert read.splitlines()[-3:] == [
        "back = gpd.read_file('c.gpkg', layer='x')",
        'j = geopandas.read_file("c.geojson")',
        "t = pd.read_parquet('b.parquet')",
    ]


def test_a_crs_copied_with_its_label_is_cut_to_its_code_before_it_runs():
    """`to_crs("EPSG:2048 Hartebeesthoek94 / Lo19")`, the advisor's line copied whole, names no CRS
    pyproj knows: it is cut to the code. Other strings keep their words."""
    import pyproj

    from geoagent_ext.agent.subtask_work import code_of

    answer = (
        '```python\nout = gdf.to_crs("EPSG:2048 Hartebeesthoek94 / Lo19")\n'
        "t = Transformer.from_crs('EPSG:4326', crs_to='EPSG:32734 (WGS 84 / UTM zone 34S)')\n"
        "gdf['crs'] = 'EPSG:2048 Hartebeesthoek94'\n```"
    )
    code = code_of(answer)
    assert code.splitlines() == [
        "out = gdf.to_crs('EPSG:2048')",
        "t = Transformer.from_crs('EPSG:4326', crs_to='EPSG:32734')",
        "gdf['crs'] = 'EPSG:2048 Hartebeesthoek94'",
    ]
    with pytest.raises(pyproj.exceptions.CRSError):
        pyproj.CRS("EPSG:2048 Hartebeesthoek94 / Lo19")
    assert pyproj.CRS("EPSG:2048").to_epsg() == 2048


def test_a_failing_import_nothing_uses_is_taken_out_without_the_model():
    """`from shapely.ops import buffer` above code that never calls `buffer` fails for nothing, and
    a model tends to move the import to modules that do not exist either: the import goes."""
    code = "import pandas as pd\nfrom shapely.ops import buffer\nrows = pd.DataFrame({'a': [1]})"
    d = repair.classify(code, "ImportError", "cannot import name 'buffer' from 'shapely.ops' (/x/ops.py)", "", 2)
    assert d.strategy == "drop_import" and d.fix_said == "took out the import of `buffer`: it fails and nothing uses it"
    assert d.fixed_code == "import pandas as pd\n\nrows = pd.DataFrame({'a': [1]})"
    d = repair.classify(
        "from shapely.geometry.buffer import buffer\nx = 1",
        "ModuleNotFoundError",
        "No module named 'shapely.geometry.buffer'",
        "",
        1,
    )
    assert d.strategy == "drop_import" and d.fixed_code == "\nx = 1"
    # Only the name that fails goes when another name of the same import is used.
    d = repair.classify(
        "from shapely.ops import buffer, unary_union\nu = unary_union([])",
        "ImportError",
        "cannot import name 'buffer' from 'shapely.ops'",
        "",
        1,
    )
    assert d.fixed_code == "from shapely.ops import unary_union\nu = unary_union([])"
    # The only statement of a block keeps the block valid.
    d = repair.classify(
        "try:\n    import nosuch\nexcept OSError:\n    pass", "ModuleNotFoundError", "No module named 'nosuch'", "", 2
    )
    assert d.fixed_code == "try:\n    pass\nexcept OSError:\n    pass"
    # A name the code uses is not dropped: its module's members go to the model.
    d = repair.classify(
        "from shapely.ops import buffer\ny = buffer(x, 1)",
        "ImportError",
        "cannot import name 'buffer' from 'shapely.ops'",
        "",
        1,
    )
    assert d.strategy == "members" and d.fixed_code is None
    assert (
        repair.classify(
            "import nosuch as ns\nns.go()", "ModuleNotFoundError", "No module named 'nosuch'", "", 1
        ).fixed_code
        is None
    )


def test_columns_the_mend_computes_are_taken_out_of_a_failing_selection():
    """Only the mended ones: a selection missing other columns too keeps those, for the model."""
    code = "import pandas as pd\nout = df[['code', 'name', 'station_count', 'rate']]\nout.to_csv('a.csv')"
    missing = ("KeyError", "\"['name', 'station_count', 'rate'] not in index\"", "", 2)
    fixed = repair.classify(code, *missing, mended={"station_count", "rate"})
    assert fixed.strategy == "drop_mended_column" and fixed.fixed_code.splitlines()[1] == "out = df[['code', 'name']]"
    assert fixed.name == "rate, station_count" and fixed.message == missing[1]
    assert (
        repair.classify(code, "KeyError", "\"['name'] not in index\"", "", 2, mended={"station_count"}).fixed_code
        is None
    )
    assert repair.classify(code, "KeyError", "'station_count'", "", 2, mended={"station_count"}).fixed_code is None


def test_the_repair_prompt_shows_the_models_own_code_whole_lines_and_no_mend():
    """Failed code shown to the model with the contract's mend in it, clipped in the middle with
    `...[cut]...`, gets both copied into the answer (a SyntaxError): the prompt shows the model's own
    code, in whole lines, without the mend."""
    from geoagent_ext.agent.prompts import SubtaskContext, coder_messages
    from geoagent_ext.contract.mend import without_mends

    own = "\n".join(f"x{i} = {i}" for i in range(400))
    mend = "# Mend `out.csv` for the contract: rows are sorted by `a` ascending\nimport pandas as pd\n_mend = 1"
    ctx = SubtaskContext(
        request="r",
        data_overview="d",
        plan=["write out.csv"],
        subtask_index=0,
        failed_code=own + "\n\n" + mend,
        failure="The code ran but the result looks wrong",
    )
    shown = (
        coder_messages(ctx)[-1].text.split("## Your previous attempt failed\n```python\n", 1)[1].split("\n```", 1)[0]
    )
    assert "_mend" not in shown and "[cut]" not in shown
    assert shown.startswith("x0 = 0\n") and shown.endswith("x399 = 399") and "lines not shown) ..." in shown
    compile(shown, "shown", "exec")  # copied as it is, it still parses
    assert without_mends(mend) == "" and without_mends(own + "\n" + mend) == own


def test_an_accumulator_the_code_appends_to_but_never_starts_is_started():
    """`records.append({...})` in a loop over layers, `records` never bound: the list is started
    with one line, not with an inserted step that creates it."""
    code = "import pyogrio\nfor name in layers:\n    records.append({'layer': name})\nprint(len(records))"
    evalue = "name 'records' is not defined"
    d = repair.classify(code, "NameError", evalue, f"NameError: {evalue}", 3)
    assert d.strategy == "start_list"
    assert d.fixed_code.splitlines()[:3] == ["import pyogrio", "records = []", "for name in layers:"]
    scope = {"layers": ["a", "b"]}
    exec(d.fixed_code.replace("import pyogrio\n", ""), scope)
    assert scope["records"] == [{"layer": "a"}, {"layer": "b"}]
    assert start_list.with_list_started("records = load()\nrecords.append(1)", "records") is None  # bound here
    assert start_list.with_list_started("print(records)", "records") is None  # not appended to


def test_a_repair_s_cause_comment_is_the_diagnosis_not_part_of_the_kept_code():
    """The "# Cause:" line a repair starts with is read into the diagnosis; the code a step commits
    (and later steps read) does not carry it. An answer of nothing else stays as it is (no code)."""
    from geoagent_ext.agent.subtask_work import _CAUSE_RE, code_of

    answer = "```python\n# Cause: 'metric' is not defined\nmetric = stops.to_crs(32654)\n  # cause: said twice\n```"
    assert code_of(answer) == "metric = stops.to_crs(32654)"
    assert _CAUSE_RE.search(answer).group(1) == "'metric' is not defined"
    unfenced = "Cause: the CRS was geographic\n# Cause: the CRS was geographic\nx = 1"
    assert code_of(unfenced) == "x = 1"
    assert code_of("```python\n# Cause: x was never set.\n```") == "# Cause: x was never set."
    assert code_of("```python\nx = 1  # Cause: inline notes stay\n```") == "x = 1  # Cause: inline notes stay"
