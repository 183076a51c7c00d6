"""The deliverable contract in a run: scripted model, real ipykernel, real files.

A requirement that fails on the written file is repaired with what was seen; the status
is ``succeeded`` only when every checkable requirement holds on the final files."""

from __future__ import annotations

import geopandas as gpd
import pytest
from shapely.geometry import Point

from geoagent_ext.llm.scripted import ScriptedChatModel

from .helpers import StepScript, make_run, real_kernel, run_scripted


@pytest.fixture
def workdir(tmp_path):
    d = tmp_path / "work"
    d.mkdir()
    gpd.GeoDataFrame(
        {"site_id": ["s1", "s2", "s3"], "kind": ["a", "b", "a"]},
        geometry=[Point(16.30, 48.20), Point(16.40, 48.21), Point(16.35, 48.25)],
        crs=4326,
    ).to_file(d / "sites.geojson")
    return d


LOAD = "import geopandas as gpd\nsites = gpd.read_file('sites.geojson')\nprint(len(sites), sites.crs)"


def checked(run, passed=None):
    return [e for e in run.bus.history if e.type == "requirement_checked" and (passed is None or e.passed == passed)]


async def test_wrong_crs_fails_its_requirement_is_mended_and_the_run_succeeds(workdir, tmp_path):
    script = StepScript(
        ["Load the sites.", "Reproject the sites and write them to sites_grid.geojson."],
        {
            "Load the sites": [LOAD],
            # The answer writes them unchanged, in EPSG:4326; the mend reprojects to the advisor's grid.
            "Reproject the sites": ["sites.to_file('sites_grid.geojson')\nprint('written')"],
        },
    )
    model = ScriptedChatModel(responder=script)
    async with real_kernel(workdir) as kernel:
        run = make_run(
            "Convert `sites.geojson` to the national grid of Austria and write `sites_grid.geojson`, "
            "keeping the `site_id`.",
            kernel,
            model,
            tmp_path,
        )
        finished = await run.wait()
    assert finished.status == "succeeded", finished.message
    stated = next(e for e in run.bus.history if e.type == "contract_stated")
    crs_req = next(r for r in stated.contract.requirements if r.kind == "crs_projected_metres")
    first = [e for e in checked(run) if e.requirement_id == crs_req.id]
    assert not first[0].passed and "EPSG:4326" in first[0].observed
    assert first[-1].passed and "EPSG:31287" in first[-1].observed
    assert script.calls["Reproject the sites"] == 1  # mended, not asked again
    assert [e.strategy for e in run.bus.history if e.type == "repaired"] == ["mend"]
    # The CRS advisor named Austria's official grid: in the data overview, the contract and the mend.
    plan_prompt = next(p for p in model.prompt_texts if "plans Python analyses" in p)
    assert "CRS advice for sites.geojson" in plan_prompt and "official grid EPSG:31287" in plan_prompt
    assert "EPSG:31287" in crs_req.text and "to_crs(epsg=31287)" in run.accepted[-1][1]
    # The planner and the coder saw the contract.
    assert "must satisfy" in plan_prompt and "site_id" in plan_prompt
    assert finished.unmet == [] and gpd.read_file(workdir / "sites_grid.geojson").crs.to_epsg() == 31287


async def test_a_crs_requirement_the_mend_cannot_meet_is_repaired_by_the_model_with_the_advisors_crs(workdir, tmp_path):
    """A GeoPackage written without a CRS: no mend knows what its coordinates are in; the repair prompt
    names the requirement, what was seen, how to meet it and the advisor's grid."""
    script = StepScript(
        ["Load the sites.", "Reproject the sites and write them to sites_grid.gpkg."],
        {
            "Load the sites": [LOAD],
            "Reproject the sites": [
                "sites.set_crs(None, allow_override=True).to_file('sites_grid.gpkg')\nprint('written')",
                "sites.to_crs(31287).to_file('sites_grid.gpkg')\nprint('written')",
            ],
        },
    )
    run, finished, model = await run_scripted(
        workdir,
        "Convert `sites.geojson` to the national grid of Austria and write `sites_grid.gpkg`.",
        script,
        tmp_path,
    )
    assert finished.status == "succeeded", finished.message
    repair_prompt = next(p for p in model.prompt_texts if "previous attempt failed" in p)
    assert "projected CRS in metres" in repair_prompt and "to_crs" in repair_prompt
    assert "Advised CRS: EPSG:31287" in repair_prompt
    assert gpd.read_file(workdir / "sites_grid.gpkg").crs.to_epsg() == 31287


WRITE_SITES = "sites.drop(columns='geometry').to_csv('sites.csv', index=False)\nprint('ok')"


async def _sites_csv_run(workdir, tmp_path, fixes: list[str]):
    """A run asked for `sites.csv` with a column no step writes (`elevation_m`): the plan writes
    the file without it, and ``fixes`` are the answers to the closing "Fix `sites.csv`" step."""
    script = StepScript(
        ["Load the sites.", "Write sites.csv."],
        {"Load the sites": [LOAD], "Write sites.csv": [WRITE_SITES], "Fix `sites.csv`": fixes},
    )
    async with real_kernel(workdir) as kernel:
        run = make_run(
            "Write `sites.csv` from `sites.geojson` with the columns `site_id`, `kind` and `elevation_m`.",
            kernel,
            ScriptedChatModel(responder=script),
            tmp_path,
            max_attempts=2,
            on_stuck="skip",
        )
        finished = await run.wait()
    return run, finished, script


