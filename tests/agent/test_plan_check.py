"""A planned merge on a column only one of the layers has is reworded before it runs."""

from __future__ import annotations

import geopandas as gpd
from shapely.geometry import Point, box

from geoagent_ext.agent.plan_check import unshared_join_keys

from .helpers import StepScript, run_scripted

COLUMNS = {
    "vienna_districts.geojson": ["district_code", "district_name"],
    "vienna_stations.geojson": ["station_id", "kind"],
}


def test_a_merge_on_a_key_one_layer_lacks_is_found():
    plan = [
        "Load the districts and the stations.",
        "Merge the `stations` DataFrame with the `districts` DataFrame on the `district_code` column.",
        "Count the stations per district_code.",
    ]
    [(index, key, why)] = unshared_join_keys(plan, COLUMNS)
    assert (
        (index, key) == (1, "district_code")
        and "`vienna_stations.geojson` has no column `district_code`" in why
        and "sjoin" in why
    )


def test_a_merge_on_a_key_said_to_be_for_the_nearest_feature_is_still_a_merge_on_that_key():
    plan = [
        "Load the stations and the districts.",
        "Merge the `stations` and `districts` DataFrames on the `district_code` column to get the nearest "
        "district for each station.",
        "Merge the result with the districts on `district_code`.",  # after a location step: left alone
    ]
    [(index, key, why)] = unshared_join_keys(plan, COLUMNS)
    assert (index, key) == (1, "district_code") and "sjoin_nearest" in why
    # a spatial join first in the step: the key may come from it
    spatial_first = "Spatially join the stations to the districts, then merge the counts on `district_code`."
    assert unshared_join_keys([spatial_first], COLUMNS) == []


def test_keys_both_layers_have_or_that_a_spatial_join_made_are_left_alone():
    # a spatial join comes first: the key may come from it
    assert (
        unshared_join_keys(
            [
                "Load.",
                "Spatially join the stations to the districts.",
                "Merge the counts with the districts on district_code.",
            ],
            COLUMNS,
        )
        == []
    )
    # both tables the step names have the key; a third input that lacks it is not part of the merge
    assert (
        unshared_join_keys(
            ["Merge sales with shops on `shop_id`."],
            {"sales.csv": ["shop_id", "amount"], "shops.csv": ["shop_id", "name"], "roads.geojson": ["road_id"]},
        )
        == []
    )
    # a key no input has is computed somewhere: not refuted by the data
    assert unshared_join_keys(["Merge the stations with the districts on `cell_id`."], COLUMNS) == []


