"""MCTS on a real kernel with scripted candidates: the tree, its rewards, and the commit."""

from __future__ import annotations

from geoagent_ext.llm.scripted import ScriptedChatModel

from .helpers import fenced, make_run, real_kernel


def responder_factory():
    """Planner: 2 steps. Step 1 samples three candidates (two fail); look-ahead writes step 2."""
    state = {"step1": 0}
    candidates = [
        "marker = 'bad-1'\nraise ValueError('candidate one is wrong')",
        "marker = 'good'\nvalue = 21 * 2\nprint(value)",
        "marker = 'bad-2'\nvalue = undefined_thing + 1",
    ]

    def reply(messages):
        system, user = messages[0].text, messages[-1].text
        if "plans Python analyses" in system:
            return "1. Compute the value.\n2. Print double the value."
        if "Write the code for ALL the remaining steps" in user:
            return fenced("# Step 1\nprint(value * 2)")
        if "Your step (1 of 2)" in user:
            if "previous attempt failed" in user:
                return fenced("marker = 'repaired'\nvalue = 42\nprint(value)")
            code = candidates[state["step1"] % 3]
            state["step1"] += 1
            return fenced(code)
        if "Your step (2 of 2)" in user:
            return fenced("print(value * 2)")
        raise AssertionError(user[-300:])

    return reply


async def test_mcts_explores_candidates_and_commits_only_the_chosen(tmp_path):
    model = ScriptedChatModel(responder=responder_factory())
    async with real_kernel(tmp_path) as kernel:
        run = make_run(
            "double of 42", kernel, model, tmp_path, strategy="mcts", mcts={"n_samples": 3, "k": 3, "max_nodes": 6}
        )
        finished = await run.wait()
        marker = await kernel.execute("print(marker)")
    assert finished.status == "succeeded", finished.message
    nodes = [e for e in run.bus.history if e.type == "search_node"]
    step1 = [e for e in nodes if e.subtask_id == run.subtasks[0].id]
    assert len({e.node_id for e in step1}) >= 2
    final = {}
    for e in step1:
        final[e.node_id] = e
    chosen = [e for e in final.values() if e.status == "chosen"]
    assert len(chosen) == 1 and "value = 21 * 2" in chosen[0].code or "value = 42" in chosen[0].code
    assert chosen[0].reward == 1.0  # the look-ahead rollout (step 2) ran
    # Failed candidates only ran in the sandbox: the live kernel holds the chosen code's state.
    assert marker.stdout.strip() in ("good", "repaired")
    live = [e for e in run.bus.history if e.type == "executed" and not e.trial]
    assert all(e.result.status == "ok" for e in live)
    solved = [e for e in run.bus.history if e.type == "solved"]
    assert solved[-1].result.stdout.strip() == "84"
    # Step 2 came from the chosen node's completed rollout: tried first, no model call for it.
    assert not any("Your step (2 of 2)" in text for text in model.prompt_texts)
    step2 = [e for e in nodes if e.subtask_id == run.subtasks[1].id]
    assert step2 and step2[-1].status == "chosen" and step2[-1].code.strip() == "# Step 1\nprint(value * 2)"


def plan_responder(plan: str, lookahead: str | dict[str, str], steps: dict[str, str]):
    """Planner answers ``plan``; the look-ahead answers ``lookahead`` (or, for a dict, the code of
    its first key found in the look-ahead's task: the remaining steps it lists); a step prompt
    containing a key of ``steps`` (e.g. "Your step (2 of 3)") answers its code."""

    def reply(messages):
        system, user = messages[0].text, messages[-1].text
        if "plans Python analyses" in system:
            return plan
        if "Write the code for ALL the remaining steps" in user:
            if isinstance(lookahead, str):
                return fenced(lookahead)
            task = user.split("## Your task", 1)[1]
            return fenced(next(code for marker, code in lookahead.items() if marker in task))
        for marker, code in steps.items():
            if marker in user:
                return fenced(code)
        raise AssertionError(user[-300:])

    return reply


def broken_rollout_responder():
    """The look-ahead's step 2 runs in its trial (one process) but not as a seed (the trial's fork is
    another process)."""
    return plan_responder(
        "1. Make the value.\n2. Print it.\n3. Print it again.",
        "# Step 2\nimport os\nassert os.getpid() == first_pid, 'another process'\nprint(value)\n# Step 3\nprint(value)",
        {
            "Your step (1 of 3)": "import os\nvalue = 7\nfirst_pid = os.getpid()",
            "Your step (2 of 3)": "print(value + 0)",
            "Your step (3 of 3)": "print(value)",
        },
    )