async def test_a_deliverable_still_lacking_a_column_ends_partial_and_lists_it(workdir, tmp_path):
    run, finished, _ = await _sites_csv_run(workdir, tmp_path, [WRITE_SITES.replace("'ok'", "'still'")])
    assert finished.status == "partial"
    assert any("elevation_m" in u and "missing ['elevation_m']" in u for u in finished.unmet), finished.unmet
    assert "requirement(s) not met" in finished.message and "elevation_m" in finished.message
    # The plan ran out with the requirement unmet: one closing step was added to fix it, once.
    replans = [e for e in run.bus.history if e.type == "replanned"]
    assert len(replans) == 1 and "Fix `sites.csv`" in replans[0].subtasks[-1].description


async def test_a_step_added_to_fix_a_file_is_not_solved_by_code_that_leaves_the_file_as_it_was(workdir, tmp_path):
    """The closing "Fix `sites.csv` ..." step is judged on `sites.csv` even when its code writes no
    file: an answer that only prints is an unmet requirement to repair, and the next answer, which
    writes the column, makes the run succeed."""
    fixes = [
        "print(sites.columns.tolist())",
        "sites.assign(elevation_m=0.0).drop(columns='geometry').to_csv('sites.csv', index=False)",
    ]
    run, finished, script = await _sites_csv_run(workdir, tmp_path, fixes)
    assert finished.status == "succeeded", (finished.message, finished.unmet)
    assert script.calls["Fix `sites.csv`"] == 2
    fix = [e for e in run.bus.history if e.type == "repaired" and e.subtask_id == run.subtasks[-1].id]
    assert fix and fix[0].strategy == "semantic" and "elevation_m" in fix[0].diagnosis, fix


async def test_a_column_to_derive_is_derived_from_its_provenance(workdir, tmp_path):
    derive = (
        "import json\nb = sites.total_bounds\n"
        "json.dump({'count': int(len(sites)), 'bbox_wgs84': [float(v) for v in b]}, open('summary.json', 'w'))\n"
        "print('ok')"
    )

    def responder(messages):
        text = messages[-1].text
        if (
            "Write the summary" in text.split("## Your step", 1)[-1]
            and "geometry.bounds" in text
            and "previous attempt failed" in text
        ):
            return f"```python\n{derive}\n```"
        return script(messages)

    script = StepScript(
        ["Load the sites.", "Write the summary to summary.json."],
        {
            "Load the sites": [LOAD],
            # A small model selects the requested name as if it existed.
            "Write the summary": [
                "import json\njson.dump({'count': len(sites), 'bbox_wgs84': list(sites['bbox_wgs84'])}, "
                "open('summary.json', 'w'))"
            ],
        },
    )
    model = ScriptedChatModel(responder=responder)
    async with real_kernel(workdir) as kernel:
        run = make_run(
            "Summarise `sites.geojson` in `summary.json` with keys `count` and `bbox_wgs84`.", kernel, model, tmp_path
        )
        finished = await run.wait()
    assert finished.status == "succeeded", finished.message
    stated = next(e for e in run.bus.history if e.type == "contract_stated").contract
    columns = next(r for r in stated.requirements if r.kind == "columns")
    assert "geometry.bounds" in columns.params["provenance"]["bbox_wgs84"]
    assert {e.text.split(" ")[0] for e in checked(run, passed=True) if e.subtask_id is None} >= {
        "`bbox_wgs84`",
        "`count`",
    }


MERGE = "counts = sites.merge(sites, on='district')\nprint(len(counts))"


@pytest.mark.parametrize(
    "merges",
    [
        [MERGE],  # the same code each time
        [MERGE, "# Cause: the key\n" + MERGE, "import pandas as pd\n\n" + MERGE],  # the same statement, moved down
        [MERGE, MERGE.replace("\n", "  # Corrected merge\n"), MERGE.replace("\n", "  # '#' kept\n")],  # a comment on it
    ],
    ids=["same-line", "moved", "commented"],
)
async def test_the_same_error_twice_escalates_and_three_times_rewrites_the_step(workdir, tmp_path, merges):
    script = StepScript(
        ["Load the sites.", "Merge the sites with themselves on district and count them."],
        {
            "Load the sites": [LOAD],
            "Merge the sites": merges,
            "Count the sites per kind": ["counts = sites.groupby('kind').size()\nprint(counts.to_dict())"],
        },
        rewrite="Count the sites per kind with groupby.",
    )
    model = ScriptedChatModel(responder=script)
    async with real_kernel(workdir) as kernel:
        run = make_run(
            "Count the sites in sites.geojson per kind.", kernel, model, tmp_path, max_attempts=5, on_stuck="skip"
        )  # without the escalation: skipped after five attempts, not waiting
        finished = await run.wait()
    assert finished.status == "succeeded", finished.message
    strategies = [e.strategy for e in run.bus.history if e.type == "repaired"]
    assert strategies[:2] == ["data_profile", "escalate"], strategies
    second_repair = [p for p in model.prompt_texts if "previous attempt failed" in p][1]
    assert "SAME error happened twice" in second_repair and "sites" in second_repair
    rewrites = [e for e in run.bus.history if e.type == "replanned" and "rewritten" in e.reason]
    assert len(rewrites) == 1 and rewrites[0].subtasks[1].description == "Count the sites per kind with groupby."
    assert script.calls["Merge the sites"] == 3  # not five: the third identical failure ended that wording


