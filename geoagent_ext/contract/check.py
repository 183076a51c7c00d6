"""What the in-kernel checker (``contract/checker.py`` and each kind's check, see ``contract/kinds``) is
asked, and what its answer means."""

from __future__ import annotations

from typing import Any

from .model import Contract, RequirementResult


def check_payload(contract: Contract, outputs: list[str] | None = None) -> list[dict]:
    """The checker's input: each output (of ``outputs``, default all) with its checkable requirements."""
    payload = []
    for out in contract.outputs:
        if outputs is not None and out.path not in outputs:
            continue
        reqs = [{"id": r.id, "kind": r.kind, "params": r.params} for r in contract.for_output(out.path) if r.checkable]
        if reqs:
            payload.append({"path": out.path, "format": out.format, "requirements": reqs})
    return payload


def read_answer(payload: list[dict], answer: Any) -> list[RequirementResult]:
    """The checker's answer as results; a checker that could not answer fails every requirement it
    was asked about, saying so: an unchecked requirement is never a passed one."""
    asked = [r["id"] for out in payload for r in out["requirements"]]
    if not isinstance(answer, list):
        return [RequirementResult(id=i, passed=False, observed="the check could not run in the kernel") for i in asked]
    results = {item.get("id"): RequirementResult.model_validate(item) for item in answer if isinstance(item, dict)}
    return [
        results.get(i) or RequirementResult(id=i, passed=False, observed="the checker gave no answer") for i in asked
    ]
