"""Honest scores: a task's own grade.py is used when present (in a child process), a grader
that crashes scores 0 with its reason, the generic grader's gates score 0, and false
successes / false alarms are counted."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from geoagent_ext.bench.grading import grade_generic, grade_task
from geoagent_ext.bench.harness import TaskResult
from geoagent_ext.bench.report import markdown, summarize

from .test_grading_rules import make_task, squares

MINI = Path(__file__).resolve().parents[1] / "data" / "geoagentbench-mini"
TASK = "dd-l1-capetown-clinics-bbox"


def _suite_copy(tmp_path: Path, library_at: str = "suite") -> Path:
    """The vendored one-task suite copied, with geo_grading at the suite root or at <suite>/../eval/."""
    suite = tmp_path / "suite"
    shutil.copytree(MINI / TASK, suite / TASK)
    target = suite if library_at == "suite" else tmp_path / "eval"
    shutil.copytree(MINI / "geo_grading", target / "geo_grading")
    return suite


def _truth(workdir: Path) -> Path:
    workdir.mkdir(exist_ok=True)
    shutil.copy(MINI / TASK / "reference" / "outputs" / "clinic_inventory.json", workdir)
    return workdir


def test_task_grader_is_used_when_present(tmp_path):
    report = grade_task(MINI / TASK, _truth(tmp_path / "w"))
    assert report.grader == "task" and not report.error, report.summary()
    assert report.score == 1.0 and report.passed
    assert [g.name for g in report.gates] == ["format_schema_valid"]
    assert len([s for s in report.subchecks if not s.gate]) >= 3

    # A wrong count costs exactly what the benchmark's rules say (its own stated score).
    bad = json.loads((tmp_path / "w" / "clinic_inventory.json").read_text())
    bad["count"] += 7
    (tmp_path / "w" / "clinic_inventory.json").write_text(json.dumps(bad))
    wrong = grade_task(MINI / TASK, tmp_path / "w")
    assert 0 < wrong.score < 1 and not wrong.passed
    assert any(not s.passed and "count" in s.name for s in wrong.subchecks), wrong.summary()

    # A missing deliverable fails the grader's gate: score 0.
    missing = grade_task(MINI / TASK, tmp_path / "empty")
    assert missing.score == 0.0 and missing.gate_failed and "missing" in missing.gates[0].detail


def test_grading_library_found_beside_the_suite_in_eval(tmp_path):
    suite = _suite_copy(tmp_path, library_at="eval")
    report = grade_task(suite / TASK, _truth(tmp_path / "w"))
    assert report.grader == "task" and report.score == 1.0, report.summary()


def test_a_grader_that_raises_scores_zero_with_its_reason(tmp_path):
    suite = _suite_copy(tmp_path)
    (suite / TASK / "grade.py").write_text(
        "def grade(submission_dir):\n    raise RuntimeError('reference is corrupt')\n"
    )
    report = grade_task(suite / TASK, _truth(tmp_path / "w"))
    assert report.grader == "task" and report.score == 0.0 and not report.passed
    assert "RuntimeError: reference is corrupt" in report.error


def test_a_grader_cannot_leak_state_into_the_next_task(tmp_path):
    suite = _suite_copy(tmp_path)
    original = (suite / TASK / "grade.py").read_text()
    # This grader breaks the shared library for anyone who runs after it in the same process.
    (suite / TASK / "grade.py").write_text(
        "import geo_grading.scoring as s\n" + original + "\ns.ScoreReport.score = property(lambda self: 0.0)\n"
    )
    grade_task(suite / TASK, _truth(tmp_path / "w"))
    (suite / TASK / "grade.py").write_text(original)
    assert grade_task(suite / TASK, tmp_path / "w").score == 1.0


def test_generic_grader_gates_score_zero_for_a_wrong_crs(tmp_path):
    task = make_task(
        tmp_path,
        "Write cells.geojson with cell_id and value.",
        {"cells.geojson": (squares(crs=3857), {"crs": "EPSG:3857"})},
    )
    work = tmp_path / "work"
    work.mkdir()
    squares(crs=3857).to_crs(4326).to_file(work / "cells.geojson")
    report = grade_generic(task, work)
    crs = next(s for s in report.subchecks if s.name.endswith(":crs"))
    assert crs.gate and not crs.passed
    assert report.score == 0.0
    # Every other check passes: the gate alone is what collapses the score.
    assert all(s.passed for s in report.subchecks if not s.gate), report.summary()

    squares(crs=3857).to_file(work / "cells.geojson", driver="GeoJSON")
    assert grade_generic(task, work).score == 1.0


def test_generic_grader_gates_missing_keys_and_reads_the_solution_layout(tmp_path):
    task = make_task(tmp_path, "Write summary.json.", {"summary.json": ({"count": 3, "total": 4.5}, {})})
    solution = task / "reference" / "solution" / "outputs"
    solution.mkdir(parents=True)
    (task / "reference" / "outputs" / "summary.json").rename(solution / "summary.json")
    work = tmp_path / "work"
    work.mkdir()
    (work / "summary.json").write_text(json.dumps({"count": 3}))
    report = grade_generic(task, work)
    assert report.score == 0.0 and [g.name for g in report.gates if not g.passed] == ["summary.json:keys"]
    (work / "summary.json").write_text(json.dumps({"count": 3, "total": 4.5}))
    assert grade_generic(task, work).score == 1.0


def _result(task_id, status, score, mode="loop"):
    return TaskResult(
        task_id=task_id,
        mode=mode,
        model="m",
        score=score,
        passed=score == 1.0,
        status=status,
        grader="task",
        llm_calls=4,
    )


def test_false_successes_and_false_alarms_are_counted_and_reported():
    results = [
        _result("a", "succeeded", 0.64),
        _result("b", "succeeded", 1.0),
        _result("c", "partial", 1.0),
        _result("d", "failed", 0.0),
        _result("e", "timeout", 0.0),
        _result("f", "succeeded", 0.0),
    ]
    summary = summarize(results)
    loop = summary["modes"]["loop"]
    assert loop["false_successes"] == 2 and loop["false_alarms"] == 1
    assert loop["passes"] == 2 and loop["succeeded"] == 3 and loop["llm_calls_per_pass"] == 12.0
    flagged = {t["task_id"] for t in summary["tasks"] if t["false_success"]}
    assert flagged == {"a", "f"}
    report = markdown(summary)
    assert "false successes" in report and "| **2** |" in report