async def test_the_run_rewords_the_refuted_step_before_it_runs(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    gpd.GeoDataFrame({"district_code": ["01", "02"]}, geometry=[box(0, 0, 1, 1), box(1, 0, 2, 1)], crs=4326).to_file(
        work / "districts.geojson"
    )
    gpd.GeoDataFrame(
        {"station_id": ["a", "b", "c"]}, geometry=[Point(0.5, 0.5), Point(1.5, 0.5), Point(1.2, 0.2)], crs=4326
    ).to_file(work / "stations.geojson")
    load = (
        "import geopandas as gpd\ndistricts = gpd.read_file('districts.geojson')\n"
        "stations = gpd.read_file('stations.geojson')\nprint(len(districts), len(stations))"
    )
    join = (
        "joined = gpd.sjoin(stations, districts, predicate='within')\n"
        "counts = joined.groupby('district_code').size()\nprint(counts.to_dict())"
    )
    script = StepScript(
        ["Load the districts and the stations.", "Merge the stations with the districts on `district_code` and count."],
        {
            "Load the districts": [load],
            "Merge the stations": ["counts = stations.merge(districts, on='district_code')\nprint(len(counts))"],
            "Spatially join": [join],
        },
        # the planner's new wording keeps the key: the run takes it out (sjoin has no `on`)
        rewrite="Spatially join the stations to the districts on the `district_code` column with sjoin and count "
        "them per district_code.",
    )
    run, finished, model = await run_scripted(
        work, "Count the stations of `stations.geojson` in each district of `districts.geojson`.", script, tmp_path
    )
    assert finished.status == "succeeded", finished.message
    [replan] = [e for e in run.bus.history if e.type == "replanned"]
    assert "district_code" in replan.reason
    assert replan.subtasks[1].description == (
        "Spatially join the stations to the districts with sjoin and count them per district_code."
    )
    assert "Merge the stations" not in script.calls  # the refuted wording never reached the coder
    rewrite_prompt = next(p for p in model.prompt_texts if "has no column `district_code`" in p)
    assert "sjoin" in rewrite_prompt


async def test_a_refuted_merge_the_model_cannot_reword_gets_the_reason_written_into_it(tmp_path):
    """A merge on a column one side lacks (`district_code`, not in the stations) fails whatever the
    code; when the rewriter gives no new step, the reason is written into the step itself."""
    work = tmp_path / "work"
    work.mkdir()
    gpd.GeoDataFrame({"district_code": ["01", "02"]}, geometry=[box(0, 0, 1, 1), box(1, 0, 2, 1)], crs=4326).to_file(
        work / "districts.geojson"
    )
    gpd.GeoDataFrame({"station_id": ["a", "b"]}, geometry=[Point(0.5, 0.5), Point(1.5, 0.5)], crs=4326).to_file(
        work / "stations.geojson"
    )
    load = (
        "import geopandas as gpd\ndistricts = gpd.read_file('districts.geojson')\n"
        "stations = gpd.read_file('stations.geojson')"
    )
    join = "joined = gpd.sjoin(stations, districts, predicate='within')\nprint(joined.groupby('district_code').size())"
    merge = "Merge the stations with the districts on `district_code` and count."
    script = StepScript(
        ["Load the districts and the stations.", merge],
        {"Load the districts": [load], "related by location": [join]},
        rewrite=merge,
    )  # the same step again: no new wording
    run, finished, _ = await run_scripted(
        work, "Count the stations of `stations.geojson` in each district of `districts.geojson`.", script, tmp_path
    )
    assert finished.status == "succeeded", finished.message
    [replan] = [e for e in run.bus.history if e.type == "replanned"]
    told = replan.subtasks[1].description
    assert (
        told.startswith(
            "Merge the stations with the districts and count (`stations.geojson` has no column `district_code`"
        )
        and "geopandas.sjoin" in told
    )


def test_a_raster_library_is_dropped_from_steps_when_no_data_file_is_a_raster():
    from geoagent_ext.agent.plan_check import raster_tools_without_rasters

    steps = [
        "Load `lines.geojson` using geopandas.",
        "Compute the length of each line using rasterio.",
        "Sum the lengths per vessel, with the xarray library.",
        "Write `out.geojson`.",
    ]
    assert raster_tools_without_rasters(steps, ["lines.geojson"], "Measure the lines of `lines.geojson`.") == [
        (1, "Compute the length of each line."),
        (2, "Sum the lengths per vessel."),
    ]
    # A raster among the data, or a request that asks for the library: the steps stand.
    assert raster_tools_without_rasters(steps, ["lines.geojson", "dem.tif"], "Measure the lines.") == []
    assert raster_tools_without_rasters(steps, ["lines.geojson"], "Burn the lines into a raster.") == []


async def test_the_run_rewords_the_step_before_the_coder_reads_it(tmp_path):
    workdir = tmp_path / "work"
    workdir.mkdir()
    gpd.GeoDataFrame(
        {"vessel": ["a", "b"]}, geometry=[box(0, 0, 1, 1).exterior, box(2, 2, 3, 3).exterior], crs=3857
    ).to_file(workdir / "lines.geojson")
    script = StepScript(
        ["Load `lines.geojson`.", "Compute the length of each line using rasterio and print the total."],
        {
            "Load": ["import geopandas as gpd\nlines = gpd.read_file('lines.geojson')\nprint(len(lines))"],
            "Compute the length": ["print(lines.length.sum())"],
        },
    )
    run, finished, model = await run_scripted(
        workdir, "How long are the lines of `lines.geojson` together?", script, tmp_path
    )
    assert finished.status == "succeeded", finished.message
    replanned = next(e for e in run.bus.history if e.type == "replanned")
    assert "named a raster library" in replanned.reason and replanned.reason.startswith("the plan was tidied")
    assert replanned.subtasks[1].description == "Compute the length of each line and print the total."
    coder = [p for p in model.prompt_texts if "Compute the length" in p]
    assert coder and not any("rasterio" in p.split("## Your step", 1)[-1].split("\n## ", 1)[0] for p in coder)


def _contract(*requirements):
    from geoagent_ext.contract import Contract, OutputSpec, Requirement

    return Contract(
        outputs=[OutputSpec(path="out.geojson", format="geojson")],
        requirements=[
            Requirement(id=f"r{i}", output="out.geojson", text=text, kind=kind, params=params)
            for i, (kind, text, params) in enumerate(requirements)
        ],
    )


def _stations(tmp_path, **columns):
    """(a work folder with `stations.geojson`: two points in Bangkok with ``columns``, the code that loads it)."""
    workdir = tmp_path / "work"
    workdir.mkdir()
    gpd.GeoDataFrame(columns, geometry=[Point(100.5, 13.7), Point(100.6, 13.8)], crs=4326).to_file(
        workdir / "stations.geojson"
    )
    return workdir, "import geopandas as gpd\nstations = gpd.read_file('stations.geojson')\nprint(len(stations))"


def test_steps_the_contract_forbids_are_dropped_or_told_the_limit():
    from geoagent_ext.agent.plan_check import contract_conflicts

    unchanged = ("geometry_unchanged", "the geometries are those of `in.geojson`", {"input": "in.geojson"})
    every_row = ("rows_as_input", "one row per feature of `in.geojson` (4)", {"input": "in.geojson", "rows": 4})
    plan = [
        "Load `in.geojson`.",
        "Convert the CRS of the layer to EPSG:32647 (WGS 84 / UTM zone 47N) using pyproj.",
        "Reproject the layer to EPSG:32647 and compute each parcel's area in km².",
        "Set the CRS of the GeoSeries to EPSG:4326.",  # declares a CRS: not a reprojection
        "Filter the GeoDataFrame to include only rows where `recorded_at` is after 2024-01-01.",
        "Drop rows with a missing name and write `out.geojson`.",
        # a reprojection in other words
        "Ensure the CRS of the GeoDataFrame is in a projected (metric) CRS (e.g., EPSG:10594).",
        "Make sure the CRS is set.",  # no target CRS: not a reprojection
        # sums read from "so `SUM(unit_count)` works" in a plain conversion: nothing is summed
        "Compute the sum of `unit_count` for each feature.",
        "Convert the sum of `unit_count` to an integer.",
        "Convert the `unit_count` column to an int32 format.",
        # a geometry "converted" to a number gets coded as a reprojection: it goes
        "Convert the geometry column to a numeric type (e.g., float64) if necessary.",
    ]
    found = {i: (text, why) for i, text, why in contract_conflicts(plan, _contract(unchanged, every_row))}
    assert sorted(found) == [1, 2, 4, 5, 6, 8, 9, 11] and found[11][0] is None
    assert found[8][0] is None and found[9][0] is None and "nothing is summed" in found[8][1]
    assert found[6][0] is None
    assert found[1][0] is None and "keeps the geometries of `in.geojson` in its CRS" in found[1][1]
    assert found[2][0].startswith(plan[2]) and "reproject only a copy" in found[2][0]  # it measures: kept, limited
    assert found[4][0] is None and "keeps every row of `in.geojson` (4)" in found[4][1]
    assert found[5][0].startswith(plan[5]) and "no row is left out" in found[5][0]  # it writes: kept, limited
    ids = ("values_from_input", "`address_id` keeps the original values", {"name": "address_id", "input": "a.parquet"})
    steps = [
        "Convert the `address_id` column to a numeric type for easier comparison.",
        "Convert `distance` to kilometres.",
        "Keep the original `address_id` from `a.parquet`.",
        "Convert the `address_id` column to a string to preserve the original values.",
        # a file name's dot does not end the sentence: the conversion is still of that column
        "Convert the `address_id` column in `a.parquet` to a numeric type.",
        "Convert the `address_id` column. Then convert `distance` to numbers.",  # another sentence
    ]  # to text: kept
    found = {i: (text, why) for i, text, why in contract_conflicts(steps, _contract(ids))}
    assert sorted(found) == [0, 4] and found[0][0] is None and found[4][0] is None
    assert "`address_id` keeps the original values of `a.parquet`" in found[0][1]
    # Without those requirements the same steps stand.
    assert contract_conflicts(plan, _contract(("crs_epsg", "EPSG:32647", {"epsg": 32647}))) == []
    assert contract_conflicts(plan, None) == []
    # Layers the output must have, planned as files of their own: the writing step is told;
    # a step reading an input of such a name is left alone.
    layers = ("layers", "has the layers points, lines", {"names": ["points", "lines"]})
    steps = [
        "Load `points.gpkg`.",
        "Save the layers as separate GeoPackage files: `points.gpkg`, `lines.gpkg`.",
        "Write the layers to `out.geojson`.",
    ]
    [(index, text, why)] = contract_conflicts(steps, _contract(layers))
    assert index == 1 and text.startswith(steps[1])
    assert "points, lines are layers of `out.geojson`, not files" in text and "layer=name" in why
    # Invalid features an output keeps repaired ("remove them" would drop them): the dropping step
    # goes (the mend repairs them on the written file); one that repairs stays.
    valid = ("geometries_valid", "every geometry is valid", {"input": "legacy.geojson", "key": "parcel_id"})
    steps = [
        "Check for invalid geometries and remove them.",
        "Filter out invalid geometries and fix the rest with make_valid.",
        "Remove duplicate geometries.",
        "Drop rows whose geometry is invalid, then write `out.geojson`.",
    ]
    found = {i: (text, why) for i, text, why in contract_conflicts(steps, _contract(valid))}
    assert sorted(found) == [0, 1, 3] and found[0][0] is None and "never dropped" in found[0][1]
    assert found[1][0].startswith(steps[1]) and found[3][0].startswith(steps[3])  # repairs or writes: kept, limited
    assert contract_conflicts(steps, _contract(("geometries_valid", "every geometry is valid", {}))) == []


async def test_the_run_drops_a_reprojection_of_geometry_that_must_stay_as_it_is(tmp_path):
    workdir, load = _stations(tmp_path, name=["a", "b"], value=["1", "2"])
    script = StepScript(
        [
            "Load `stations.geojson`.",
            "Convert the CRS of the stations to EPSG:32647 using rasterio.",
            "Convert `value` to numbers with xarray and write `fixed.geojson`.",
            "Verify that the output file meets the specified requirements using rasterio.",
        ],  # idle once reworded
        {
            "Load": [load],
            "Convert the CRS": ["stations = stations.to_crs(32647)"],
            "Convert `value`": ["stations['value'] = stations['value'].astype(int)\nstations.to_file('fixed.geojson')"],
        },
    )
    run, finished, model = await run_scripted(
        workdir,
        "Write `fixed.geojson` from `stations.geojson` with `value` as numbers. Leave the geometry alone.",
        script,
        tmp_path,
    )
    assert finished.status == "succeeded", finished.message
    # One event for the whole tidying: the raster phrase and the contract's drops together.
    [replanned] = [e for e in run.bus.history if e.type == "replanned"]
    assert "step 2 dropped" in replanned.reason and "step 4 dropped" in replanned.reason
    assert "step 3 reworded: it named a raster library" in replanned.reason
    assert [s.description for s in replanned.subtasks] == [
        "Load `stations.geojson`.",
        "Convert `value` to numbers and write `fixed.geojson`.",
    ]
    assert "Convert the CRS" not in script.calls  # the forbidden step never reached the coder (nor the idle one:
    # the script has no reply for it)
    # The plan shows the CRS the contract keeps beside the reprojection, not the advisor's grid.
    planned = next(e for e in run.bus.history if e.type == "planned")
    assert planned.subtasks[1].crs_advice == "written in EPSG:4326 (WGS 84)", planned.subtasks[1].crs_advice
    assert gpd.read_file(workdir / "fixed.geojson").crs.to_epsg() == 4326
    # The planner saw which CRS is written, and no CRS to measure in: the request measures nothing.
    [plan_prompt] = [p for p in model.prompt_texts if "## Data in the working directory" in p]
    assert "CRS of what is written: `fixed.geojson` keeps the geometries of `stations.geojson`" in plan_prompt
    assert "measure areas in" not in plan_prompt and "distances and buffers in" not in plan_prompt


def test_steps_with_nothing_to_do_are_found():
    from geoagent_ext.agent.plan_check import idle_steps

    checked = _contract(("integer", "`n` holds integers", {"name": "n"}))
    plan = [
        "Load `in.geojson`.",
        "Count the points per district and write `out.geojson`.",
        "Verify that the output file meets the specified requirements.",
        "Close the geopandas objects.",
        "Close the file and verify that it is written correctly.",
        "Verify the counts and save them to `out.geojson`.",  # it writes: it stays
        "Load the necessary libraries.",
        "Import geopandas and pandas.",
        "Import the libraries and read the districts.",  # it reads data: it stays
        "Optionally, create a static map of the districts with geemap.",
        "Optionally, write the counts to `out.geojson` as well.",  # it writes: it stays
        "Open the GeoJSON file to verify that it meets the specified requirements.",
        "If the user asks for a map, use `geemap` to display the counts on an interactive web map.",
    ]
    request = "Count the points of `in.geojson` per district into `out.geojson`."
    assert [i for i, _ in idle_steps(plan, request, checked)] == [2, 3, 4, 6, 7, 9, 11, 12]
    # a step conditional on the request is work when the request asks for a map
    assert 12 not in [i for i, _ in idle_steps(plan, request + " Also show them on a map.", checked)]
    # The request asks for a check, or the contract checks no more than the file's existence: verifying is work.
    assert [i for i, _ in idle_steps(plan, request + " Check that no district is missing.", checked)] == [
        3,
        4,
        6,
        7,
        9,
        12,
    ]
    only_exists = _contract(("exists", "`out.geojson` is written", {}))
    assert [i for i, _ in idle_steps(plan, request, only_exists)] == [3, 4, 6, 7, 9, 12]


def test_steps_the_contracts_mend_does_are_idle():
    """A step that only does what the contract's mend does on the written file ("Convert the geometry
    column to a MultiPolygon type") is idle: no time goes to it."""
    from geoagent_ext.agent.plan_check import idle_steps

    multi = ("geometry_types", "every feature is a MultiPolygon", {"allowed": ["MultiPolygon"]})
    present = ("geometries_present", "no feature has a null or empty geometry", {})
    plan = [
        "Load `in.geojson`.",
        "Convert the geometry column to a MultiPolygon type.",
        "Remove any null or empty geometries.",
        "Remove duplicate geometries.",  # duplicates: a step (sums after)
        "Convert the polygons to MultiPolygon and compute each one's area.",  # it measures: it stays
        "Write the result to `out.geojson`.",
    ]
    assert [i for i, _ in idle_steps(plan, "r", _contract(multi, present))] == [1, 2]
    assert "mend" in dict(idle_steps(plan, "r", _contract(multi, present)))[1]
    assert idle_steps(plan, "r", _contract(present)) == [(2, idle_steps(plan, "r", _contract(present))[0][1])]
    # Without the requirement (or with one no mend meets: either type allowed) the step is work.
    either = ("geometry_types", "Polygon or MultiPolygon", {"allowed": ["Polygon", "MultiPolygon"]})
    assert idle_steps(plan, "r", _contract(either)) == [] and idle_steps(plan, "r", None) == []


def test_a_reworded_join_loses_its_key():
    from geoagent_ext.agent.plan_check import without_join_key

    said = "Use spatial join to merge the `hex` and `landuse` DataFrames on the `hex_id` column."
    assert without_join_key(said, "hex_id") == "Use spatial join to merge the `hex` and `landuse` DataFrames."
    assert without_join_key("Join them on hex_id and count per hex_id.", "hex_id") == "Join them and count per hex_id."


def test_a_reworded_join_on_another_missing_key_is_no_new_wording():
    from geoagent_ext.agent.plan_check import reworded_join

    columns = {
        "stops.parquet": ["stop_id", "geometry"],
        "depots.parquet": ["depot_id", "name", "geometry"],
    }
    # the model's new wording merges on the other layer's key, which the first still lacks
    traded = "Merge the `stops` and `depots` DataFrames on the `depot_id` column."
    assert reworded_join(traded, "stop_id", columns) == ""
    # a wording without the key, or one relating the layers by location, is kept (without the key)
    spatial = "Join `stops` to the nearest feature of `depots` with sjoin_nearest on the `stop_id` column."
    assert reworded_join(spatial, "stop_id", columns) == (
        "Join `stops` to the nearest feature of `depots` with sjoin_nearest."
    )
    assert reworded_join("Merge the two DataFrames.", "stop_id", columns) == "Merge the two DataFrames."


def test_a_second_load_of_loaded_files_is_idle():
    from geoagent_ext.agent.plan_check import idle_steps

    files = ["lagos_hex_grid.geojson", "lagos_landuse.geojson"]
    plan = [
        "Load the `lagos_hex_grid.geojson` and `lagos_landuse.geojson` files into geopandas DataFrames.",
        "Convert `lagos_hex_grid` to EPSG:26391.",
        "Read the `lagos_hex_grid.geojson` file into a geopandas DataFrame.",
        "Read the `lagos_landuse.geojson` file and reproject it to EPSG:26391.",  # does more: stays
        "Load the lagos data.",  # names no file exactly: stays
        "Open `lagos_hex_grid.geojson` and list the columns.",  # does more: stays
        "Read lagos_landuse.geojson into a GeoDataFrame.",
    ]
    found = idle_steps(plan, "Rank the hex cells.", None, files)
    assert found == [
        (2, "`lagos_hex_grid.geojson` already loaded by an earlier step"),
        (6, "`lagos_landuse.geojson` already loaded by an earlier step"),
    ]
    # The first load of a file is work, even when another file was loaded before it.
    assert idle_steps(["Load `lagos_hex_grid.geojson`.", "Load `lagos_landuse.geojson`."], "x", None, files) == []


def test_converting_a_layers_geometry_to_shapely_is_idle_but_parsing_a_tables_is_not():
    """ "Convert the `geometry` column to a `shapely` geometry type" can leave a plain Series that the
    next steps fail on (`.to_crs`); geopandas' layers hold shapely already, a table's WKT does not."""
    from geoagent_ext.agent.plan_check import idle_steps

    plan = [
        "Load `hex.geojson` and `landuse.geojson`.",
        "Convert the `geometry` column to a `shapely` geometry type.",
        "Ensure the geometries of both layers are shapely geometries.",
        "Convert the `wkt` column to shapely geometries.",
        "Convert the geometry column to shapely and reproject it to EPSG:26391, then write `out.geojson`.",
    ]
    found = idle_steps(plan, "Rank the hex cells.", None, ["hex.geojson", "landuse.geojson"])
    assert [i for i, _ in found] == [1, 2] and "holds shapely geometries already" in found[0][1]
    # "Convert the stations' points to a GeoDataFrame" for a layer geopandas reads would go to
    # points_from_xy on columns the layer lacks: idle; lon/lat columns of a table are work.
    steps = [
        "Load `data/stations.geojson` and `data/districts.geojson`.",
        "Convert the `data/stations.geojson` points to a GeoDataFrame.",
        "Convert the stations to a GeoDataFrame in EPSG:3035.",
        "Write `out.csv`.",
    ]
    layers = ["data/stations.geojson", "data/districts.geojson"]
    assert idle_steps(steps, "r", None, layers) == [(1, "a layer geopandas reads is a GeoDataFrame already")]
    assert idle_steps(steps, "r", None, layers + ["data/stations.csv"]) == []  # lon/lat of a table: work
    # A table's `geometry` column may be WKT text: converting it is work.
    assert idle_steps(plan, "Rank the cells.", None, ["hex.geojson", "cells.csv"]) == []


async def test_steps_a_review_adds_pass_the_same_checks(tmp_path):
    """The reviewer rewrites the rest of the plan after a step that needed repairs; its new steps
    are tidied like the planner's ("Verify ..." when the contract checks the files, a reprojection
    of geometry that must stay as it is)."""
    workdir, load = _stations(tmp_path, name=["a", "b"], value=["1", "2"])
    review = (
        "1. Reproject the stations to EPSG:32647.\n2. Convert `value` to numbers and write `fixed.geojson`.\n"
        "3. Verify that the output file meets the requirements."
    )
    script = StepScript(
        ["Load `stations.geojson`.", "Write `fixed.geojson`."],
        {
            "Load": ["print(undefined_thing)", load],  # a repair: the review is asked
            "Convert `value`": ["stations['value'] = stations['value'].astype(int)\nstations.to_file('fixed.geojson')"],
        },
        review=review,
    )
    run, finished, model = await run_scripted(
        workdir,
        "Write `fixed.geojson` from `stations.geojson` with `value` as numbers. Leave the geometry alone.",
        script,
        tmp_path,
        review="always",
        on_stuck="skip",
    )
    assert finished.status == "succeeded", finished.message
    reviewed, tidied = [e for e in run.bus.history if e.type == "replanned"][-2:]
    assert reviewed.reason == "a step's result showed the plan no longer fits"
    assert (
        tidied.reason.startswith("the plan was tidied")
        and "step 2 dropped" in tidied.reason
        and "step 4 dropped" in tidied.reason
    )
    assert [s.description for s in tidied.subtasks][1:] == ["Convert `value` to numbers and write `fixed.geojson`."]
    assert "Reproject the stations" not in script.calls


def test_a_step_gets_the_advisors_crs_for_what_it_measures():
    """ "Compute the area ... using the projected CRS" gets the equal-area CRS, not the official grid
    "projected CRS" alone would give: the measure decides, a grid the step names comes first, a bare
    reprojection gets the official grid."""
    from geoagent_ext.agent.crs_advice import CrsAdvice

    advice = CrsAdvice(
        {
            "d.geojson": {
                "area": [{"epsg": 3035, "name": "ETRS89-extended / LAEA Europe", "why": "equal-area"}],
                "distance": [{"epsg": 32633, "name": "WGS 84 / UTM zone 33N", "why": "conformal"}],
                "official": [{"epsg": 31287, "name": "MGI / Austria Lambert", "why": "official"}],
            }
        }
    )
    label = advice.step_label
    assert (
        label("Compute the area of each district in km² using the projected CRS.")
        == "areas in EPSG:3035 (ETRS89-extended / LAEA Europe)"
    )
    assert label("Buffer each stop by 400 m in the projected CRS.") == "distances in EPSG:32633 (WGS 84 / UTM zone 33N)"
    assert (
        label("Reproject the districts to the national grid and compute their areas.")
        == "official grid EPSG:31287 (MGI / Austria Lambert)"
    )
    assert (
        label("Convert the geometry to a projected (metric) CRS.") == "official grid EPSG:31287 (MGI / Austria Lambert)"
    )
    assert label("Load the districts.") == ""
    assert advice.for_subtask("Compute the area using the projected CRS.").startswith("CRS for this step (area): ")


def test_a_crs_the_contract_fixes_is_the_one_a_reprojecting_step_is_told():
    """A step such as "write the layer with the specified columns and CRS" must not get the official
    UTM zone when the contract keeps the input's geometry in its CRS. Under the contract a bare
    reprojection is told the contract's CRS; measuring keeps the advisor's answer (it works on a copy)."""
    from geoagent_ext.agent.crs_advice import CrsAdvice

    advice = CrsAdvice(
        {
            "./in.geojson": {
                "same": [{"epsg": 4326, "name": "WGS 84", "units": "degree", "why": "its own"}],
                "area": [{"epsg": 6933, "name": "WGS 84 / NSIDC EASE-Grid 2.0 Global", "why": "equal-area"}],
                "official": [{"epsg": 32647, "name": "WGS 84 / UTM zone 47N", "why": "official"}],
            }
        }
    )
    write = "Write the layer to `out.geojson` with the specified columns and CRS."
    assert advice.step_label(write) == "official grid EPSG:32647 (WGS 84 / UTM zone 47N)"
    kept = advice.within(_contract(("geometry_unchanged", "geometry as `in.geojson`", {"input": "in.geojson"})))
    assert kept.step_label(write) == "written in EPSG:4326 (WGS 84)"
    told = kept.for_subtask(write)
    assert "keeps the geometries of `in.geojson` in their own CRS EPSG:4326" in told and "32647" not in told
    assert (
        kept.step_label("Compute each parcel's area in km².")
        == "areas in EPSG:6933 (WGS 84 / NSIDC EASE-Grid 2.0 Global)"
    )
    pinned = advice.within(_contract(("crs_epsg", "is in EPSG:3857", {"epsg": 3857})))
    assert pinned.step_label("Reproject the layer to a metric CRS.") == "written in EPSG:3857"
    assert "gdf.to_crs(epsg=3857)" in pinned.for_subtask("Reproject the layer to a metric CRS.")
    # "Set the CRS to" a CRS the data is not in means converting (set_crs would relabel degrees)
    relabel = advice.for_subtask("Set the CRS of the GeoDataFrame to the official grid EPSG:32647.")
    assert "in EPSG:4326 now: convert them with gdf.to_crs(epsg=32647); set_crs only relabels" in relabel
    assert "set_crs only relabels" not in advice.for_subtask("Reproject the layer to the official grid.")
    assert "set_crs only relabels" not in advice.within(
        _contract(("crs_epsg", "EPSG:4326", {"epsg": 4326}))
    ).for_subtask("Set the CRS of the layer to EPSG:4326.")  # already in it: a label is right
    # Two outputs that disagree, or no CRS in the contract: the advisor's grid stands.
    both = _contract(("crs_epsg", "EPSG:3857", {"epsg": 3857}), ("crs_epsg", "EPSG:4326", {"epsg": 4326}))
    assert advice.within(both).step_label(write) == advice.within(None).step_label(write) == advice.step_label(write)


def test_the_overview_names_only_the_crs_purposes_the_request_speaks_of():
    """A request to retype columns and leave the geometry alone is not shown "measure areas in
    EPSG:10594" in the overview, which would invite a reprojection to it."""
    from geoagent_ext.agent.crs_advice import CrsAdvice

    advice = CrsAdvice(
        {
            "in.geojson": {
                "same": [{"epsg": 4326, "name": "WGS 84", "units": "degree", "why": "its own"}],
                "area": [{"epsg": 10594, "name": "WGS 84 / GLANCE Asia", "why": "equal-area"}],
                "distance": [{"epsg": 32647, "name": "WGS 84 / UTM zone 47N", "why": "conformal"}],
                "official": [{"epsg": 32647, "name": "WGS 84 / UTM zone 47N", "why": "official"}],
            }
        }
    )
    retype = "Fix the numeric columns of in.geojson; leave the geometry alone. Write out.geojson."
    assert (
        advice.overview_lines(retype)
        == "- CRS advice for in.geojson: its CRS EPSG:4326 is in degrees (x = longitude, y = latitude)"
    )
    assert "distances and buffers in EPSG:32647" in advice.overview_lines("400 m around each stop")
    assert "measure areas in EPSG:10594" in advice.overview_lines("the area of each parcel in hectares")
    assert all(
        words in advice.overview_lines() for words in ("measure areas", "distances and buffers", "official grid")
    )
    kept = advice.within(_contract(("geometry_unchanged", "geometry as `in.geojson`", {"input": "in.geojson"})))
    assert kept.pin_line() == (
        "- CRS of what is written: `out.geojson` keeps the geometries of `in.geojson` in their "
        "own CRS EPSG:4326: never reproject the layer written or pass crs= when writing"
    )
    assert advice.pin_line() == ""


def test_the_writing_step_is_told_the_column_requirements_no_step_names():
    """A plan that converts some text columns to numbers but never `station_id` fails its "holds
    integers" on every write: requirements on columns no step names are added to the step that
    writes their output."""
    from geoagent_ext.agent.plan_check import uncovered_requirements

    contract = _contract(
        ("integer", "`station_id` holds integers, not text", {"name": "station_id", "if_present": True}),
        ("numeric", "`pm25` holds numbers, not text", {"name": "pm25", "if_present": True}),
        ("sorted", "sorted by `area_km2`, largest first", {"name": "area_km2", "descending": True}),
        ("values_from_input", "`name` keeps its values", {"name": "name", "input": "in.geojson"}),  # needs no step
        ("crs_epsg", "is in EPSG:4326", {"epsg": 4326}),
    )  # names no column
    plan = [
        "Load `in.geojson`.",
        "Convert `pm25` to numbers.",
        "Compute each feature's area in km² as `area_km2`.",
        "Write the layer to `out.geojson`.",
        "Verify the output.",
    ]
    [(index, text, why)] = uncovered_requirements(plan, contract)
    assert index == 3 and text.startswith("Write the layer to `out.geojson`. (Before writing, also: ")
    assert "where `station_id` is kept, `station_id` holds integers, not text" in text
    assert (
        "pm25" not in text
        and "area_km2" not in text
        and "`name`" not in text
        and why.startswith("1 column or layer requirement(s)")
    )
    # A step already dropped (None) names nothing; with no step writing, nothing is told (the
    # closing steps carry the requirements); without a contract nothing either.
    assert uncovered_requirements([None, "Convert `pm25` to numbers.", "Write `out.geojson`."], contract)[0][0] == 2
    assert uncovered_requirements(["Load `in.geojson`.", "Convert `pm25` to numbers."], contract) == []
    assert uncovered_requirements(plan, None) == []


def test_the_writing_step_is_told_the_layers_no_step_names():
    """ "Has the layers points, lines, polygons" and a plan that never names a layer: one write makes
    one layer, so the writing step is told the layers."""
    from geoagent_ext.agent.plan_check import uncovered_requirements

    contract = _contract(
        ("layers", "has the layers points, lines, polygons", {"names": ["points", "lines", "polygons"]})
    )
    plan = ["Load `sites.geojson`.", "Explode the multi-part geometries.", "Write `heritage.gpkg`."]
    [(index, text, _)] = uncovered_requirements(plan, contract)
    assert index == 2 and text.endswith("(Before writing, also: `out.geojson` has the layers points, lines, polygons.)")
    named = plan[:2] + ["Write the points, lines and polygons to `heritage.gpkg`, one layer each."]
    assert uncovered_requirements(named, contract) == []


async def test_the_run_tells_the_writing_step_a_column_requirement_no_step_names(tmp_path):
    workdir, load = _stations(tmp_path, value=["1.5", "2.5"], code=["10", "20"])
    write = (
        "import pandas as pd\nstations['value'] = pd.to_numeric(stations['value'])\n"
        "stations['code'] = stations['code'].astype(int)\nstations.to_file('fixed.geojson')"
    )
    script = StepScript(
        ["Load `stations.geojson`.", "Convert `value` to numbers and write `fixed.geojson`."],
        {"Load": [load], "Convert `value`": [write]},
    )
    run, finished, model = await run_scripted(
        workdir,
        "Write `fixed.geojson` from `stations.geojson` with its numbers stored as numbers, not text.",
        script,
        tmp_path,
    )
    assert finished.status == "succeeded", finished.message
    [replanned] = [e for e in run.bus.history if e.type == "replanned"]
    told = replanned.subtasks[-1].description
    assert told.startswith("Convert `value` to numbers and write `fixed.geojson`. (Before writing, also: ")
    assert "where `code` is kept, `code` holds integers" in told and "`value` holds" not in told
    assert any("where `code` is kept" in p.split("## Your step", 1)[-1] for p in model.prompt_texts)


def test_a_loop_spread_over_steps_becomes_one_step():
    """A plan may open a loop in one step ("Iterate over each layer in the dataset.") and put its
    body in the next ones; each step runs once, so the opener would be an empty loop and the rest
    would see one layer. The opener and its body become one step."""
    from geoagent_ext.agent.plan_check import idle_steps, loop_bodies

    plan = [
        "Load the `survey.gpkg` file into a GeoDataFrame.",
        "Iterate over each layer in the GeoDataFrame.",
        "For each layer, read the geometry and compute the CRS.",
        "Extract the geometry type.",
        "Count the number of features in the layer.",
        "Write the results to `audit.csv` with the specified columns.",
        "Repeat steps 2-5 for all layers in the dataset.",
    ]
    [(opener, text, body)] = loop_bodies(plan)
    assert (opener, body) == (1, [2, 3, 4])
    assert text == (
        "In one loop: Iterate over each layer in the GeoDataFrame; inside it, for each item: for each "
        "layer, read the geometry and compute the CRS; extract the geometry type; count the number of "
        "features in the layer. Collect one record (a dict) per item in a list for the next step"
    )
    assert idle_steps(plan, "Audit every layer of `survey.gpkg` into `audit.csv`.", None) == [
        (6, "each step runs once: a loop is written inside one step")
    ]
    # A step that leaves the loop ends it; a loop with no body after it, or no loop, is left alone.
    assert loop_bodies(plan[:3] + ["Sort the records by layer name.", "Write `audit.csv`."])[0][2] == [2]
    assert loop_bodies(["Iterate over each layer and count its features.", "Write `audit.csv`."]) == []
    assert loop_bodies(["For each layer, count its features.", "Write `audit.csv`."]) == []


async def test_the_run_folds_a_loop_into_one_step_the_coder_sees_whole(tmp_path):
    workdir = tmp_path / "work"
    workdir.mkdir()
    for name, epsg in (("roads", 4326), ("parcels", 32647)):
        gpd.GeoDataFrame({"n": [1]}, geometry=[Point(100.5, 13.7)], crs=4326).to_crs(epsg).to_file(
            workdir / "survey.gpkg", layer=name
        )
    loop = (
        "import pyogrio, geopandas as gpd\nrecords = []\nfor name in pyogrio.list_layers('survey.gpkg')[:, 0]:\n"
        "    layer = gpd.read_file('survey.gpkg', layer=name)\n"
        "    records.append({'layer': name, 'epsg': layer.crs.to_epsg(), 'features': len(layer)})"
    )
    write = "import pandas as pd\npd.DataFrame(records).to_csv('audit.csv', index=False)"
    script = StepScript(
        [
            "Iterate over each layer in `survey.gpkg`.",
            "Read the layer and find its EPSG code.",
            "Count the features of the layer.",
            "Write the records to `audit.csv`.",
        ],
        {"In one loop": [loop], "Write the records": [write]},
    )
    run, finished, model = await run_scripted(
        workdir,
        "Write `audit.csv` with one row per layer of `survey.gpkg`: `layer`, `epsg`, `features`.",
        script,
        tmp_path,
        on_stuck="skip",
    )
    assert finished.status == "succeeded", finished.message
    [tidied] = [e for e in run.bus.history if e.type == "replanned"]
    assert "a loop runs in one step: steps 2–3 are its body" in tidied.reason
    assert [s.description for s in tidied.subtasks][0].startswith("In one loop: Iterate over each layer")
    assert len(tidied.subtasks) == 2
    assert any("count the features of the layer" in p.split("## Your step", 1)[-1] for p in model.prompt_texts)
    import pandas as pd

    assert sorted(pd.read_csv(workdir / "audit.csv")["epsg"]) == [4326, 32647]


def test_a_deliverable_is_written_later_when_a_later_step_names_it_or_writes():
    from geoagent_ext.agent.plan_check import written_later

    plan = [
        "Load the official and OSM park layers from the GeoPackage.",
        "Identify the patches claimed by one side only.",
        "Write the `parks_disagreement.geojson` file.",
    ]
    assert written_later(plan, 0, "out/parks_disagreement.geojson") and written_later(
        plan, 1, "parks_disagreement.geojson"
    )
    assert not written_later(plan, 2, "parks_disagreement.geojson")  # the writing step is checked as it writes
    # A later step that saves without naming the file also writes it; a step that itself writes or names it
    # does not wait.
    assert written_later(["Load the parks.", "Save the result."], 0, "a.geojson")
    assert not written_later(["Load the parks and save them to a.geojson.", "Plot them."], 0, "a.geojson")
    assert not written_later(["Load the parks.", "Plot them."], 0, "a.geojson")


# The input facts of a points layer and a polygons layer keyed by `code` (the mend counts by location).
_POINTS_IN_DISTRICTS = {
    "stations.geojson": {"columns": ["sid"], "geometry_type": "Point", "rows": 5},
    "districts.geojson": {"columns": ["code", "name"], "geometry_type": "Polygon", "rows": 3},
}


def test_steps_that_only_compute_a_count_or_rate_the_mend_computes_are_idle():
    """ "Group the merged frame by `district_code` and count the stations" and "Compute
    `stations_per_10km2` by dividing `station_count` by `area_km2`" run on the joined stations' rows
    and get the counts wrong. The mend counts by location and takes the rate on the written file;
    those steps are idle, the area and the writing stay the model's."""
    from geoagent_ext.agent.plan_check import idle_steps
    from geoagent_ext.contract import derive_contract

    request = (
        "Count the stations of `stations.geojson` in every district of `districts.geojson`, add stations per "
        "10 km², and write `summary.csv` with `code`, `name`, `area_km2`, `station_count` and `stations_per_10km2`."
    )
    contract = derive_contract(request, ["summary.csv"], _POINTS_IN_DISTRICTS)
    assert {"point_counts", "density"} <= {r.kind for r in contract.requirements}
    plan = [
        "Load `stations.geojson` and `districts.geojson`.",
        "Compute the area of each district in km².",
        "Merge the stations and the districts on `code`.",
        "Group the merged frame by `code` and count the number of stations per district.",
        "Compute the `stations_per_10km2` by dividing the `station_count` by the `area_km2` and multiplying by 10.",
        "Compute the `stations_per_10km2` and the `name` length.",
        "Compute the stations per 10 km² by dividing the station count by the area in square kilometers.",
        "Merge `districts.geojson` and the computed `stations_per_10km2` GeoDataFrame on the `code` column.",
        "Merge `districts.geojson` and `stations.geojson` on `code`.",
        "Write the districts to `summary.csv`.",
    ]
    idle = dict(idle_steps(plan, request, contract))
    assert sorted(idle) == [3, 4, 6, 7, 8] and "`station_count`" in idle[3] and "`stations_per_10km2`" in idle[4]
    keyless = derive_contract(
        request.replace("`code`, `name`, ", ""), ["summary.csv"], _POINTS_IN_DISTRICTS
    )  # no key to carry counts
    assert 3 not in dict(idle_steps(plan, request, keyless))


def test_a_merge_between_two_named_files_is_seen_as_a_merge():
    """ "Merge the `data/vienna_districts.geojson` and `data/vienna_stations.geojson` GeoDataFrames on
    the `district_code` column" is a merge: the file names' dots do not end the sentence for the
    pattern, so the key one side lacks is found before it fails on `KeyError: 'district_code'`."""
    from geoagent_ext.agent.plan_check import unshared_join_keys

    plan = [
        "Load `data/vienna_districts.geojson` and `data/vienna_stations.geojson`.",
        "Merge the `data/vienna_districts.geojson` and `data/vienna_stations.geojson` GeoDataFrames on the "
        "`district_code` column.",
    ]
    columns = {
        "data/vienna_districts.geojson": ["district_code", "district_name"],
        "data/vienna_stations.geojson": ["name"],
    }
    [(index, key, why)] = unshared_join_keys(plan, columns)
    assert (index, key) == (1, "district_code") and "spatial join" in why


def test_the_writing_step_is_told_which_rows_to_write_when_the_mend_computes_the_count():
    """With the count steps dropped (the mend counts by location), a step left to write "the
    resulting DataFrame" may merge the districts with the stations on a key the stations lack. The
    writing step says what the mend needs: a row per district."""
    from geoagent_ext.agent.plan_check import uncovered_requirements
    from geoagent_ext.contract import derive_contract

    request = (
        "Count the stations of `stations.geojson` in every district of `districts.geojson` and write "
        "`summary.csv` with `code`, `name` and `station_count`."
    )
    contract = derive_contract(request, ["summary.csv"], _POINTS_IN_DISTRICTS)
    plan = ["Load `stations.geojson` and `districts.geojson`.", None, "Write the resulting DataFrame to `summary.csv`."]
    [(index, text, _)] = uncovered_requirements(plan, contract)
    assert index == 2 and text.startswith(
        "Write the resulting DataFrame to `summary.csv`. (Before writing, also: `station_count` is computed on the "
        "written file by its definition, so write one row per feature of `districts.geojson` with the other columns"
    )
    # A step that computes the count itself is not told: the mend then only checks it.
    counted = plan[:2] + ["Count the stations per district as `station_count` and write `summary.csv`."]
    assert all("computed on the written file" not in t for _, t, _ in uncovered_requirements(counted, contract))


def test_a_rename_the_wrong_way_round_is_turned_by_the_contracts_provenance():
    from geoagent_ext.agent.plan_check import reversed_renames

    columns = (
        "columns",
        "has the columns parcel_id, district_name",
        {
            "names": ["parcel_id", "district_name"],
            "provenance": {
                "parcel_id": "from `parcels.geojson`",
                "district_name": "the `name` column of `districts.geojson` (joined), renamed",
            },
        },
    )
    steps = [
        "Rename the `district_name` column to `name` and make it text.",
        "Rename the `name` column to `district_name`.",  # the right way round: stays
        "Rename `parcel_id` to `id`.",  # carried under its own name: not the contract's to turn
    ]
    [(index, text, why)] = reversed_renames(steps, _contract(columns))
    assert index == 0 and text == "Rename the `name` column to `district_name` and make it text."
    assert "`district_name` is made by renaming the joined column `name`" in why
    assert reversed_renames(steps, None) == []