async def test_the_user_edited_contract_is_the_one_checked_and_notes_are_not_verified(workdir, tmp_path):
    from geoagent_ext.agent.run import CONTRACT_REVIEW, HumanAction, drive
    from geoagent_ext.contract import RequirementEdit

    script = StepScript(
        ["Load the sites.", "Write them to out.geojson."],
        {"Load the sites": [LOAD], "Write them": ["sites.to_crs(3035).to_file('out.geojson')\nprint('ok')"]},
    )
    model = ScriptedChatModel(responder=script)
    async with real_kernel(workdir) as kernel:
        run = make_run(
            "Write `sites.geojson` to `out.geojson` in EPSG:4326.", kernel, model, tmp_path, approval_mode=True
        )

        def answer(event):
            if event.type == "contract_stated" and event.awaiting_review:
                assert run.waiting_for == {"kind": "contract", "subtask_id": CONTRACT_REVIEW}
                edits = [
                    RequirementEdit(id=r.id, output=r.output, text=r.text)
                    for r in event.contract.requirements
                    if r.kind != "crs_epsg"
                ]  # delete EPSG:4326 ...
                edits.append(RequirementEdit(output="out.geojson", text="is in EPSG:3035"))  # ... ask for LAEA Europe
                edits.append(RequirementEdit(output="out.geojson", text="reads well for the committee"))
                run.submit(HumanAction(kind="contract", subtask_id=CONTRACT_REVIEW, requirements=edits))
            elif event.type == "approval_requested":
                run.submit(HumanAction(kind="approve", subtask_id=event.subtask_id))

        finished = await drive(run, answer)
    assert finished.status == "succeeded", finished.message
    stated = [e for e in run.bus.history if e.type == "contract_stated"]
    assert [e.by for e in stated] == ["request", "user"] and stated[0].awaiting_review
    final = stated[-1].contract
    assert [r.params.get("epsg") for r in final.requirements if r.kind == "crs_epsg"] == [3035]
    epsg = next(r for r in final.requirements if r.kind == "crs_epsg")
    assert epsg.origin == "user" and all(e.passed for e in checked(run) if e.requirement_id == epsg.id)
    assert checked(run) and not any(e.text == "is in EPSG:4326" for e in checked(run))
    # The user's note: shown, never checked. The shapes, which nothing in the request changes, are checked.
    assert finished.not_verified == ["out.geojson: reads well for the committee"]
    shapes = next(r for r in final.requirements if r.kind == "shapes_kept")
    assert all(e.passed for e in checked(run) if e.requirement_id == shapes.id)
    # The planner saw the edited contract.
    plan_prompt = next(p for p in model.prompt_texts if "plans Python analyses" in p)
    assert "EPSG:3035" in plan_prompt and "reads well" in plan_prompt


async def test_the_same_unmet_requirement_twice_escalates_with_the_carried_column_hint(workdir, tmp_path):
    # A small model rebuilds the frame from geometry alone and loses the key it must carry; the
    # second time the same requirement fails, the repair says so (and how to keep the column). The
    # coder's first result counts as one of its semantic retries though a mend was tried after it.
    lost = (
        "out = gpd.GeoDataFrame(geometry=sites.geometry.buffer(0.001), crs=sites.crs)\n"
        "out.to_file('zones.geojson')\nprint('ok')"
    )
    kept = (
        "out = sites.copy()\nout['geometry'] = sites.geometry.buffer(0.001)\nout.to_file('zones.geojson')\nprint('ok')"
    )
    script = StepScript(
        ["Load the sites.", "Buffer the sites into zones.geojson."],
        {"Load the sites": [LOAD], "Buffer the sites": [lost, lost, kept]},
    )
    model = ScriptedChatModel(responder=script)
    async with real_kernel(workdir) as kernel:
        run = make_run(
            "Buffer `sites.geojson` a little and write `zones.geojson`, keeping the `site_id`.", kernel, model, tmp_path
        )
        finished = await run.wait()
    assert finished.status == "succeeded", finished.message
    repairs = [p for p in model.prompt_texts if "previous attempt failed" in p]
    assert len(repairs) == 2
    assert (
        "site_id come(s) from `sites.geojson`: write the frame read from it" in repairs[0]
        and "SAME problem" not in repairs[0]
    )
    assert "The SAME problem with the result happened twice" in repairs[1]
    # First the mend, which finds no key to carry `site_id` by in a file of geometries alone (no model call).
    assert [e.strategy for e in run.bus.history if e.type == "repaired"] == ["mend", "semantic", "escalate"]


async def test_a_requirement_the_model_reads_in_the_request_is_checked_and_repaired(workdir, tmp_path):
    """ "Most sites first" names no rule's phrase: the model proposes the sort, the rules keep it (the
    column is the request's) and drop what the request does not say; the kept one is checked on
    the file, fails, is repaired, and decides the status."""
    script = StepScript(
        ["Load the sites.", "Count the sites per kind and write kinds.csv."],
        {
            "Load the sites": [LOAD],
            "Count the sites": [
                "sites.groupby('kind').size().rename('n_sites').reset_index().sort_values('n_sites')"
                ".to_csv('kinds.csv', index=False)\nprint('written')",
                "sites.groupby('kind').size().rename('n_sites').reset_index().sort_values('n_sites', "
                "ascending=False).to_csv('kinds.csv', index=False)\nprint('written')",
            ],
        },
        requirements="`kinds.csv`: sorted by `n_sites` descending\n`kinds.csv`: has the column `share_pct`\n"
        "`kinds.csv`: only kinds with two sites or more",
    )
    run, finished, model = await run_scripted(
        workdir,
        "Count the sites of `sites.geojson` per kind and write `kinds.csv` with `kind` and `n_sites`, "
        "the most common kind at the top.",
        script,
        tmp_path,
        propose_requirements=True,  # opt-in
    )
    assert finished.status == "succeeded", finished.message
    stated = next(e for e in run.bus.history if e.type == "contract_stated")
    [proposed] = [r for r in stated.contract.requirements if r.origin == "model"]
    assert (proposed.kind, proposed.params) == ("sorted", {"name": "n_sites", "descending": True})
    assert any("share_pct" in d and "does not say" in d for d in stated.dropped)
    # a group threshold the request does not say is dropped (not checkable, or a kind only the rules derive)
    assert any("two sites or more" in d and ("not checkable" in d or "by the rules" in d) for d in stated.dropped), (
        stated.dropped
    )
    results = checked(run)
    sorted_checks = [e for e in results if e.requirement_id == proposed.id]
    assert not sorted_checks[0].passed and sorted_checks[-1].passed
    # The planner saw the kept requirement (and not the dropped ones).
    plan_prompt = next(p for p in model.prompt_texts if "plans Python analyses" in p)
    assert "sorted by `n_sites` descending" in plan_prompt and "share_pct" not in plan_prompt


