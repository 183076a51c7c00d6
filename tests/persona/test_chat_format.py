"""The chat's wording rules, without a chat: events -> markdown, replies -> actions."""

from __future__ import annotations

from geoagent_ext.agent.events import (
    ExecutionSummary,
    Finished,
    NeedsHuman,
    Planned,
    Replanned,
    RunStarted,
    RunStats,
    Solved,
    SubtaskSpec,
)
from geoagent_ext.persona.chat_format import ChatFormatter, fenced
from geoagent_ext.persona.turns import (
    approval_action,
    attached_notebook,
    follow_up_request,
    is_cancel,
    strip_mention,
    stuck_action,
)

S1, S2, S3 = (
    SubtaskSpec(id=f"s{i}", description=d)
    for i, d in enumerate(["Load <parcels>", "Reproject to EPSG:3035", "Map it"], start=1)
)


def _feed(fmt, *events):
    return [post for e in events for post in fmt.feed(e)]


def test_a_run_reads_as_plan_outcomes_needs_you_and_summary():
    fmt = ChatFormatter("r1", "work/nb.ipynb")
    posts = _feed(
        fmt,
        RunStarted(run_id="r1", request="x", model="m"),
        Planned(run_id="r1", subtasks=[S1, S2, S3]),
        Solved(run_id="r1", subtask_id="s1", code="c", attempts=2, result=ExecutionSummary(status="ok")),
        NeedsHuman(
            run_id="r1",
            subtask_id="s2",
            code="c",
            attempts=5,
            error="KeyError: 'nme' ``` <script>alert(1)</script> key sk-abcdefghijklmnopqrstu",
        ),
    )
    assert [p.separate for p in posts] == [False, False, False, True]
    assert "`work/nb.ipynb`" in posts[0].text and "run `r1`" in posts[0].text
    assert "1. Load &lt;parcels&gt;\n2. Reproject to EPSG:3035\n3. Map it" in posts[1].text  # LLM text is escaped
    assert posts[2].text == "- ✓ **1.** Load &lt;parcels&gt; (2 attempts)"
    stuck = posts[3]
    assert stuck.pause and "**2.** Reproject to EPSG:3035 **needs you** after 5 attempts" in stuck.text
    assert "````text\nKeyError: 'nme' ``` <script>" in stuck.text  # a longer fence: the error cannot break out
    assert "sk-abc" not in stuck.text and "[REDACTED]" in stuck.text
    assert 'data-commandlinker-command="geoagent:open-panel"' in stuck.text
    assert 'data-commandlinker-args="{&quot;run_id&quot;: &quot;r1&quot;}"' in stuck.text

    done = fmt.feed(
        Finished(
            run_id="r1",
            status="partial",
            message="1 step(s) skipped",
            stats=RunStats(subtasks=3, solved=2, attempts=8, llm_calls=11, seconds=42.25),
        )
    )[0]
    assert done.separate and done.pause
    assert done.text.startswith(
        "**◐ Partly done** · 2/3 steps · 8 attempts · 11 LLM calls · 42.2 s\n\n1 step(s) skipped\n\n"
    )


def test_a_revised_plan_numbers_the_new_steps_after_the_done_ones():
    fmt = ChatFormatter("r1")
    new = SubtaskSpec(id="n1", description="Fix the CRS first")
    posts = _feed(
        fmt,
        Planned(run_id="r1", subtasks=[S1, S2, S3]),
        Replanned(run_id="r1", reason="empty join", subtasks=[S1, new, S3]),
    )
    assert posts[-1].text.endswith("2. Fix the CRS first\n3. Map it")
    assert (
        fmt.feed(
            Solved(run_id="r1", subtask_id="n1", code="", attempts=1, result=ExecutionSummary(status="ok"), by="human")
        )[0].text
        == "- ✓ **2.** Fix the CRS first (your fix)"
    )


def test_fences_grow_past_backticks_and_long_code_is_cut():
    assert fenced("a ```` b").startswith("`````\n")
    block = fenced("\n".join(f"line {i}" for i in range(100)), "python", max_lines=3)
    assert block.splitlines()[1:5] == ["line 0", "line 1", "line 2", "... (97 more lines in the panel)"]


