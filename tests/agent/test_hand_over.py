"""What a step handed to the user says: the failure that stopped it, what the deliverable still
lacks, and, for a column asked of the wrong table, which table has it and how to bring it over.
Scripted model, real ipykernel, real files."""

from __future__ import annotations

import geopandas as gpd
import pytest
from shapely.geometry import Point, box

from geoagent_ext.agent import repair
from geoagent_ext.agent.gis_hints import error_hints
from geoagent_ext.persona.chat_format import ChatFormatter

from .helpers import StepScript, real_kernel, run_scripted


@pytest.fixture
def workdir(tmp_path):
    d = tmp_path / "work"
    d.mkdir()
    gpd.GeoDataFrame({"zone": ["north", "south"]}, geometry=[box(0, 1, 1, 2), box(0, 0, 1, 1)], crs=4326).to_file(
        d / "zones.geojson"
    )
    gpd.GeoDataFrame(
        {"stop_id": [1, 2, 3]}, geometry=[Point(0.5, 1.5), Point(0.2, 0.3), Point(0.7, 0.6)], crs=4326
    ).to_file(d / "stops.geojson")
    return d


LOAD = "import geopandas as gpd\nzones = gpd.read_file('zones.geojson')\nstops = gpd.read_file('stops.geojson')"
SAME_FAILURE = "counts = stops.groupby('zone').size()\ncounts.to_csv('counts.csv')"


async def test_a_step_reworded_on_its_last_attempt_hands_over_its_failure_and_what_is_missing(workdir, tmp_path):
    """The step fails the same way until its wording is rewritten on the last attempt of the
    budget: the hand-over still shows that failure (not an empty one) and lists the requirements
    the deliverable does not meet yet (the CSV was never written)."""
    script = StepScript(
        plan=["Load `zones.geojson` and `stops.geojson`", "Count the stops per zone and write `counts.csv`"],
        steps={"Load": [LOAD], "Count the stops": [SAME_FAILURE]},
        rewrite="Count the stops in each zone polygon and write `counts.csv`",
    )
    run, finished, _ = await run_scripted(
        workdir,
        "Count the stops of `stops.geojson` in each zone of `zones.geojson`; write `counts.csv` with "
        "`zone` and `stop_count`.",
        script,
        tmp_path,
        on_stuck="stop",
        max_attempts=3,
        review="never",
    )
    assert finished.status == "partial", finished.message
    handed = [e for e in run.bus.history if e.type == "needs_human"]
    assert len(handed) == 1
    assert "KeyError" in handed[0].error and "zone" in handed[0].error, handed[0].error
    assert "groupby('zone')" in handed[0].code
    assert any(u.startswith("counts.csv:") for u in handed[0].unmet), handed[0].unmet
    assert any(e.type == "replanned" and "three times" in e.reason for e in run.bus.history)
    post = ChatFormatter(run.id).feed(handed[0])
    assert "The deliverable still lacks:" in post[0].text and "counts.csv" in post[0].text


async def test_a_column_asked_of_the_layer_that_lacks_it_names_the_layer_that_has_it(tmp_path):
    """``stops.groupby('zone')`` where only ``zones`` has ``zone``: the repair context names the
    layer that holds it and the spatial join that brings it over; the join it names runs."""
    async with real_kernel(tmp_path) as kernel:
        await kernel.execute(
            "import geopandas as gpd\nfrom shapely.geometry import Point, box\n"
            "zones = gpd.GeoDataFrame({'zone': ['n', 's']}, geometry=[box(0, 1, 1, 2), box(0, 0, 1, 1)], crs=4326)\n"
            "stops = gpd.GeoDataFrame({'stop_id': [1, 2]}, geometry=[Point(0.5, 1.5), Point(0.2, 0.3)], crs=4326)\n"
            "import pandas as pd\nnames = pd.DataFrame({'zone': ['n'], 'label': ['North']})"
        )
        code = "counts = stops.groupby('zone').size()"
        error = (await kernel.execute(code)).error
        message = error.message + "\n" + "\n".join(error_hints(error))
        diagnosis = repair.classify(code, error.ename, error.evalue, message, error.lineno, {"stops", "zones"})
        context = await repair.enrich(diagnosis, code, error.lineno, kernel)
        join = context.split("`stops = ", 1)[1].split("`.", 1)[0]
        await kernel.execute("stops = " + join)
        zones_of_stops = await kernel.execute("print(sorted(stops['zone']))")
    assert diagnosis.strategy == "data_profile", diagnosis
    assert "`stops` has no column `zone`; the layer `zones` has it." in context, context
    assert "predicate='within'" in context
    assert "the table `names` has it" in context  # a plain table: a merge on a shared key, not a join by location
    assert zones_of_stops.stdout.strip() == "['n', 's']"


async def test_a_column_no_other_table_has_adds_nothing(tmp_path):
    async with real_kernel(tmp_path) as kernel:
        await kernel.execute(
            "import geopandas as gpd\nfrom shapely.geometry import Point\n"
            "stops = gpd.GeoDataFrame({'stop_id': [1]}, geometry=[Point(0, 0)], crs=4326)"
        )
        code = "x = stops['nowhere']"
        error = (await kernel.execute(code)).error
        diagnosis = repair.classify(code, error.ename, error.evalue, error.message, error.lineno, {"stops"})
        context = await repair.enrich(diagnosis, code, error.lineno, kernel)
    assert "has it" not in context
    assert "really looks like this" in context
