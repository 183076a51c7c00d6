"""Strategy ``auto``: the loop, and the tree search for a step where the loop stalls. Scripted
model, real ipykernel, real files."""

from __future__ import annotations

import pandas as pd

from .helpers import StepScript, run_scripted
from .test_hand_over import LOAD, SAME_FAILURE, workdir  # noqa: F401 - the fixture

REQUEST = (
    "Count the stops of `stops.geojson` in each zone of `zones.geojson`; write `counts.csv` with "
    "`zone` and `stop_count`."
)
COUNT = (
    "joined = gpd.sjoin(stops, zones, predicate='within')\n"
    "counts = joined.groupby('zone').size().rename('stop_count').reset_index()\n"
    "counts.to_csv('counts.csv', index=False)"
)
PLAN = ["Load `zones.geojson` and `stops.geojson`", "Count the stops per zone and write `counts.csv`"]


async def test_a_step_that_fails_the_same_way_twice_is_searched_and_the_panel_is_told_why(workdir, tmp_path):  # noqa: F811
    script = StepScript(plan=PLAN, steps={"Load": [LOAD], "Count the stops": [SAME_FAILURE, SAME_FAILURE, COUNT]})
    run, finished, _ = await run_scripted(
        workdir, REQUEST, script, tmp_path, strategy="auto", search_steps=1, on_stuck="stop", review="never"
    )
    assert finished.status == "succeeded", finished.message
    started = [e for e in run.bus.history if e.type == "search_started"]
    assert len(started) == 1 and started[0].subtask_id == run.subtasks[1].id
    assert started[0].reason.startswith("the same error twice: KeyError") and "zone" in started[0].reason
    assert started[0].max_nodes == run.options.mcts.max_nodes
    searched = {e.subtask_id for e in run.bus.history if e.type == "search_node"}
    assert searched == {run.subtasks[1].id}  # the loop solved the first step; only the stalled one was searched
    assert sorted(pd.read_csv(workdir / "counts.csv")["stop_count"]) == [1, 2]


async def test_without_a_search_budget_the_loop_keeps_the_step(workdir, tmp_path):  # noqa: F811
    script = StepScript(plan=PLAN, steps={"Load": [LOAD], "Count the stops": [SAME_FAILURE, SAME_FAILURE, COUNT]})
    run, finished, _ = await run_scripted(
        workdir, REQUEST, script, tmp_path, strategy="auto", search_steps=0, on_stuck="stop", review="never"
    )
    assert finished.status == "succeeded", finished.message  # the loop's third attempt
    assert not [e for e in run.bus.history if e.type in ("search_started", "search_node")]
