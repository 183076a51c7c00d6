"""Grade results: a checklist of named pass/fail subchecks; the score is the passed fraction."""

from __future__ import annotations

from pydantic import BaseModel


class Subcheck(BaseModel):
    """One checklist item, e.g. ``borough_areas.csv:row_count``; ``detail`` says what differed."""

    name: str
    passed: bool
    detail: str = ""


class GradeReport(BaseModel):
    """Every subcheck of one task; the checklist depends only on the task, never on the deliverables."""

    task_id: str
    subchecks: list[Subcheck]

    @property
    def score(self) -> float:
        if not self.subchecks:
            return 0.0
        return sum(s.passed for s in self.subchecks) / len(self.subchecks)

    @property
    def passed(self) -> bool:
        return bool(self.subchecks) and self.score == 1.0

    def failed(self) -> list[Subcheck]:
        return [s for s in self.subchecks if not s.passed]

    def summary(self) -> str:
        """Short text: score, then one line per failed subcheck."""
        lines = [f"{self.task_id}: {sum(s.passed for s in self.subchecks)}/{len(self.subchecks)} subchecks"]
        lines += [f"  FAIL {s.name}: {s.detail}" for s in self.failed()]
        return "\n".join(lines)