async def test_a_seed_that_fails_falls_back_to_sampling(tmp_path):
    model = ScriptedChatModel(responder=broken_rollout_responder())
    async with real_kernel(tmp_path) as kernel:
        run = make_run(
            "print seven", kernel, model, tmp_path, strategy="mcts", mcts={"n_samples": 1, "k": 1, "max_nodes": 4}
        )
        finished = await run.wait()
    assert finished.status == "succeeded", finished.message
    nodes = [e for e in run.bus.history if e.type == "search_node" and e.subtask_id == run.subtasks[1].id]
    assert any(e.status == "failed" and "first_pid" in e.code for e in nodes)  # the seed, tried first
    assert any("Your step (2 of 3)" in text for text in model.prompt_texts)  # then a sampled candidate
    chosen = [e for e in nodes if e.status == "chosen"]
    assert chosen and chosen[-1].code.strip() == "print(value + 0)"


def forgetful_rollout_responder():
    """The look-ahead runs but never writes the requested file; step 2's own candidate does."""
    return plan_responder(
        "1. Make the value.\n2. Write the value to `value.json`.",
        "# Step 2\nprint(value)",
        {"Your step (1 of 2)": "value = 7", "Your step (2 of 2)": "open('value.json', 'w').write(str(value))"},
    )


async def test_a_rollout_that_skips_a_required_file_is_not_complete_and_seeds_nothing(tmp_path):
    model = ScriptedChatModel(responder=forgetful_rollout_responder())
    async with real_kernel(tmp_path) as kernel:
        run = make_run(
            "write seven to `value.json`",
            kernel,
            model,
            tmp_path,
            strategy="mcts",
            mcts={"n_samples": 1, "k": 1, "max_nodes": 4},
        )
        finished = await run.wait()
    assert finished.status == "succeeded", finished.message
    nodes = [e for e in run.bus.history if e.type == "search_node"]
    step1 = [e for e in nodes if e.subtask_id == run.subtasks[0].id and e.status == "chosen"]
    assert step1 and step1[-1].reward == 0.5  # the node ran; its rollout did not write value.json
    assert any("Your step (2 of 2)" in text for text in model.prompt_texts)  # no seed: step 2 was generated
    assert (tmp_path / "value.json").read_text() == "7"


def dead_end_seed_responder():
    """Step 1's look-ahead writes a step 2 that runs but leaves step 3 no way on (like a buffer
    written without the id column); the look-ahead from step 2 writes step 3, which needs a real half."""
    return plan_responder(
        "1. Make the value.\n2. Halve the value.\n3. Print the half plus one.",
        {
            "Halve the value": "# Step 2\nhalf = None\n# Step 3\nprint(half + 1)",
            "Print the half": "# Step 3\nprint(half + 1)",
        },
        {"Your step (1 of 3)": "value = 7", "Your step (2 of 3)": "half = value / 2"},
    )


async def test_a_seed_whose_next_step_cannot_run_is_only_a_candidate(tmp_path):
    model = ScriptedChatModel(responder=dead_end_seed_responder())
    async with real_kernel(tmp_path) as kernel:
        run = make_run("half of seven plus one", kernel, model, tmp_path, strategy="mcts", on_stuck="stop")
        finished = await run.wait()
        half = await kernel.execute("print(half)")
    assert finished.status == "succeeded", finished.message
    step2 = {}
    for e in run.bus.history:
        if e.type == "search_node" and e.subtask_id == run.subtasks[1].id:
            step2[e.node_id] = e
    seed, sampled = [step2[k] for k in sorted(step2, key=lambda k: int(k.rsplit("-", 1)[1]))]
    assert seed.code == "# Step 2\nhalf = None" and seed.status == "ok" and seed.reward == 0.5  # ran; step 3 did not
    assert sampled.code == "half = value / 2" and sampled.status == "chosen" and sampled.reward == 1.0
    assert half.stdout.strip() == "3.5"
    solved = [e for e in run.bus.history if e.type == "solved"]
    assert solved[-1].result.stdout.strip() == "4.5"


def _step_calls(model: ScriptedChatModel, marker: str) -> list[tuple[str, float]]:
    """(kind, temperature) of each code call for the step ``marker``: "fresh" or "repair"."""
    calls = []
    for text, kwargs in zip(model.prompt_texts, model.call_kwargs):
        if marker in text and "Write the code for ALL the remaining steps" not in text:
            calls.append(("repair" if "previous attempt failed" in text else "fresh", kwargs.get("temperature")))
    return calls


