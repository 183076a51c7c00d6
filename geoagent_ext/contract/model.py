"""The deliverable contract: what each output file must satisfy, as data.

A requirement is a short sentence a person reads plus, when code can check it, a typed
``kind`` with ``params`` that the in-kernel checker verifies on the file read back from disk.
Each kind, with what its params mean, is one entry of the registry ``contract/kinds``.
Requirements no code can check are ``kind="note"``: shown, never counted as passed ("not verified").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel, Field, model_validator

from .kinds import CHECKABLE, KIND_NAMES, KINDS

Kind = Literal[KIND_NAMES]  # type: ignore[valid-type]  # the registry's names; the panel's types follow them


class Requirement(BaseModel):
    id: str
    output: str = Field(description="the output file (path as the request names it)")
    text: str = Field(description="one sentence a person reads")
    kind: Kind = "note"
    params: dict[str, Any] = Field(default_factory=dict)
    origin: Literal["request", "user", "model"] = "request"  # "model": proposed by the model, kept by the rules
    said: str = Field(default="", description="the request's words it is read from (the user's, for their own)")
    sure: bool = Field(default=True, description="read with certainty; an unsure reading is shown, never gates")

    @model_validator(mode="after")
    def _params_fit_the_kind(self) -> Requirement:
        """The params are those of the kind (a rule that builds a wrong one fails here, not in the
        kernel); they stay the dict they were given, so the wire format does not change."""
        KINDS[self.kind].params.model_validate(self.params)
        return self

    @property
    def checkable(self) -> bool:
        """Checked on the file and gating ``succeeded``: a kind code checks, read with certainty. An
        unsure reading is shown and reported "not verified" like a note — a wrong requirement pushes
        repairs away from a right answer, which costs more than a missing one."""
        return self.kind in CHECKABLE and self.sure


class OutputSpec(BaseModel):
    path: str
    format: str


class Contract(BaseModel):
    outputs: list[OutputSpec] = Field(default_factory=list)
    requirements: list[Requirement] = Field(default_factory=list)

    def for_output(self, path: str) -> list[Requirement]:
        return [r for r in self.requirements if r.output == path]

    def checkable(self) -> list[Requirement]:
        return [r for r in self.requirements if r.checkable]

    def keeps_invalid(self) -> bool:
        """Whether an output must keep the input's invalid features, repaired (``rules.geometry._invalid_repaired``)."""
        return any(r.kind == "geometries_valid" and r.params.get("key") for r in self.requirements)

    def keeps_one_of_duplicates(self) -> bool:
        """Whether an output keeps one of each set of the input's duplicates (by geometry or by key)."""
        return any(
            (r.kind == "geometries_unique" and r.params.get("input")) or r.kind == "kept_of_duplicates"
            for r in self.requirements
        )

    def kept_copies(self) -> tuple[tuple[tuple[str, ...], str, str], ...]:
        """(key columns, ordering column, "min" or "max") of each duplicate set whose kept row the
        request names ("keep the row with the earliest `record_seq`")."""
        return tuple(
            (tuple(map(str, r.params["key"])), str(r.params["by"]), str(r.params["keep"]))
            for r in self.requirements
            if r.kind == "kept_of_duplicates" and r.params.get("key") and r.params.get("by")
        )

    def kinds(self) -> set[str]:
        """The kinds of the requirements that gate (checked on the files, read with certainty)."""
        return {r.kind for r in self.checkable()}

    def listed_columns(self) -> tuple[str, ...]:
        """The column names the outputs' ``columns`` requirements list, each once (a geometry column aside)."""
        names = [str(n) for r in self.requirements if r.kind == "columns" for n in r.params.get("names", [])]
        return tuple(dict.fromkeys(n for n in names if n != "geometry"))

    def text(self, suffix: Callable[[Requirement], str] | None = None) -> str:
        """The contract as the planner and the coder read it (``suffix``: more words per requirement)."""
        lines = []
        for out in self.outputs:
            lines.append(f"`{out.path}` ({out.format}):")
            lines += [f"  - {r.text}{suffix(r) if suffix else ''}" for r in self.for_output(out.path)]
        return "\n".join(lines)


class RequirementResult(BaseModel):
    """One requirement checked on the real file: passed or not, and what was seen."""

    id: str
    passed: bool
    observed: str = ""


class RequirementEdit(BaseModel):
    """One requirement as the user left it: an unchanged one keeps its ``id``; new or reworded
    text (``id`` empty or text changed) is read again by the rules."""

    id: str = ""
    output: str = Field(min_length=1, max_length=1000)
    text: str = Field(min_length=1, max_length=2000)
