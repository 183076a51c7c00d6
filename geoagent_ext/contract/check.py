"""Check a contract on the real files, in the kernel (its working directory, its libraries)."""

from __future__ import annotations

from ..agent.probes import run_probe
from .model import Contract, RequirementResult


def check_payload(contract: Contract, outputs: list[str] | None = None) -> list[dict]:
    """The in-kernel checker's input: each output with its checkable requirements."""
    payload = []
    for out in contract.outputs:
        if outputs is not None and out.path not in outputs:
            continue
        reqs = [{"id": r.id, "kind": r.kind, "params": r.params} for r in contract.for_output(out.path) if r.checkable]
        if reqs:
            payload.append({"path": out.path, "format": out.format, "requirements": reqs})
    return payload


async def check_contract(kernel, contract: Contract, outputs: list[str] | None = None) -> list[RequirementResult]:
    """Every checkable requirement (of ``outputs``, default all) checked on the file read back from disk.

    A checker that cannot answer (kernel busy, probe failed) fails every requirement it was
    asked about, saying so: an unchecked requirement is never a passed one."""
    payload = check_payload(contract, outputs)
    if not payload:
        return []
    answer = await run_probe(kernel, "check_contract", payload, timeout=180)
    if not isinstance(answer, list):
        return [RequirementResult(id=r["id"], passed=False, observed="the check could not run in the kernel")
                for out in payload for r in out["requirements"]]
    return [RequirementResult.model_validate(item) for item in answer]
