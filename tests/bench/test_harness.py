"""`jupyter geoagent bench` end to end on the vendored one-task suite, with a scripted model and real kernels."""

from __future__ import annotations

import json
from pathlib import Path

from geoagent_ext.cli.main import main as cli_main

ROOT = Path(__file__).resolve().parents[2]
SUITE = ROOT / "tests" / "data" / "geoagentbench-mini"
REFERENCE = ROOT / "benchmarks" / "reference_solutions"
TASK = "dd-l1-capetown-clinics-bbox"

SCRIPT = """
from pathlib import Path

CALLS = Path(__file__).with_name("calls.txt")
SOLUTION = Path({solution!r}).read_text()


def reply(messages):
    with CALLS.open("a") as f:
        f.write("call\\n")
    system, user = messages[0].text, messages[-1].text
    if "plans Python analyses" in system:
        return "1. Write the inventory to clinic_inventory.json."
    if "reviewing a geospatial analysis" in system:
        return "OK"
    return "```python\\n" + SOLUTION + "\\n```"
"""


def _bench(tmp_path: Path, *extra: str) -> int:
    return cli_main(
        [
            "bench",
            str(SUITE),
            "--model",
            f"scripted:{tmp_path / 'model.py'}",
            "--out",
            str(tmp_path / "out"),
            "--no-index",
            "--reference-solutions",
            str(REFERENCE),
            *extra,
        ]
    )


def test_three_modes_graded_reported_and_resumable(tmp_path, capsys):
    (tmp_path / "model.py").write_text(SCRIPT.format(solution=str(REFERENCE / f"{TASK}.py")))
    calls = tmp_path / "calls.txt"

    assert _bench(tmp_path) == 0
    summary = json.loads((tmp_path / "out" / "results.json").read_text())
    assert set(summary["modes"]) == {"single", "loop", "mcts"}
    for mode, row in summary["modes"].items():
        assert row["mean_score"] == 1.0 and row["pass_rate"] == 1.0, (mode, row)
        assert row["llm_calls"] >= 1 and row["mean_call_f1"] == 1.0
    assert summary["modes"]["single"]["llm_calls"] == 1
    assert {t["mode"] for t in summary["tasks"]} == {"single", "loop", "mcts"}
    report = (tmp_path / "out" / "report.md").read_text()
    assert "| mcts |" in report and TASK in report
    assert summary["ratios"] == {"loop/single": 1.0, "mcts/single": 1.0} and "mcts/single = 1.0" in report
    written = json.loads((tmp_path / "out" / "work" / "loop" / TASK / "clinic_inventory.json").read_text())
    assert written["count"] == 80

    # A rerun keeps finished tasks: no model call, same results.
    before = calls.read_text().count("call")
    capsys.readouterr()
    assert _bench(tmp_path, "--mode", "single", "--task", TASK) == 0
    assert calls.read_text().count("call") == before
    assert "(kept)" in capsys.readouterr().err
    # --force runs it again.
    assert _bench(tmp_path, "--mode", "single", "--force") == 0
    assert calls.read_text().count("call") == before + 1


def test_unknown_task_or_suite_is_a_clear_error(tmp_path, capsys):
    (tmp_path / "model.py").write_text(SCRIPT.format(solution=str(REFERENCE / f"{TASK}.py")))
    assert _bench(tmp_path, "--task", "no-such-task") == 2
    assert "unknown task id(s): no-such-task" in capsys.readouterr().err
    assert cli_main(["bench", str(tmp_path / "nowhere"), "--out", str(tmp_path / "o")]) == 2
    assert "suite folder not found" in capsys.readouterr().err


SLEEPER = """
def reply(messages):
    system = messages[0].text
    if "plans Python analyses" in system:
        return "1. Count clinics per subdistrict."
    return "```python\\nimport time\\ntime.sleep(60)\\n```"
"""


def test_a_run_stopped_by_the_task_time_limit_is_a_timeout_not_a_cancel(tmp_path):
    (tmp_path / "model.py").write_text(SLEEPER)
    assert _bench(tmp_path, "--mode", "loop", "--task-timeout", "4") == 0
    [task] = json.loads((tmp_path / "out" / "results.json").read_text())["tasks"]
    assert task["status"] == "timeout" and "exceeded 4 s" in task["message"] and task["score"] == 0.0, (
        task["status"],
        task["message"],
    )
