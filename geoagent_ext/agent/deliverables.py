"""The run's side of the deliverable contract: derive it from the request and the data found at
the start, check it in the kernel on the files read back from disk, and say what failed in
words a repair can act on. Every check is an event (``requirement_checked``)."""

from __future__ import annotations

import json
import posixpath
from collections.abc import Callable

from ..contract import Contract, Requirement, RequirementResult, check_payload, derive_contract, read_answer
from ..contract.advice import NO_GEOMETRY, no_geometry_line, repair_line
from .crs_advice import CrsAdvice
from .events import RequirementChecked
from .probes import run_probe
from .requested import requested_files

CHECK_TIMEOUT_S = 180
TRIAL_MARK = "@@GEOAGENT_CONTRACT@@"


async def input_facts(kernel, data_files: list[str], outputs: list[str]) -> dict[str, dict]:
    """Row counts and columns of the input files (the data files that are not outputs), read once
    per run: the contract's rules and the user's reworded requirements both use them."""
    inputs = [f for f in data_files if f not in outputs][:40]
    facts = await run_probe(kernel, "input_facts", inputs) if inputs else {}
    return facts if isinstance(facts, dict) else {}


class DeliverableChecks:
    """Checks one run's contract; ``emit`` publishes each result as an event."""

    def __init__(self, kernel, contract: Contract, emit: Callable, run_id: str):
        self.kernel, self.contract, self.emit, self.run_id = kernel, contract, emit, run_id
        self.last: dict[str, RequirementResult] = {}

    def outputs_written_by(self, written_files: list[str]) -> list[str]:
        """The contract's outputs among the files a step writes (matched by path or basename)."""
        wanted = {posixpath.normpath(o.path): o.path for o in self.contract.outputs}
        by_base = {posixpath.basename(o.path): o.path for o in self.contract.outputs}
        found = []
        for path in written_files:
            hit = wanted.get(posixpath.normpath(path)) or by_base.get(posixpath.basename(path))
            if hit and hit not in found:
                found.append(hit)
        return found

    async def check(
        self, outputs: list[str] | None = None, subtask_id: str | None = None
    ) -> list[tuple[Requirement, RequirementResult]]:
        payload = check_payload(self.contract, outputs)
        if not payload:
            return []
        answer = await run_probe(self.kernel, "check_contract", payload, timeout=CHECK_TIMEOUT_S)
        by_id = {r.id: r for r in self.contract.requirements}
        pairs = []
        for result in read_answer(payload, answer):
            req = by_id[result.id]
            self.last[req.id] = result
            pairs.append((req, result))
            self.emit(
                RequirementChecked(
                    run_id=self.run_id,
                    requirement_id=req.id,
                    output=req.output,
                    text=req.text,
                    passed=result.passed,
                    observed=result.observed,
                    subtask_id=subtask_id,
                )
            )
        return pairs

    @staticmethod
    def failures(
        pairs: list[tuple[Requirement, RequirementResult]], advice: Callable[[str], str] | None = None
    ) -> list[str]:
        """One repair line per failed requirement: the requirement, what was seen, how to meet it
        (and, for a CRS requirement, the CRS advisor's choice: ``advice(purpose)``)."""
        lines = []
        without_geometry: dict[str, list[str]] = {}
        for req, res in pairs:
            if res.passed:
                continue
            if res.observed == NO_GEOMETRY:
                without_geometry.setdefault(req.output, []).append(req.text)
                continue
            line = repair_line(req, res.observed)
            if advice is not None and req.kind == "crs_projected_metres":
                choice = advice("official") or advice("distance")
                line += f" Advised CRS: {choice}." if choice else ""
            elif advice is not None and req.kind == "measure_units":
                choice = advice("area" if req.params.get("measure") == "area" else "distance")
                line += f" Advised CRS to measure in: {choice}." if choice else ""
            lines.append(line)
        return [no_geometry_line(out, texts) for out, texts in without_geometry.items()] + lines

    def held_requirements(self, outputs: list[str]) -> list[str]:
        """The checkable requirements of ``outputs`` that held at their last check: what a step
        rewriting those files must not undo (a repair aimed at one unmet requirement may rewrite
        the whole file and break others that had held)."""
        return [
            r.id
            for r in self.contract.requirements
            if r.output in outputs and r.checkable and r.id in self.last and self.last[r.id].passed
        ]

    def broken_in_trial(self, stdout: str, held: list[str]) -> str:
        """What a trial (its code + a ``trial_suffix`` covering the outputs of the ``held``
        requirements) undoes of them, as the error a repair reads ('' when nothing)."""
        by_id = {r.id: r for r in self.contract.requirements if r.id in held}
        broken = [
            (by_id[r["id"]], r.get("observed", ""))
            for r in trial_results(stdout) or []
            if r.get("id") in by_id and not r.get("passed")
        ]
        if not broken:
            return ""
        files = sorted({req.output for req, _ in broken})
        named = ", ".join(f"`{p}`" for p in files)
        undone = "; ".join(f"`{req.output}`: {req.text} — seen: {observed}" for req, observed in broken)
        unmet = [
            f"{r.text}"
            for r in self.contract.requirements
            if r.output in files and r.id in self.last and not self.last[r.id].passed
        ]
        if not unmet:
            return (
                f"Not run in your kernel: this code rewrites {named}, which already meets every requirement, "
                f"and breaks it: {undone}. Leave that file as it is (do not write it again) and do only what "
                "this step adds."
            )
        return (
            f"Not run in your kernel: this code rewrites {named} and undoes what it already met: {undone}. "
            f"Keep what the file already does right and change only what it still lacks: {'; '.join(unmet)}."
        )

    def unmet(self) -> list[str]:
        by_id = {r.id: r for r in self.contract.requirements}
        return [
            f"{by_id[i].output}: {by_id[i].text} — seen: {r.observed}" for i, r in self.last.items() if not r.passed
        ]

    def not_verified(self) -> list[str]:
        return [f"{r.output}: {r.text}" for r in self.contract.requirements if not r.checkable]

    def all_hold(self) -> bool:
        """Every checkable requirement was checked and held at its last check."""
        checkable = self.contract.checkable()
        return bool(checkable) and all(r.id in self.last and self.last[r.id].passed for r in checkable)