@pytest.mark.parametrize(
    "strategy", [{"strategy": "loop"}, {"strategy": "mcts", "mcts": {"n_samples": 1, "k": 1, "max_nodes": 4}}]
)
async def test_a_later_step_is_not_committed_when_it_would_break_a_deliverable_that_holds(workdir, tmp_path, strategy):
    """A deliverable that meets every requirement is not overwritten by a later step: the attempt
    (loop) or node (search) that would drop a required column is stopped after its trial (never
    committed), the repair is told why, and the file on disk stays the one that holds."""
    script = StepScript(
        # (An "Optionally, plot ..." step would be dropped before it runs: the plan asks for the plot.)
        ["Load the sites.", "Write the site kinds to kinds.csv.", "Plot the sites by kind for a quick look."],
        {
            "Load the sites": [LOAD],
            "Write the site kinds": ["sites[['site_id', 'kind']].to_csv('kinds.csv', index=False)\nprint('written')"],
            # The map step's first answer redoes the table without `kind`; its repair only maps.
            "Plot the sites": [
                "sites[['site_id']].to_csv('kinds.csv', index=False)\nax = sites.plot()\nprint('mapped')",
                "ax = sites.plot()\nprint('mapped')",
            ],
        },
    )
    run, finished, model = await run_scripted(
        workdir,
        "Write `kinds.csv` with `site_id` and `kind` for every site of `sites.geojson`.",
        script,
        tmp_path,
        **strategy,
    )
    assert finished.status == "succeeded", finished.message
    import pandas as pd

    assert list(pd.read_csv(workdir / "kinds.csv").columns) == ["site_id", "kind"]
    breaking = [
        e
        for e in run.bus.history
        if e.type in ("executed", "code_proposed", "search_node")
        and "sites[['site_id']]" in (getattr(e, "code", "") or "")
    ]
    assert breaking and not [e for e in breaking if e.type == "executed" and not e.trial]  # never run in the kernel
    repair_prompt = next(p for p in model.prompt_texts if "already meets every requirement" in p)
    assert "kinds.csv" in repair_prompt and "missing ['kind']" in repair_prompt
    if strategy["strategy"] == "mcts":  # each node that ran says which requirements its trial found met
        ran = [e for e in run.bus.history if e.type == "search_node" and e.status in ("ok", "chosen")]
        ids = {r.id for r in run.contract.requirements}
        assert any(e.met for e in ran) and all(set(e.met) | set(e.unmet) <= ids for e in ran)
        last = [e for e in ran if e.subtask_id == run.subtasks[-1].id]
        assert last and all(set(e.met) == ids and not e.unmet for e in last)  # the last step's trial checks all


GRID_REQUEST = (
    "Convert `sites.geojson` to the national grid of Austria and write `sites_grid.gpkg` with `site_id` and `kind`."
)
NO_CRS = "sites.set_crs(None, allow_override=True).to_file('sites_grid.gpkg')\nprint('written')"
WITHOUT_KIND = "sites.to_crs(31287)[['site_id', 'geometry']].to_file('sites_grid.gpkg')\nprint('written')"


def _live_codes(run) -> list[str]:
    return [e.code for e in run.bus.history if e.type == "executed" and not e.trial]


async def test_a_repair_that_undoes_a_requirement_which_held_is_not_committed(workdir, tmp_path):
    """The file written without a CRS (no mend knows its coordinates) has both columns; the repair
    reprojects but drops `kind`: it is stopped after its trial, told what it undid and what is still
    missing, and the next answer that keeps both is the one that runs. Committed, such a repair would
    leave the run on a worse file than the one before it."""
    script = StepScript(
        ["Load the sites.", "Reproject the sites and write them to sites_grid.gpkg."],
        {
            "Load the sites": [LOAD],
            "Reproject the sites": [
                NO_CRS,
                WITHOUT_KIND,
                "sites.to_crs(31287).to_file('sites_grid.gpkg')\nprint('written')",
            ],
        },
    )
    run, finished, model = await run_scripted(workdir, GRID_REQUEST, script, tmp_path)
    assert finished.status == "succeeded", finished.message
    assert WITHOUT_KIND not in _live_codes(run)  # trial-run only, never in the kernel
    repair_prompt = next(p for p in model.prompt_texts if "undoes what it already met" in p)
    assert "missing ['kind']" in repair_prompt and "projected CRS in metres" in repair_prompt
    written = gpd.read_file(workdir / "sites_grid.gpkg")
    assert written.crs.to_epsg() == 31287 and {"site_id", "kind"} <= set(written.columns)


