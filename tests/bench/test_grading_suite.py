"""Graders on the dev suite: the truth grades 1.0, nothing grades 0, and the checklist is fixed."""

from __future__ import annotations

import pytest

from geoagent_ext.bench.grading import GradeReport, grade_generic

from .helpers import SUITE, copy_truth, task_params


@pytest.mark.parametrize("task", task_params())
def test_reference_outputs_grade_one(task, tmp_path):
    report = grade_generic(SUITE / task, copy_truth(task, tmp_path))
    assert report.passed and report.score == 1.0, report.summary()
    assert len(report.subchecks) >= 5


@pytest.mark.parametrize("task", task_params())
def test_empty_workdir_grades_zero_and_says_missing(task, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    report = grade_generic(SUITE / task, empty)
    assert report.score == 0.0 and not report.passed
    exists = [s for s in report.subchecks if s.name.endswith(":exists")]
    assert exists and all(s.detail.startswith("missing:") for s in exists)
    assert all("missing" in s.detail for s in report.subchecks), report.summary()
    # the checklist comes from the task, not from what the agent wrote
    truth = grade_generic(SUITE / task, copy_truth(task, tmp_path))
    assert [s.name for s in report.subchecks] == [s.name for s in truth.subchecks]


def test_report_score_handles_no_subchecks():
    report = GradeReport(task_id="t", subchecks=[])
    assert report.score == 0.0 and not report.passed