async def test_a_candidate_that_runs_costs_one_sample(tmp_path):
    # Progressive widening: the first candidate runs and its look-ahead completes, so the
    # search draws no second candidate for step 1 and none at all for step 2 (its seed runs).
    model = ScriptedChatModel(
        responder=plan_responder(
            "1. Make the value.\n2. Print it.",
            "# Step 2\nprint(value)",
            {"Your step (1 of 2)": "value = 7", "Your step (2 of 2)": "print(value)"},
        )
    )
    async with real_kernel(tmp_path) as kernel:
        run = make_run("print seven", kernel, model, tmp_path, strategy="mcts")
        finished = await run.wait()
    assert finished.status == "succeeded", finished.message
    assert _step_calls(model, "Your step (1 of 2)") == [("fresh", 0.2)]
    assert _step_calls(model, "Your step (2 of 2)") == []
    assert run.stats.attempts == 2  # one node per step


def fresh_and_repair_responder(plan: str, fresh: list[str], repair: str):
    """Planner answers ``plan``; a step's fresh prompts get ``fresh`` in order (the last one
    repeats); a repair prompt gets ``repair``."""
    answers = iter(fresh)

    def reply(messages):
        system, user = messages[0].text, messages[-1].text
        if "plans Python analyses" in system:
            return plan
        if "previous attempt failed" in user:
            return fenced(repair)
        return fenced(next(answers, fresh[-1]))

    return reply


async def test_a_candidate_of_only_comments_fails_and_is_repaired(tmp_path):
    model = ScriptedChatModel(responder=fresh_and_repair_responder("1. Set x.", ["# Cause: x was never set."], "x = 3"))
    async with real_kernel(tmp_path) as kernel:
        run = make_run("x", kernel, model, tmp_path, strategy="mcts", on_stuck="stop")
        finished = await run.wait()
        value = await kernel.execute("print(x)")
    assert finished.status == "succeeded", finished.message
    nodes = [e for e in run.bus.history if e.type == "search_node" and e.status in ("failed", "chosen")]
    assert [(e.status, e.code) for e in nodes] == [("failed", "# Cause: x was never set."), ("chosen", "x = 3")]
    assert "only comments" in nodes[0].error and value.stdout.strip() == "3"


async def test_a_repair_of_only_comments_is_repaired_from_the_code_before_it(tmp_path):
    failing = "x = int('three')"
    repairs = iter(["# Cause: 'three' is text.\n# Use a number.", "x = 3"])
    prompts = []

    def reply(messages):
        system, user = messages[0].text, messages[-1].text
        if "plans Python analyses" in system:
            return "1. Set x."
        if "previous attempt failed" in user:
            prompts.append(user)
            return fenced(next(repairs, "x = 3"))
        return fenced(failing)

    model = ScriptedChatModel(responder=reply)
    async with real_kernel(tmp_path) as kernel:
        run = make_run("x", kernel, model, tmp_path, strategy="mcts", on_stuck="stop")
        finished = await run.wait()
    assert finished.status == "succeeded", finished.message
    after_comments = [p for p in prompts if "only comments" in p]
    assert after_comments, prompts
    shown = after_comments[0].split("## Your previous attempt failed", 1)[1]
    assert failing in shown and "invalid literal for int()" in shown and "# Use a number." not in shown


async def test_the_root_widens_after_a_failed_candidate_and_its_repair(tmp_path):
    # Step 1: the first answer fails, its repair fails too, a second fresh sample runs.
    model = ScriptedChatModel(
        responder=fresh_and_repair_responder(
            "1. Compute the value.", ["value = 1 / 0", "value = 42\nprint(value)"], "value = int('forty-two')"
        )
    )
    async with real_kernel(tmp_path) as kernel:
        run = make_run("the value", kernel, model, tmp_path, strategy="mcts")
        finished = await run.wait()
        value = await kernel.execute("print(value)")
    assert finished.status == "succeeded", finished.message
    assert value.stdout.strip() == "42"
    # Repair first (the traceback is the best lead), then a new root sample with more variety.
    assert _step_calls(model, "Your step (1 of 1)") == [("fresh", 0.2), ("repair", 0.5), ("fresh", 0.8)]
    final = {e.node_id: e for e in run.bus.history if e.type == "search_node"}
    root_id = f"{run.subtasks[0].id}-root"
    chosen = [e for e in final.values() if e.status == "chosen"]
    assert len(chosen) == 1 and chosen[0].parent_id == root_id
    repair_node = [e for e in final.values() if "forty-two" in e.code]
    assert repair_node and repair_node[0].parent_id != root_id and repair_node[0].status == "failed"


