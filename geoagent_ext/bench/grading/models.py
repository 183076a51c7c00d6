"""Grade results, shaped like GeoAgentBench's ``ScoreReport``: hard gates, then weighted subchecks.

A failed gate (deliverable missing, unparsable, wrong format or CRS, required columns/keys
missing) means the deliverable is not usable: the score is 0 however good the rest is.
Otherwise the score is the weighted share of subchecks passed.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class Subcheck(BaseModel):
    """One checklist item, e.g. ``borough_areas.csv:row_count``; ``detail`` says what differed.

    ``gate=True`` makes it a hard gate: excluded from the weighted share, and failing it
    scores the whole task 0."""

    name: str
    passed: bool
    detail: str = ""
    weight: float = 1.0
    gate: bool = False


class GradeReport(BaseModel):
    """Every gate and subcheck of one task; the checklist depends only on the task, never on the deliverables."""

    task_id: str
    subchecks: list[Subcheck]
    grader: Literal["task", "generic"] = "generic"
    error: str = Field("", description="why the grader itself failed (the score is then 0)")
    stated_score: float | None = Field(
        None, description="the score a task's own grader computed; it is the benchmark's number"
    )

    @property
    def gates(self) -> list[Subcheck]:
        return [s for s in self.subchecks if s.gate]

    @property
    def gate_failed(self) -> bool:
        return any(not s.passed for s in self.gates)

    @property
    def score(self) -> float:
        if self.error or self.gate_failed:
            return 0.0
        if self.stated_score is not None:
            return self.stated_score
        checks = [s for s in self.subchecks if not s.gate]
        total = sum(s.weight for s in checks)
        if total <= 0:
            return 1.0 if self.gates else 0.0
        return sum(s.weight for s in checks if s.passed) / total

    @property
    def passed(self) -> bool:
        return bool(self.subchecks) and not self.error and self.score == 1.0

    def failed(self) -> list[Subcheck]:
        return [s for s in self.subchecks if not s.passed]

    def summary(self) -> str:
        """Short text: score, then one line per failed gate or subcheck."""
        checks = [s for s in self.subchecks if not s.gate]
        lines = [
            f"{self.task_id} ({self.grader} grader): score {self.score:.3f}, "
            f"{sum(s.passed for s in checks)}/{len(checks)} subchecks"
        ]
        if self.error:
            lines.append(f"  ERROR {self.error}")
        lines += [f"  {'GATE' if s.gate else 'FAIL'} {s.name}: {s.detail}" for s in self.failed()]
        return "\n".join(lines)