def test_replies_to_a_waiting_run():
    assert strip_mention("@GeoAgent  count clinics", "GeoAgent") == "count clinics"
    assert strip_mention("hey @geoagent: map it", "GeoAgent") == "hey map it"
    assert stuck_action("skip") == ("skip", "skip")
    assert stuck_action("Cancel!") == ("cancel", "")
    assert stuck_action("skipping the header row is wrong, use row 2")[0] == "hint"
    assert stuck_action("the column is NAME_1") == ("hint", "the column is NAME_1")
    assert approval_action("yes") == ("approve", "")
    assert approval_action("no, use EPSG:3035") == ("reject", "use EPSG:3035")
    assert is_cancel("stop") and not is_cancel("stop using the old CRS and reproject everything")


def test_notebook_attachments_and_follow_up_context():
    attachments = {
        "a": {"type": "file", "value": "data/parcels.gpkg"},
        "b": {"type": "notebook", "value": "/work/nb.ipynb"},
    }
    assert attached_notebook(["a", "b"], attachments) == "work/nb.ipynb"
    assert attached_notebook(["a"], attachments) is None and attached_notebook(None, attachments) is None
    previous = {
        "request": "load parcels",
        "notebook": "nb.ipynb",
        "subtasks": [
            {"status": "solved", "code": "import geopandas as gpd\nparcels = gpd.read_file('p.gpkg')"},
            {"status": "skipped", "code": "broken()"},
        ],
    }
    request = follow_up_request("now map them", previous)
    assert request.startswith("now map them\n\n") and '"load parcels"' in request
    assert "parcels = gpd.read_file('p.gpkg')" in request and "broken()" not in request
    assert follow_up_request("map", None) == "map"


def test_the_contract_reads_as_a_list_a_review_pauses_and_unmet_ones_close_the_summary():
    from geoagent_ext.agent.events import ContractStated
    from geoagent_ext.contract import derive_contract
    from geoagent_ext.persona.turns import contract_action

    contract = derive_contract("Write `out.csv` with columns `code` (integer) and `name`.", ["out.csv"])
    fmt = ChatFormatter("r1")
    review = fmt.feed(ContractStated(run_id="r1", contract=contract, awaiting_review=True))[0]
    assert review.pause and "- `out.csv`: `code` holds integers" in review.text and "`approve`" in review.text
    stated = fmt.feed(ContractStated(run_id="r1", contract=contract, by="user"))[0]
    assert not stated.pause and "(as you left it)" in stated.text

    assert contract_action("ok", contract.model_dump()) == ("approve", None)
    kind, edits = contract_action("sorted by `code`\n- has no empty `name`", contract.model_dump())
    assert kind == "contract" and len(edits) == len(contract.requirements) + 2
    assert edits[-2:] == [
        {"output": "out.csv", "text": "sorted by `code`"},
        {"output": "out.csv", "text": "has no empty `name`"},
    ]

    done = fmt.feed(
        Finished(
            run_id="r1",
            status="partial",
            message="1 requirement(s) not met",
            unmet=["out.csv: `code` holds integers — seen: `code` dtype float64"],
            not_verified=["out.csv: reads well"],
            stats=RunStats(subtasks=2, solved=2),
        )
    )[0]
    assert "- ✗ out.csv: `code` holds integers — seen: `code` dtype float64" in done.text
    assert "- ? out.csv: reads well" in done.text and "1 requirement(s) not met" not in done.text


def test_a_finished_run_with_cells_offers_its_undo_as_a_command_link():
    fmt = ChatFormatter("r1")
    [done] = fmt.feed(Finished(run_id="r1", status="succeeded", stats=RunStats(subtasks=1, solved=1)))
    assert 'data-commandlinker-command="geoagent:undo-run"' in done.text and ">Undo this run</button>" in done.text
    assert 'data-commandlinker-args="{&quot;run_id&quot;: &quot;r1&quot;}"' in done.text
    [nothing] = fmt.feed(Finished(run_id="r1", status="failed", stats=RunStats(subtasks=1, solved=0)))
    assert "undo-run" not in nothing.text  # no cell was written: nothing to undo
