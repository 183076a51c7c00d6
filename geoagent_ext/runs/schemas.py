"""Request bodies of the runs API (pydantic: validation errors become clear 400s)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ..contract import RequirementEdit


class StartRunRequest(BaseModel):
    """Start a run on the kernel of an open notebook (or a kernel id)."""

    model_config = ConfigDict(extra="forbid")

    request: str = Field(min_length=1, max_length=20_000, description="What the user wants, in plain words.")
    notebook_path: str | None = Field(
        None, max_length=4096, description="Notebook path relative to the server root; its session's kernel is used."
    )
    kernel_id: str | None = Field(None, max_length=200, description="A running kernel id (instead of notebook_path).")
    model: str | None = Field(None, max_length=200, description="provider:model; default: the configured model.")
    strategy: Literal["loop", "mcts", "auto"] = "loop"
    search_steps: int | None = Field(
        None, ge=0, le=50, description="strategy auto: steps per run the search may take over where the loop stalls."
    )
    approval_mode: bool | None = None
    max_attempts: int | None = Field(None, ge=1, le=20)


class ActionRequest(BaseModel):
    """A human decision for a waiting run."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["edit", "hint", "skip", "approve", "reject", "contract"]
    subtask_id: str = Field(min_length=1, max_length=100)
    code: str = Field("", max_length=200_000)
    text: str = Field("", max_length=20_000)
    requirements: list[RequirementEdit] | None = Field(
        None,
        max_length=200,
        description="kind 'contract': the deliverable's requirements as the user left them "
        "(subtask_id 'contract'); unchanged ones keep their id, new or reworded text is read again by the rules.",
    )


class DeleteVariablesRequest(BaseModel):
    """Undo a run in the kernel: delete variables it created (all of them when ``names`` is omitted)."""

    model_config = ConfigDict(extra="forbid")

    names: list[str] | None = Field(
        None,
        max_length=1000,
        description="Names among those the run created; "
        "default: every one. A variable changed since the run set it is kept.",
    )