async def test_a_step_whose_every_repair_undoes_what_holds_keeps_its_better_file_and_ends_partial(workdir, tmp_path):
    """Every repair drops `kind`: none is committed; when the attempts are spent the step keeps the
    attempt the kernel ran (its file has both columns), the run goes on and ends `partial` listing
    the CRS it still lacks, not `needs_human` and not on the worse file."""
    script = StepScript(
        ["Load the sites.", "Reproject the sites and write them to sites_grid.gpkg."],
        {
            "Load the sites": [LOAD],
            "Reproject the sites": [NO_CRS, WITHOUT_KIND],
            "Fix `sites_grid.gpkg`": [WITHOUT_KIND],
        },
    )
    run, finished, _ = await run_scripted(workdir, GRID_REQUEST, script, tmp_path, on_stuck="stop")
    assert finished.status == "partial", finished.message
    assert any("projected CRS in metres" in u for u in finished.unmet)
    assert not [u for u in finished.unmet if "kind" in u]
    assert WITHOUT_KIND not in _live_codes(run) and script.calls["Reproject the sites"] >= 3
    assert "kind" in gpd.read_file(workdir / "sites_grid.gpkg").columns
    assert not [e for e in run.bus.history if e.type == "needs_human"]


async def test_an_area_measured_in_degrees_fails_its_unit_and_is_measured_again_by_the_mend(tmp_path):
    """`area_km2` written from `.area` on lon/lat polygons (square degrees) runs and writes a CSV of
    the right shape; only the measure check sees it. The mend measures each district on the
    ellipsoid, by the key the file shares with the districts, without a model call; the run succeeds
    once the areas are real km²."""
    from shapely.geometry import box

    workdir = tmp_path / "work"
    workdir.mkdir()
    gpd.GeoDataFrame(
        {"code": [1, 2]}, geometry=[box(16.30, 48.18, 16.36, 48.22), box(16.36, 48.18, 16.42, 48.24)], crs=4326
    ).to_file(workdir / "districts.geojson")
    load = "import geopandas as gpd\ndistricts = gpd.read_file('districts.geojson')"
    degrees = "districts.assign(area_km2=districts.area).drop(columns='geometry').to_csv('areas.csv', index=False)"
    metric = (
        "districts.assign(area_km2=districts.to_crs(3035).area / 1e6).drop(columns='geometry')"
        ".to_csv('areas.csv', index=False)"
    )
    script = StepScript(
        ["Load the districts.", "Compute each district's area in km² and write areas.csv."],
        {"Load the districts": [load], "Compute each district": [degrees, metric]},
    )
    run, finished, model = await run_scripted(
        workdir,
        "Write `areas.csv` with `code` and `area_km2` for every district of `districts.geojson`.",
        script,
        tmp_path,
        on_stuck="skip",
    )
    assert finished.status == "succeeded", finished.message
    unit = [e for e in checked(run) if "area in km²" in e.text]
    assert not unit[0].passed and "as if measured in degrees" in unit[0].observed
    assert unit[-1].passed
    [repaired] = [e for e in run.bus.history if e.type == "repaired"]
    assert repaired.strategy == "mend" and "geometry_area_perimeter" in repaired.diff
    assert not [p for p in model.prompt_texts if "previous attempt failed" in p]
    import pandas as pd

    areas = pd.read_csv(workdir / "areas.csv")
    assert list(areas.columns) == ["code", "area_km2"] and 19 < areas["area_km2"][0] < 21  # 0.06° × 0.04° at 48°N


async def test_a_keyword_the_writer_refuses_is_taken_out_and_the_file_written_without_a_model_call(tmp_path):
    """`to_file(..., crs=32647)` is refused by pyogrio, and a model tends to pass it again after
    each repair. The call without it runs at once; the scripted coder is asked once for the step."""
    workdir = tmp_path / "work"
    workdir.mkdir()
    gpd.GeoDataFrame({"name": ["a", "b"]}, geometry=[Point(100.5, 13.7), Point(100.6, 13.8)], crs=4326).to_file(
        workdir / "stations.geojson"
    )
    load = "import geopandas as gpd\nstations = gpd.read_file('stations.geojson')\nprint(len(stations))"
    write = "stations.to_file('copy.geojson', crs=4326)\nprint('written')"
    script = StepScript(
        ["Load `stations.geojson`.", "Write the stations to `copy.geojson`."],
        {"Load": [load], "Write the stations": [write]},
    )
    run, finished, model = await run_scripted(workdir, "Copy `stations.geojson` to `copy.geojson`.", script, tmp_path)
    assert finished.status == "succeeded", finished.message
    [repaired] = [e for e in run.bus.history if e.type == "repaired"]
    assert repaired.strategy == "drop_keyword" and "crs=4326" in repaired.diff
    assert script.calls["Write the stations"] == 1  # the fix needed no model call
    assert len(gpd.read_file(workdir / "copy.geojson")) == 2


async def test_a_deliverable_an_early_step_writes_is_left_to_the_step_that_writes_it(workdir, tmp_path):
    """The small model writes the whole pipeline, deliverable included, in its "Load" step. The file
    is checked (the events say it fails) but not repaired there: a later step names it, and the
    check on what that step writes is the one repaired. The run succeeds with one answer per step."""
    script = StepScript(
        ["Load the sites.", "Reproject the sites and write them to sites_grid.geojson."],
        {
            "Load the sites": [LOAD + "\nsites.to_file('sites_grid.geojson')"],
            "Reproject the sites": ["sites.to_crs(31287).to_file('sites_grid.geojson')\nprint('written')"],
        },
    )
    run, finished, model = await run_scripted(
        workdir,
        "Convert `sites.geojson` to the national grid of Austria and write `sites_grid.geojson`.",
        script,
        tmp_path,
    )
    assert finished.status == "succeeded", finished.message
    load_id = run.subtasks[0].id
    assert [e for e in checked(run, passed=False) if e.subtask_id == load_id]  # checked on the early write, and failing
    assert script.calls == {"Load the sites": 1, "Reproject the sites": 1}  # no repair of either step
    assert not [p for p in model.prompt_texts if "previous attempt failed" in p]
    assert any(e.type == "progress" and "a later step writes it" in e.message for e in run.bus.history)


