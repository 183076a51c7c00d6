"""A task's own grader (GeoAgentBench's ``grade.py``), run in a child process.

GeoAgentBench tasks ship ``grade.py`` with ``grade(submission_dir) -> ScoreReport``, importing
the suite's shared ``geo_grading`` library. Those graders are the benchmark's rules, so a
task that has one is graded by it; ``core.grade_generic`` is only for suites without.
A grader that crashes, hangs or prints no report scores 0 with the reason recorded.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from .models import GradeReport, Subcheck

CHILD = Path(__file__).with_name("task_grader_child.py")
MARKER = "@@SCORE_REPORT@@"
GRADER_TIMEOUT_S = 600


def task_grader(task_dir: Path) -> Path | None:
    path = Path(task_dir) / "grade.py"
    return path if path.is_file() else None


def grading_library_root(task_dir: Path) -> Path | None:
    """The folder holding ``geo_grading/``: the suite root, or ``<suite>/../eval/``."""
    suite = Path(task_dir).resolve().parent
    for root in (suite, suite.parent / "eval"):
        if (root / "geo_grading").is_dir():
            return root
    return None


def grade_with_task_grader(task_dir: Path, workdir: Path, *, timeout: float = GRADER_TIMEOUT_S) -> GradeReport:
    task_dir = Path(task_dir).resolve()
    task_id = task_dir.name
    grade_py = task_grader(task_dir)
    if grade_py is None:
        return GradeReport(task_id=task_id, subchecks=[], grader="task", error=f"no grade.py in {task_dir}")
    library = grading_library_root(task_dir)
    argv = [sys.executable, str(CHILD), str(grade_py), str(Path(workdir).resolve())]
    if library is not None:
        argv.append(str(library))
    try:
        proc = subprocess.run(
            argv, capture_output=True, text=True, timeout=timeout, cwd=str(task_dir), stdin=subprocess.DEVNULL
        )
    except subprocess.TimeoutExpired:
        return GradeReport(task_id=task_id, subchecks=[], grader="task", error=f"grade.py ran over {timeout:.0f} s")
    payload = _report_payload(proc.stdout)
    if proc.returncode != 0 or payload is None:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
        return GradeReport(
            task_id=task_id,
            subchecks=[],
            grader="task",
            error=f"grade.py failed (exit {proc.returncode}): {tail[0][:300]}",
        )
    return from_score_report(payload, task_id)


def _report_payload(stdout: str) -> dict | None:
    for line in reversed(stdout.splitlines()):
        if line.startswith(MARKER):
            try:
                payload = json.loads(line[len(MARKER) :])
            except json.JSONDecodeError:
                return None
            return payload if isinstance(payload, dict) else None
    return None


def from_score_report(payload: dict, task_id: str) -> GradeReport:
    """GeoAgentBench's ``ScoreReport.to_dict()`` as a GradeReport (gates, weighted subchecks)."""
    checks = [
        Subcheck(
            name=str(g.get("name", "gate")), passed=bool(g.get("passed")), detail=str(g.get("reason") or ""), gate=True
        )
        for g in payload.get("gates") or []
    ]
    checks += [
        Subcheck(
            name=str(s.get("name", "check")),
            passed=bool(s.get("passed")),
            detail=str(s.get("detail") or ""),
            weight=float(s.get("weight", 1.0)),
        )
        for s in payload.get("subchecks") or []
    ]
    stated = payload.get("score")
    return GradeReport(
        task_id=str(payload.get("task_id") or task_id),
        subchecks=checks,
        grader="task",
        stated_score=float(stated) if isinstance(stated, (int, float)) else None,
    )
