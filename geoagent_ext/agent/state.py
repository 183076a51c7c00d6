"""Fold a run's events into its current state (for lists, reopened panels, the chat).

The events are the truth; this is a pure function over them, so a live run and
a log read back after a server restart give the same picture. A log without a
``finished`` event whose run is not live anymore was cut off: "interrupted".
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .events import (
    ApprovalGiven,
    ApprovalRequested,
    CodeProposed,
    ContractStated,
    CrsAdvised,
    Declined,
    Event,
    Executed,
    Finished,
    HintGiven,
    ModelWaiting,
    NamespaceChanged,
    NeedsHuman,
    Planned,
    Replanned,
    RequirementChecked,
    RunStarted,
    RunWarning,
    Skipped,
    Solved,
    SubtaskInserted,
    SubtaskStarted,
)


def fold(events: Iterable[Event], live: bool = False) -> dict[str, Any]:
    state: dict[str, Any] = {
        "run_id": None,
        "request": "",
        "model": "",
        "notebook": None,
        "kernel_id": None,
        "strategy": "loop",
        "status": "running" if live else "interrupted",
        "message": "",
        "started": None,
        "updated": None,
        "subtasks": [],
        "stats": None,
        "waiting_for": None,
        "last_seq": 0,
        "contract": None,
        "requirements": {},
        "unmet": [],
        "not_verified": [],
        "crs_advice": [],
        "variables": {"created": {}, "changed": [], "deleted": []},
        "warnings": [],
        "model_waiting": None,  # place in a serial model's line while the run waits
    }
    subtasks: dict[str, dict[str, Any]] = {}

    def ensure(spec) -> dict[str, Any]:
        entry = subtasks.get(spec.id)
        if entry is None:
            entry = {
                "id": spec.id,
                "description": spec.description,
                "status": "pending",
                "attempts": 0,
                "code": "",
                "error": "",
                "by": None,
                "inserted_for": spec.inserted_for,
            }
            subtasks[spec.id] = entry
        return entry

    order: list[str] = []
    for event in events:
        state["run_id"] = event.run_id
        state["last_seq"] = event.seq
        state["updated"] = event.ts
        match event:  # class patterns, so each branch sees its event's own fields
            case RunStarted():
                state.update(
                    request=event.request,
                    model=event.model,
                    notebook=event.notebook,
                    kernel_id=event.kernel_id,
                    strategy=event.strategy,
                    started=event.ts,
                )
            case Planned() | Replanned():
                order = [s.id for s in event.subtasks]
                for spec in event.subtasks:
                    ensure(spec)
            case SubtaskInserted():
                ensure(event.subtask)
                order.insert(order.index(event.before) if event.before in order else len(order), event.subtask.id)
            case SubtaskStarted():
                entry = subtasks.get(event.subtask_id)
                if entry:
                    entry["status"] = "running"
                state["waiting_for"] = None
            case CodeProposed():
                entry = subtasks.get(event.subtask_id)
                if entry:
                    entry["attempts"] = max(entry["attempts"], event.attempt)
                    entry["code"] = event.code
            case Executed() if event.result.status != "ok":
                entry = subtasks.get(event.subtask_id)
                if entry:
                    entry["error"] = event.result.error or event.result.status
            case Solved():
                entry = subtasks.get(event.subtask_id)
                if entry:
                    entry.update(status="solved", code=event.code, error="", by=event.by)
                state["waiting_for"] = None
            case NeedsHuman():
                entry = subtasks.get(event.subtask_id)
                if entry:
                    entry.update(status="needs_human", code=event.code, error=event.error)
                state["waiting_for"] = {"kind": "stuck", "subtask_id": event.subtask_id}
            case ApprovalRequested():
                state["waiting_for"] = {"kind": "approval", "subtask_id": event.subtask_id}
                entry = subtasks.get(event.subtask_id)
                if entry:
                    entry["code"] = event.code
            case ApprovalGiven() | HintGiven():
                state["waiting_for"] = None
            case Skipped():
                entry = subtasks.get(event.subtask_id)
                if entry:
                    entry["status"] = "skipped"
                state["waiting_for"] = None
            case RunWarning():
                state["warnings"].append({"source": event.source, "message": event.message})
            case ModelWaiting():
                state["model_waiting"] = event.place or None
            case CrsAdvised():
                state["crs_advice"] = list(event.lines)
            case ContractStated():
                state["contract"] = event.contract.model_dump()
                state["waiting_for"] = {"kind": "contract", "subtask_id": "contract"} if event.awaiting_review else None
            case RequirementChecked():  # the latest check of each requirement
                state["requirements"][event.requirement_id] = {
                    "passed": event.passed,
                    "observed": event.observed,
                    "subtask_id": event.subtask_id,
                }
            case NamespaceChanged():
                add_namespace_change(state["variables"], event)
            case Declined():
                state["message"] = event.reason
            case Finished():
                state.update(
                    status=event.status,
                    message=event.message,
                    stats=event.stats.model_dump(),
                    waiting_for=None,
                    model_waiting=None,
                    unmet=list(event.unmet),
                    not_verified=list(event.not_verified),
                )
    state["subtasks"] = [subtasks[i] for i in order if i in subtasks]
    if state["waiting_for"] and state["status"] == "running":
        state["status"] = {"stuck": "needs_human", "contract": "awaiting_contract"}.get(
            state["waiting_for"]["kind"], "awaiting_approval"
        )
    return state


def add_namespace_change(variables: dict[str, Any], event: Any) -> None:
    """Fold one commit's ``namespace_changed`` into the run's: ``created`` {name: fingerprint}
    (did not exist before the run: a cleanup may delete them), ``changed`` and ``deleted``
    (the user's variables whose old values the run replaced or removed). labextension's
    runs/model.ts folds the same way."""
    created, changed, deleted = variables["created"], variables["changed"], variables["deleted"]
    for name in event.created:
        if name in deleted:  # the user's variable, deleted and then set again: its old value is gone
            deleted.remove(name)
            changed.append(name)
        elif name not in changed:
            created[name] = event.fingerprints.get(name, "")
    for name in event.changed:
        if name in created:
            created[name] = event.fingerprints.get(name, "")
        elif name not in changed:
            changed.append(name)
    for name in event.deleted:
        if created.pop(name, None) is None:
            if name in changed:
                changed.remove(name)
            if name not in deleted:
                deleted.append(name)