async def test_a_requirement_with_a_mechanical_remedy_is_mended_without_the_model(workdir, tmp_path):
    """The written file fails "every feature is a MultiPoint": the contract's mend is appended to the
    step and run without a model call; the run succeeds on the mended file."""
    script = StepScript(
        ["Load the sites.", "Write the sites to sites_multi.geojson."],
        {"Load the sites": [LOAD], "Write the sites": ["sites.to_file('sites_multi.geojson')\nprint('written')"]},
    )
    run, finished, model = await run_scripted(
        workdir,
        "Write `sites_multi.geojson` from `sites.geojson` with every feature as a MultiPoint.",
        script,
        tmp_path,
    )
    assert finished.status == "succeeded", finished.message
    assert script.calls["Write the sites"] == 1
    mend = next(e for e in run.bus.history if e.type == "repaired")
    assert mend.strategy == "mend" and "_mend = gpd.read_file('sites_multi.geojson')" in mend.diff
    assert set(gpd.read_file(workdir / "sites_multi.geojson").geom_type) == {"MultiPoint"}
    # The mend is part of the step's code in the kernel's history (what the notebook gets).
    assert "MultiPoint" in run.accepted[-1][1] and "sites.to_file" in run.accepted[-1][1]


async def test_a_json_inventory_in_pandas_shapes_is_reshaped_without_the_model(workdir, tmp_path):
    """An inventory with `bbox` written as `gdf.bounds` and the count per group as a frame's
    `to_dict()`: the mend takes the whole layer's bbox and reshapes the counts, keeping them."""
    write = (
        "import json\ncounts = sites['kind'].value_counts().reset_index()\n"
        "json.dump({'count': len(sites), 'bbox': sites.bounds.to_dict(), 'count_per_kind': counts.to_dict()}, "
        "open('inventory.json', 'w'))\nprint('written')"
    )
    script = StepScript(
        ["Load the sites.", "Write the inventory to inventory.json."],
        {"Load the sites": [LOAD], "Write the inventory": [write]},
    )
    run, finished, model = await run_scripted(
        workdir,
        "From `sites.geojson`, write `inventory.json` with keys `count`, `bbox` (the overall bounding box) "
        "and `count_per_kind`.",
        script,
        tmp_path,
    )
    assert finished.status == "succeeded", finished.message
    assert script.calls["Write the inventory"] == 1
    assert [e.strategy for e in run.bus.history if e.type == "repaired"] == ["mend"]
    import json

    out = json.loads((workdir / "inventory.json").read_text())
    assert out["bbox"] == [16.30, 48.20, 16.40, 48.25] and out["count_per_kind"] == {"a": 2, "b": 1}


@pytest.mark.parametrize(
    "valid",
    [
        "parcels.geometry.is_valid",
        "parcels.geometry.apply(lambda geom: geom.is_valid)",
        "parcels.to_crs(3857).area > 0",  # a bowtie's lobes cancel: its area is 0 until it is repaired
    ],
)
async def test_invalid_features_a_step_filters_out_are_kept_repaired_without_the_model(tmp_path, valid):
    """ "Repair invalid geometries" written as a filter (`parcels = parcels[parcels.is_valid]`, a
    per-geometry `apply`, or an area filter run before any repair) drops features the output keeps;
    the contract keeps each invalid feature (by its key), so the trial fails the step and the filter
    becomes the repair, or runs after it, without a model call."""
    from shapely.geometry import Polygon

    folder = tmp_path / "work"
    folder.mkdir()
    bowtie = Polygon([(16.30, 48.20), (16.31, 48.21), (16.31, 48.20), (16.30, 48.21)])
    gpd.GeoDataFrame(
        {"parcel_id": ["p1", "p2", "p3"]},
        geometry=[Point(16.3, 48.2).buffer(0.01), bowtie, Point(16.4, 48.2).buffer(0.01)],
        crs=4326,
    ).to_file(folder / "parcels.geojson")
    script = StepScript(
        ["Load the parcels.", "Repair the invalid geometries and write clean.geojson."],
        {
            "Load the parcels": ["import geopandas as gpd\nparcels = gpd.read_file('parcels.geojson')"],
            "Repair the invalid": [
                f"parcels = parcels[{valid}]\nparcels.to_file('clean.geojson')\nprint(len(parcels))"
            ],
        },
    )
    run, finished, model = await run_scripted(
        folder,
        "Clean `parcels.geojson` into `clean.geojson` with the column `parcel_id`, `parcel_id` unique, and no invalid "
        "geometries.",
        script,
        tmp_path,
    )
    assert finished.status == "succeeded", finished.message
    # Only the filter: shapely's buffers wind clockwise, but a request that does not speak of how the
    # data draws leaves RFC 7946's ring order an unsure reading (shown, not gating, not mended).
    [repaired] = [e for e in run.bus.history if e.type == "repaired"]
    assert repaired.strategy == "make_valid" and "parcels.set_geometry(parcels.geometry.make_valid(" in repaired.diff
    assert script.calls["Repair the invalid"] == 1
    out = gpd.read_file(folder / "clean.geojson")
    assert list(out["parcel_id"]) == ["p1", "p2", "p3"] and out.is_valid.all()


