"""What the REST API answers, as pydantic models: ``openapi.json`` documents them and the panel's
REST types are generated from it (``labextension/src/runs/rest.generated.ts``).

The handlers still write the dicts that ``agent.state.fold``, ``RunManager`` and ``llm.choices``
build; tests/server/test_rest_bodies.py validates real answers against these models (no key
missing, none extra), so the documentation cannot drift from what is sent.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, with_config
from typing_extensions import NotRequired, TypedDict

from ..agent.events import Event, RunStats
from ..contract import Contract


class _Answer(BaseModel):
    # Every key is always sent (no field has a default, so the schema requires each); no other keys are.
    model_config = ConfigDict(extra="forbid")


class SubtaskState(_Answer):
    """One subtask of the plan as the run left it: its last code and error."""

    id: str
    description: str
    status: str
    attempts: int
    code: str
    error: str
    by: Literal["agent", "human"] | None
    inserted_for: str | None


class WaitingFor(_Answer):
    """What a waiting run waits for: a stuck subtask, code to approve, or the contract to review."""

    kind: Literal["stuck", "approval", "contract"]
    subtask_id: str


class RequirementState(_Answer):
    """The latest check of one requirement; ``subtask_id`` None: the final check."""

    passed: bool
    observed: str
    subtask_id: str | None


class RunVariables(_Answer):
    """The run's effect on the kernel's variables, folded from its ``namespace_changed`` events."""

    created: dict[str, str]  # did not exist before the run: {name: fingerprint as the run left it}
    changed: list[str]  # the user's variables whose old values the run replaced
    deleted: list[str]  # the user's variables the run deleted


class RunStateWarning(_Answer):
    source: str
    message: str


class RunState(_Answer):
    """``GET /geoagent/runs/{run_id}``: a run folded from its events (``agent.state.fold``)."""

    run_id: str
    request: str
    model: str
    notebook: str | None
    kernel_id: str | None
    strategy: str
    status: str
    message: str
    started: str | None
    updated: str | None
    subtasks: list[SubtaskState]
    stats: RunStats | None
    waiting_for: WaitingFor | None
    last_seq: int
    contract: Contract | None
    requirements: dict[str, RequirementState]
    unmet: list[str]
    not_verified: list[str]
    crs_advice: list[str]
    variables: RunVariables
    warnings: list[RunStateWarning]
    model_waiting: int | None  # place in a serial model's line while the run waits


class RunList(_Answer):
    """``GET /geoagent/runs``: the newest first."""

    runs: list[RunState]


class RunEvents(_Answer):
    """``GET /geoagent/runs/{run_id}/events``: the run's events after ``after``, in order."""

    events: list[Event]


class SubtaskOutputs(_Answer):
    """``GET /geoagent/runs/{run_id}/outputs/{subtask_id}``: an accepted subtask's whole outputs
    (nbformat dicts; its events carry them cut to their limits)."""

    run_id: str
    subtask_id: str
    outputs: list[dict[str, Any]]


class DeleteVariablesResult(_Answer):
    """``POST /geoagent/runs/{run_id}/variables/delete``."""

    run_id: str
    deleted: list[str]
    kept: dict[str, str]  # names kept, with why (changed since the run, gone already)
    changed: list[str]
    deleted_by_run: list[str]


class ModelChoice(_Answer):
    """One choice of the panel's model picker."""

    id: str
    label: str
    provider: str
    available: bool
    detail: str  # why it is unavailable, or where it runs
    default: bool


class ModelList(_Answer):
    """``GET /geoagent/models``: the configured default first."""

    default: str
    models: list[ModelChoice]


@with_config(ConfigDict(extra="forbid"))
class IndexState(TypedDict):
    """The knowledge index (``status.index_state``): a local index is ``ready``, ``missing`` or
    ``corrupt``; a shared one (a chroma server) ``remote``, ``empty`` or ``unreachable``. The
    other keys are there only where they say something."""

    state: Literal["ready", "missing", "corrupt", "remote", "empty", "unreachable"]
    location: str
    records: NotRequired[int]
    libraries: NotRequired[dict[str, str]]  # {library: version} the index was built from
    hint: NotRequired[str]  # what to run to fix it
    error: NotRequired[str]


@with_config(ConfigDict(extra="forbid"))
class KernelPlacement(TypedDict):
    """Where the runs' kernels live (``runs.placement``): this server, or a Kernel Gateway."""

    where: Literal["local", "gateway"]
    gateway: NotRequired[str]
    trials: str
    notes: list[str]


class Status(_Answer):
    """``GET /geoagent/status``: what the panel shows first."""

    version: str
    model: str
    provider: str
    inline_model: str  # the model of inline suggestions
    index: IndexState
    approval_mode: bool
    kernels: KernelPlacement
    mcp_url: str | None  # None without jupyter_server_mcp
    inline_loaded: bool  # the inline model has answered (a warm-up or a suggestion)


RESPONSE_BODIES: tuple[type[BaseModel], ...] = (
    Status,
    RunState,
    RunList,
    RunEvents,
    SubtaskOutputs,
    DeleteVariablesResult,
    ModelList,
)