async def check_delivered(
    kernel, request: str, outputs: list[str]
) -> tuple[DeliverableChecks, list[tuple[Requirement, RequirementResult]], CrsAdvice]:
    """The request's contract for ``outputs`` checked on the files as they are now, outside a run
    (the MCP check tool): derived as a run derives it, the other files the request names being its
    inputs (their facts and CRS advice), and checked by the same in-kernel checker."""
    inputs = [f for f in requested_files(request) if f not in outputs]
    facts = await input_facts(kernel, inputs, outputs)
    advice = await CrsAdvice.gather(kernel, list(facts), inputs)
    contract = derive_contract(request, outputs, facts, official_crs=advice.label_for("official"))
    checks = DeliverableChecks(kernel, contract, emit=lambda event: None, run_id="check")
    return checks, await checks.check(), advice


def trial_suffix(contract: Contract | None, outputs: list[str] | None = None) -> str:
    """Code appended to a trial: check the contract (of ``outputs``, default all) on the files
    the trial wrote (in its sandbox) and print the answer, so a search node's reward counts
    requirements met, and a step can be kept from breaking a deliverable that holds. Uses the
    helper installed in the kernel (``__geoagent__``); silent without it."""
    if contract is None:
        return ""
    payload = check_payload(contract, outputs)
    if not payload:
        return ""
    return (
        f"\ntry:\n    print({TRIAL_MARK!r} + __import__('json').dumps(__geoagent__.check_contract({payload!r})))\n"
        "except Exception:\n    pass\n"
    )


def trial_results(stdout: str) -> list[dict] | None:
    """What a trial's suffix found ([{id, passed, observed}]), or None when it printed no answer."""
    for line in reversed((stdout or "").splitlines()):
        if line.startswith(TRIAL_MARK):
            try:
                results = json.loads(line[len(TRIAL_MARK) :])
            except ValueError:
                return None
            return results if isinstance(results, list) else None
    return None


def requirements_met(stdout: str) -> tuple[list[str], list[str]]:
    """(ids met, ids not met) of the requirements a trial's suffix checked; both empty without an answer."""
    results = trial_results(stdout) or []
    met = [str(r.get("id")) for r in results if isinstance(r, dict) and r.get("passed")]
    return met, [str(r.get("id")) for r in results if isinstance(r, dict) and not r.get("passed")]


def met_share(stdout: str) -> float | None:
    """The share of requirements a trial's suffix found met, or None when it printed no answer."""
    results = trial_results(stdout)
    return sum(bool(r.get("passed")) for r in results) / len(results) if results else None