async def test_the_closing_step_starts_with_the_mend_of_what_failed(workdir, tmp_path):
    """The "Load" step writes the deliverable (left to the later step that saves), the saving step
    writes nothing: the closing step for the failed requirement is the mend, no model call."""
    script = StepScript(
        ["Load the sites.", "Save the result."],
        {
            "Load the sites": [LOAD + "\nsites.to_crs(31287).to_file('sites_grid.geojson')"],
            "Save the result": ["print('saved')"],
        },
    )
    run, finished, model = await run_scripted(
        workdir, "Write `sites_grid.geojson` from `sites.geojson` in EPSG:3035.", script, tmp_path
    )
    assert finished.status == "succeeded", finished.message
    assert script.calls == {"Load the sites": 1, "Save the result": 1}  # the closing step asked the model nothing
    closing = run.subtasks[-1]
    assert closing.description.startswith("Fix `sites_grid.geojson`")
    assert gpd.read_file(workdir / "sites_grid.geojson").crs.to_epsg() == 3035


async def test_the_folder_of_an_output_is_made_before_the_first_step(workdir, tmp_path):
    """An output in a folder the work folder lacks (`to_csv('outputs/district_summary.csv')` on a
    fresh copy) would fail with an OSError: the folder is made first, and no model call goes to it."""
    script = StepScript(
        ["Write the sites to out/sites.csv."],
        {"Write the sites": [LOAD + "\nsites.drop(columns='geometry').to_csv('out/sites.csv', index=False)"]},
    )
    run, finished, model = await run_scripted(
        workdir, "Write `out/sites.csv` from `sites.geojson`.", script, tmp_path, on_stuck="skip"
    )
    assert finished.status == "succeeded", finished.message
    assert script.calls == {"Write the sites": 1} and (workdir / "out" / "sites.csv").exists()


def test_a_mend_that_did_not_meet_its_requirement_is_not_appended_again():
    """A mend whose requirement still fails (`station_count` kept NaN) is not appended to the code again."""
    from types import SimpleNamespace

    from geoagent_ext.agent.subtask_work import SubtaskWork
    from geoagent_ext.contract import derive_contract

    contract = derive_contract("Write `t.csv` with `n` (integer), sorted by `n`.", ["t.csv"])
    run = SimpleNamespace(subtasks=[SimpleNamespace(id="s", description="Write t.csv.")], contract=contract)
    work = SubtaskWork(run, 0)
    work.failed_requirements = [r for r in contract.requirements if r.kind in ("integer", "sorted")]
    first = work.mended("df.to_csv('t.csv', index=False)")
    assert first and "sort_values('n'" in first and "Int64" not in first  # integers are the model's (decimals? NaN?)
    # The next attempt (the model's rewrite, without the mend) fails the same two: no second mend.
    assert work.mended("df.sort_values('n').to_csv('t.csv', index=False)") is None


async def test_a_count_the_mend_computes_is_left_out_of_the_selection_and_counted_on_the_file(tmp_path):
    """A count computed on the joined stations' rows is wrong, and a step that does it may write no
    file. The count's step is idle (the mend counts by location on the written file);
    the writing step that selects the count anyway (`KeyError`) gets it taken out of the selection
    without a model call, and the mend counts: `succeeded` with one model call per step."""
    from shapely.geometry import box

    workdir = tmp_path / "work"
    workdir.mkdir()
    gpd.GeoDataFrame(
        {"code": [1, 2], "name": ["A", "B"]}, geometry=[box(0, 0, 1, 1), box(1, 0, 2, 1)], crs=4326
    ).to_file(workdir / "districts.geojson")
    gpd.GeoDataFrame(
        {"sid": [1, 2, 3]}, geometry=[Point(0.5, 0.5), Point(0.2, 0.3), Point(1.5, 0.5)], crs=4326
    ).to_file(workdir / "stations.geojson")
    load = (
        "import geopandas as gpd\ndistricts = gpd.read_file('districts.geojson')\n"
        "stations = gpd.read_file('stations.geojson')"
    )
    write = "districts[['code', 'name', 'station_count']].to_csv('counts.csv', index=False)"
    script = StepScript(
        [
            "Load `districts.geojson` and `stations.geojson`.",
            "Count the number of stations per district.",
            "Write `counts.csv`.",
        ],
        {
            "Load `districts": [load],
            "Count the number": ["districts['station_count'] = 99"],
            "Write `counts.csv`": [write],
        },
    )
    run, finished, model = await run_scripted(
        workdir,
        "Count the stations of `stations.geojson` in each district of `districts.geojson` and write "
        "`counts.csv` with `code`, `name` and `station_count`.",
        script,
        tmp_path,
        on_stuck="skip",
    )
    assert finished.status == "succeeded", finished.message
    strategies = [e.strategy for e in run.bus.history if e.type == "repaired"]
    assert strategies == ["drop_mended_column", "mend"], strategies
    assert [s.description for s in run.subtasks if "Count the number" in s.description] == []  # idle: dropped
    import pandas as pd

    assert pd.read_csv(workdir / "counts.csv").to_dict("list") == {
        "code": [1, 2],
        "name": ["A", "B"],
        "station_count": [2, 1],
    }


async def test_a_geoseries_written_as_a_table_is_shown_the_frame_with_its_rows(tmp_path):
    """A GeoSeries (`buffered = stops.buffer(400)`) written with `to_parquet` fails, and the hint's
    "out = gdf.copy()" applied to the series itself fails the same way. The repair names the
    GeoDataFrame with the series' rows and how to put it back."""
    from geoagent_ext.agent import repair
    from geoagent_ext.agent.gis_hints import error_hints

    async with real_kernel(tmp_path) as kernel:
        await kernel.execute(
            "import geopandas as gpd\nfrom shapely.geometry import Point\n"
            "stops = gpd.GeoDataFrame({'cid': [1, 2]}, geometry=[Point(0, 0), Point(1, 1)], crs=3857)\n"
            "other = stops.iloc[:1]\nbuffered = stops.buffer(400).to_crs(4326)"
        )
        code = "buffered.to_parquet('out.geoparquet')"
        error = (await kernel.execute(code)).error
        message = error.message + "\n" + "\n".join(error_hints(error))
        diagnosis = repair.classify(code, error.ename, error.evalue, message, error.lineno, {"buffered", "stops"})
        context = await repair.enrich(diagnosis, code, error.lineno, kernel)
    assert diagnosis.strategy == "members", diagnosis
    assert (
        "`buffered` is a GeoSeries with the rows of the GeoDataFrame `stops`: out = gpd.GeoDataFrame("
        "stops.drop(columns=stops.geometry.name), geometry=buffered, crs=buffered.crs)"
    ) in context


