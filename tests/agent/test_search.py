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
        run = make_run("double of 42", kernel, model, tmp_path, strategy="mcts",
                       mcts={"n_samples": 3, "k": 3, "max_nodes": 6})
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


def plan_responder(plan: str, lookahead: str, steps: dict[str, str]):
    """Planner answers ``plan``; the look-ahead answers ``lookahead``; a step prompt containing
    a key of ``steps`` (e.g. "Your step (2 of 3)") answers its code."""
    def reply(messages):
        system, user = messages[0].text, messages[-1].text
        if "plans Python analyses" in system:
            return plan
        if "Write the code for ALL the remaining steps" in user:
            return fenced(lookahead)
        for marker, code in steps.items():
            if marker in user:
                return fenced(code)
        raise AssertionError(user[-300:])

    return reply


def broken_rollout_responder():
    """The look-ahead's step 2 runs in its trial (one process) but not as a seed (the trial's fork is another process)."""
    return plan_responder(
        "1. Make the value.\n2. Print it.\n3. Print it again.",
        "# Step 2\nimport os\nassert os.getpid() == first_pid, 'another process'\nprint(value)\n# Step 3\nprint(value)",
        {"Your step (1 of 3)": "import os\nvalue = 7\nfirst_pid = os.getpid()",
         "Your step (2 of 3)": "print(value + 0)",
         "Your step (3 of 3)": "print(value)"},
    )


async def test_a_seed_that_fails_falls_back_to_sampling(tmp_path):
    model = ScriptedChatModel(responder=broken_rollout_responder())
    async with real_kernel(tmp_path) as kernel:
        run = make_run("print seven", kernel, model, tmp_path, strategy="mcts",
                       mcts={"n_samples": 1, "k": 1, "max_nodes": 4})
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
        {"Your step (1 of 2)": "value = 7",
         "Your step (2 of 2)": "open('value.json', 'w').write(str(value))"},
    )


async def test_a_rollout_that_skips_a_required_file_is_not_complete_and_seeds_nothing(tmp_path):
    model = ScriptedChatModel(responder=forgetful_rollout_responder())
    async with real_kernel(tmp_path) as kernel:
        run = make_run("write seven to `value.json`", kernel, model, tmp_path, strategy="mcts",
                       mcts={"n_samples": 1, "k": 1, "max_nodes": 4})
        finished = await run.wait()
    assert finished.status == "succeeded", finished.message
    nodes = [e for e in run.bus.history if e.type == "search_node"]
    step1 = [e for e in nodes if e.subtask_id == run.subtasks[0].id and e.status == "chosen"]
    assert step1 and step1[-1].reward == 0.5  # the node ran; its rollout did not write value.json
    assert any("Your step (2 of 2)" in text for text in model.prompt_texts)  # no seed: step 2 was generated
    assert (tmp_path / "value.json").read_text() == "7"