async def test_a_committed_result_without_the_requested_keys_is_repaired_by_the_search(tmp_path):
    # The after-step check runs on the committed node: a list where the request names an
    # object's keys makes that node a failed one, and its repair (which reads the warning) wins.
    request = "Count the cities. Write `summary.json` with keys `count` and `names`."
    model = ScriptedChatModel(
        responder=fresh_and_repair_responder(
            "1. Write the summary.",
            ["import json\njson.dump([{'name': 'A'}, {'name': 'B'}], open('summary.json', 'w'))"],
            "import json\njson.dump({'count': 2, 'names': ['A', 'B']}, open('summary.json', 'w'))",
        )
    )
    async with real_kernel(tmp_path) as kernel:
        run = make_run(request, kernel, model, tmp_path, strategy="mcts")
        finished = await run.wait()
    repairs = [t for t in model.prompt_texts if "previous attempt failed" in t]
    assert repairs and all("request asks for an object with keys count, names" in t for t in repairs)
    assert finished.status == "succeeded", finished.message
    import json

    assert json.loads((tmp_path / "summary.json").read_text()) == {"count": 2, "names": ["A", "B"]}
    nodes = [e for e in run.bus.history if e.type == "search_node"]
    rejected = [e for e in nodes if e.status == "failed" and "result looks wrong" in (e.error or "")]
    assert rejected and "[{'name'" in rejected[0].code
    chosen = [e for e in nodes if e.status == "chosen"]
    assert len(chosen) == 1 and chosen[0].parent_id == rejected[0].node_id
    solved = [e for e in run.bus.history if e.type == "solved"]
    assert len(solved) == 1 and not solved[0].result.warnings


async def test_full_widening_samples_n_and_keeps_the_k_best(tmp_path):
    # The paper's expansion, kept as an option: n candidates at once, the k best kept as children.
    model = ScriptedChatModel(
        responder=fresh_and_repair_responder("1. Compute the value.", [f"value = {i}" for i in range(3)], "value = -1")
    )
    async with real_kernel(tmp_path) as kernel:
        run = make_run(
            "the value", kernel, model, tmp_path, strategy="mcts", mcts={"widening": "full", "n_samples": 3, "k": 2}
        )
        finished = await run.wait()
    assert finished.status == "succeeded", finished.message
    assert _step_calls(model, "Your step (1 of 1)") == [("fresh", 0.8)] * 3
    children = {e.node_id for e in run.bus.history if e.type == "search_node"}
    assert len(children) == 2


def test_search_options_are_checked_when_the_run_is_made():
    import pydantic
    import pytest

    from geoagent_ext.agent.run import RunOptions

    assert RunOptions(mcts={"n_samples": 2}).mcts.n_samples == 2
    with pytest.raises(pydantic.ValidationError, match="widening"):
        RunOptions(mcts={"widening": "sideways"})
    with pytest.raises(pydantic.ValidationError, match="n_sample"):
        RunOptions(mcts={"n_sample": 2})


async def test_a_node_whose_file_breaks_the_contract_earns_less_and_is_never_committed(tmp_path):
    # Two candidates for the only step both run and both write the file; the first leaves it in
    # degrees where the request asks for EPSG:3857. Counting only steps that ran, both score 1
    # and the first would be committed to the live kernel; counting requirements met, the
    # search samples on and commits the second.
    import geopandas as gpd
    from shapely.geometry import Point

    gpd.GeoDataFrame({"pid": ["a"]}, geometry=[Point(10, 50)], crs=4326).to_file(tmp_path / "pts.geojson")
    wrong = "import geopandas as gpd\npts = gpd.read_file('pts.geojson')\npts.to_file('out.geojson')\nprint('wrong')"
    right = (
        "import geopandas as gpd\npts = gpd.read_file('pts.geojson')\npts.to_crs(3857).to_file('out.geojson')\n"
        "print('right')"
    )
    answers = iter([wrong, right, right, right])

    def reply(messages):
        system, user = messages[0].text, messages[-1].text
        if "plans Python analyses" in system:
            return "1. Reproject the points and write out.geojson."
        if "Your step (1 of 1)" in user:
            return fenced(next(answers))
        raise AssertionError(user[-300:])

    model = ScriptedChatModel(responder=reply)
    async with real_kernel(tmp_path) as kernel:
        run = make_run(
            "Reproject `pts.geojson` to EPSG:3857 and write `out.geojson`.",
            kernel,
            model,
            tmp_path,
            strategy="mcts",
            mcts={"n_samples": 3, "k": 3, "max_nodes": 4},
        )
        finished = await run.wait()
    assert finished.status == "succeeded", finished.message
    final = {}
    for e in (e for e in run.bus.history if e.type == "search_node"):
        final[e.node_id] = e
    by_code = {e.code.strip().splitlines()[-1]: e for e in final.values()}
    assert by_code["print('wrong')"].reward < 1.0 and by_code["print('wrong')"].status != "chosen"
    assert by_code["print('right')"].reward == 1.0 and by_code["print('right')"].status == "chosen"
    live = [e.code for e in run.bus.history if e.type == "executed" and not e.trial]
    assert live and not any("print('wrong')" in code for code in live)
    assert gpd.read_file(tmp_path / "out.geojson").crs.to_epsg() == 3857