async def test_steps_that_only_see_to_requirements_go_once_every_output_meets_them(workdir, tmp_path):
    script = StepScript(
        ["Load the sites.", "Write the sites to kinds.csv.", "Ensure the CSV has the columns site_id and kind."],
        {
            "Load the sites": [LOAD],
            "Write the sites": ["sites[['site_id', 'kind']].to_csv('kinds.csv', index=False)"],
            "Ensure the CSV": ["import pandas as pd\npd.read_csv('kinds.csv').to_csv('kinds.csv', sep=';')"],
        },
    )
    run, finished, _ = await run_scripted(
        workdir, "Write the `site_id` and `kind` of every site in `sites.geojson` to `kinds.csv`.", script, tmp_path
    )
    assert finished.status == "succeeded", finished.message
    assert "Ensure the CSV" not in script.calls  # no model call, and the right file left as it was
    [tidied] = [e for e in run.bus.history if e.type == "replanned" and "left with nothing to do" in e.reason]
    assert "Ensure the CSV has the columns" in tidied.reason and len(tidied.subtasks) == 2
    assert (workdir / "kinds.csv").read_text().startswith("site_id,kind")


async def _records_per_kind(tmp_path, field: str, collect: list[str]):
    """A run that writes `kinds.csv` (`kind` and ``field``) from records a step collects per kind of
    three sites, the step's attempts being ``collect``: (run, finished, script, folder)."""
    folder = tmp_path / "work"
    folder.mkdir()
    gpd.GeoDataFrame(
        {"kind": ["a", "a", "b"]}, geometry=gpd.points_from_xy([1.0, 2.0, 3.0], [0.0, 0.0, 0.0]), crs=4326
    ).to_file(folder / "sites.geojson")
    script = StepScript(
        ["Load the sites.", "Collect one record per kind.", "Write kinds.csv."],
        {
            "Load the sites": ["import geopandas as gpd\nsites = gpd.read_file('sites.geojson')"],
            "Collect one record": collect,
            "Write kinds.csv": [
                f"import pandas as pd\npd.DataFrame(rows)[['kind', {field!r}]].to_csv('kinds.csv', index=False)"
            ],
        },
    )
    run, finished, _ = await run_scripted(
        folder,
        f"Write `kinds.csv` with one row per kind of `sites.geojson` and the columns `kind` and `{field}` "
        "(the x of one site of that kind).",
        script,
        tmp_path,
        max_attempts=2,
    )
    return run, finished, script, folder


async def test_a_whole_column_in_a_record_of_an_output_column_fails_the_step_that_built_it(tmp_path):
    """One record per layer built with `'site_x': layer.centroid.x` holds a Series of every
    feature's x, and the CSV made of the records holds a printed Series in each cell, though the step
    runs. The trial fails that step, naming the field, and the model's repair takes one value (no
    rewrite is certain: the field's values differ and its name does not say which one). A field no
    output lists may hold what the code likes."""
    run, finished, script, folder = await _records_per_kind(
        tmp_path,
        "site_x",
        [
            "rows = []\nfor k, g in sites.groupby('kind'):\n    rows.append({'kind': k, 'site_x': g.geometry.x})",
            "rows = []\nfor k, g in sites.groupby('kind'):\n"
            "    rows.append({'kind': k, 'site_x': g.geometry.x.iloc[0], 'xs': g.geometry.x})",
        ],
    )
    assert finished.status == "succeeded", finished.message
    failed = [e for e in run.bus.history if e.type == "executed" and e.result.status == "error"]
    assert [e.trial for e in failed] == [True]  # the trial caught it: never committed
    assert "`rows[0]['site_x']` holds a whole Series of 2 values" in failed[0].result.error
    assert script.calls["Collect one record"] == 2  # the `xs` field no output lists did not fail it
    assert (folder / "kinds.csv").read_text().splitlines() == ["kind,site_x", "a,1.0", "b,3.0"]


async def test_a_whole_column_in_a_sample_field_or_a_column_of_one_value_becomes_its_first_value(tmp_path):
    """A field named as a sample (`sample_x`) holding every feature's x, and a field holding a column
    whose values are all the same (each kind's `kind`), have one reading: the first value. The trial
    fails the step and the fix takes `.iloc[0]` of each without a model call; a field whose values
    differ and whose name does not say which one is left to the model."""
    run, finished, script, folder = await _records_per_kind(
        tmp_path,
        "sample_x",
        [
            "rows = []\nfor k, g in sites.groupby('kind'):\n"
            "    rows.append({'kind': g['kind'], 'sample_x': g.geometry.x + 0})"
        ],
    )
    assert finished.status == "succeeded", finished.message
    repaired = [e for e in run.bus.history if e.type == "repaired"]
    assert [e.strategy for e in repaired] == ["one_value"]
    assert "'kind': g['kind'].iloc[0]" in repaired[0].diff and "(g.geometry.x + 0).iloc[0]" in repaired[0].diff
    assert script.calls["Collect one record"] == 1  # no model call for the fix
    assert (folder / "kinds.csv").read_text().splitlines() == ["kind,sample_x", "a,1.0", "b,3.0"]
