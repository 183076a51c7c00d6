"""Typed run events: the one stream the panel, chat, CLI, bench and run log read.

Every event carries ``run_id``, a per-run monotonic ``seq`` and a UTC timestamp;
``type`` is the discriminator so ``parse_event`` can rebuild any event from its
JSON (the run log is these events, one JSON object per line). Events describe
what happened; they never carry secrets (see ``redact``), and output sizes are
capped at the source (``output_limits``) so an event and a log stay small.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, GetCoreSchemaHandler, GetJsonSchemaHandler, TypeAdapter
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import core_schema

from ..contract.model import Contract


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


class SubtaskSpec(BaseModel):
    """A plan step: what to do, never how (parameters are bound after looking at data)."""

    id: str
    description: str
    artifacts: list[str] = Field(default_factory=list)
    inserted_for: str | None = None  # set when a repair inserted this step to define a name
    # The advisor's CRS for what the step does ("areas in EPSG:3035 (ETRS89-extended / LAEA
    # Europe)"), shown beside it before its code runs; '' when it measures and reprojects nothing.
    crs_advice: str = ""


class ExecutionSummary(BaseModel):
    """The part of a kernel ExecutionResult that faces need (outputs as nbformat dicts)."""

    status: str
    stdout: str = ""
    stderr: str = ""
    outputs: list[dict[str, Any]] = Field(default_factory=list)
    error: str | None = None  # shortened, ANSI-free message
    ename: str | None = None
    duration_s: float = 0.0
    warnings: list[str] = Field(default_factory=list)  # semantic checks (empty result, all-null column, missing file)
    # Some text was cut to the event's limits (``output_limits``, a marker where): a solved step's
    # full outputs are GET /geoagent/runs/<run_id>/outputs/<subtask_id> (what its notebook cell gets).
    truncated: bool = False


class RunStats(BaseModel):
    subtasks: int = 0
    solved: int = 0
    attempts: int = 0
    llm_calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    llm_seconds: float = 0.0
    seconds: float = 0.0


class _Event(BaseModel):
    run_id: str
    seq: int = 0
    ts: str = Field(default_factory=_now)


class RunStarted(_Event):
    type: Literal["run_started"] = "run_started"
    request: str
    model: str
    notebook: str | None = None
    kernel_id: str | None = None
    strategy: str = "loop"
    approval_mode: bool = False


class Progress(_Event):
    """Free-form progress for slow phases (local model thinking, profiling data)."""

    type: Literal["progress"] = "progress"
    message: str
    subtask_id: str | None = None


class RunWarning(_Event):
    """Something degraded the run without stopping it (e.g. the API docs index is unreachable)."""

    type: Literal["warning"] = "warning"
    source: Literal["retrieval"]
    message: str


class ModelWaiting(_Event):
    """The run waits for a model that serves one call at a time (``llm.queue``): ``place`` 1 is
    next in line; 0 says the wait is over. Sent only when a call had to wait."""

    type: Literal["model_waiting"] = "model_waiting"
    place: int = Field(ge=0)


class Planned(_Event):
    type: Literal["planned"] = "planned"
    subtasks: list[SubtaskSpec]
    libraries: list[str] = Field(default_factory=list)


class Replanned(_Event):
    type: Literal["replanned"] = "replanned"
    reason: str
    subtasks: list[SubtaskSpec]  # the whole plan after the change


class ContractStated(_Event):
    """What the deliverable must satisfy, derived from the request before planning."""

    type: Literal["contract_stated"] = "contract_stated"
    contract: Contract
    by: Literal["request", "user"] = "request"  # "user": as the user left it after review
    awaiting_review: bool = False  # approval mode: the run waits for the user to confirm or edit it
    dropped: list[str] = Field(default_factory=list)  # the model's proposals the rules did not keep, with why


class CrsAdvised(_Event):
    """The CRS advisor's picks for the run's layers, one line each (what the planner and coder read)."""

    type: Literal["crs_advised"] = "crs_advised"
    lines: list[str]


class RequirementChecked(_Event):
    """One requirement checked on the file read back from disk (after a step, or at the end)."""

    type: Literal["requirement_checked"] = "requirement_checked"
    requirement_id: str
    output: str
    text: str
    passed: bool
    observed: str = ""
    subtask_id: str | None = None  # None: the final check


class Declined(_Event):
    type: Literal["declined"] = "declined"
    reason: str


class SubtaskStarted(_Event):
    type: Literal["subtask_started"] = "subtask_started"
    subtask_id: str
    index: int
    description: str


class CodeProposed(_Event):
    type: Literal["code_proposed"] = "code_proposed"
    subtask_id: str
    attempt: int
    code: str
    node_id: str | None = None
    parent_id: str | None = None


class Executed(_Event):
    type: Literal["executed"] = "executed"
    subtask_id: str
    attempt: int
    code: str
    result: ExecutionSummary
    trial: bool = False  # True when run in the sandbox, not the live kernel
    node_id: str | None = None


def _strategy_names() -> list[str]:
    from . import fixes  # at first use: the rules (and the kernel probes some use) load only when needed

    return fixes.strategy_names()


class _Registered:
    """A strategy is one of the repair registry's names (``fixes.strategy_names``): checked when an
    event is made or read, and listed as the JSON schema's ``enum`` (the panel's types are a union
    of them), so a rule's module brings its strategy to the events by itself."""

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> core_schema.CoreSchema:
        return core_schema.no_info_after_validator_function(self._known, handler(source))

    def __get_pydantic_json_schema__(
        self, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        return {"enum": _strategy_names(), "type": "string"}

    @staticmethod
    def _known(name: str) -> str:
        if name not in _strategy_names():
            raise ValueError(f"{name!r} is no repair strategy (fixes.strategy_names())")
        return name


RepairStrategy = Annotated[str, _Registered()]


class Repaired(_Event):
    type: Literal["repaired"] = "repaired"
    subtask_id: str
    attempt: int
    strategy: RepairStrategy
    diagnosis: str
    diff: str = ""  # unified diff between the failed attempt and the next one


class SubtaskInserted(_Event):
    type: Literal["subtask_inserted"] = "subtask_inserted"
    subtask: SubtaskSpec
    before: str
    reason: str


class ApprovalRequested(_Event):
    type: Literal["approval_requested"] = "approval_requested"
    subtask_id: str
    code: str


class ApprovalGiven(_Event):
    type: Literal["approval_given"] = "approval_given"
    subtask_id: str
    approved: bool
    feedback: str = ""


class Solved(_Event):
    type: Literal["solved"] = "solved"
    subtask_id: str
    code: str
    attempts: int
    result: ExecutionSummary
    by: Literal["agent", "human"] = "agent"


class NamespaceChanged(_Event):
    """What one commit to the live kernel did to the user's variables (modules left out), so a
    run can be undone: names it created, changed (their old values are gone) or deleted, and
    the fingerprints of the created and changed ones right after (a cleanup deletes only a
    variable still as the run left it)."""

    type: Literal["namespace_changed"] = "namespace_changed"
    subtask_id: str
    created: list[str] = Field(default_factory=list)
    changed: list[str] = Field(default_factory=list)
    deleted: list[str] = Field(default_factory=list)
    fingerprints: dict[str, str] = Field(default_factory=dict)


class NeedsHuman(_Event):
    type: Literal["needs_human"] = "needs_human"
    subtask_id: str
    code: str
    error: str
    attempts: int
    # What the deliverable still lacks when the step is handed over: each unmet requirement
    # checked on the files as they are then ("<output>: <requirement> — seen: <observed>").
    unmet: list[str] = Field(default_factory=list)


class HumanEditApplied(_Event):
    type: Literal["human_edit_applied"] = "human_edit_applied"
    subtask_id: str
    code: str
    result: ExecutionSummary
    accepted: bool


class HintGiven(_Event):
    type: Literal["hint_given"] = "hint_given"
    subtask_id: str
    hint: str


class Skipped(_Event):
    type: Literal["skipped"] = "skipped"
    subtask_id: str
    reason: str = ""


class SearchNode(_Event):
    """One node of the MCTS tree (emitted on creation and on every update)."""

    type: Literal["search_node"] = "search_node"
    subtask_id: str
    node_id: str
    parent_id: str | None
    code: str
    visits: int = 0
    q: float = 0.0
    prior: float = 0.0
    reward: float | None = None
    status: Literal["new", "running", "ok", "failed", "chosen", "pruned"] = "new"
    error: str | None = None
    met: list[str] = Field(default_factory=list)  # ids of the requirements its trial found met (its reward counts them)
    unmet: list[str] = Field(default_factory=list)  # ids of those its trial checked and found not met


class SearchStarted(_Event):
    """The loop stalled on a step (the same error or unmet requirement twice) and the tree search
    takes the step over, within its budget (strategy ``auto``)."""

    type: Literal["search_started"] = "search_started"
    subtask_id: str
    reason: str
    max_nodes: int
    max_llm_calls: int
    max_seconds: float


class Finished(_Event):
    type: Literal["finished"] = "finished"
    status: Literal["succeeded", "partial", "failed", "cancelled", "declined", "interrupted"]
    message: str = ""
    stats: RunStats = Field(default_factory=RunStats)
    unmet: list[str] = Field(default_factory=list)  # "requirement — observed" for each that failed at the end
    not_verified: list[str] = Field(default_factory=list)  # requirements no code can check


Event = Annotated[
    RunStarted
    | Progress
    | RunWarning
    | ModelWaiting
    | CrsAdvised
    | ContractStated
    | Planned
    | Replanned
    | RequirementChecked
    | Declined
    | SubtaskStarted
    | CodeProposed
    | Executed
    | Repaired
    | SubtaskInserted
    | ApprovalRequested
    | ApprovalGiven
    | Solved
    | NamespaceChanged
    | NeedsHuman
    | HumanEditApplied
    | HintGiven
    | Skipped
    | SearchNode
    | SearchStarted
    | Finished,
    Field(discriminator="type"),
]

_EVENT_ADAPTER: TypeAdapter[Event] = TypeAdapter(Event)

TERMINAL_TYPES = {"finished"}


def parse_event(data: dict[str, Any] | str) -> Event:
    """Rebuild a typed event from a dict or a JSON line (raises pydantic.ValidationError)."""
    if isinstance(data, str):
        return _EVENT_ADAPTER.validate_json(data)
    return _EVENT_ADAPTER.validate_python(data)
