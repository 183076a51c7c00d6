"""Sequential solver: generate -> trial -> commit -> check -> repair, for one subtask.

Each attempt runs first in the trial sandbox (a fork of the kernel), so a
failing attempt never half-changes the user's state; only code that passed the
trial is committed to the live kernel. The search (``search.py``) reuses the
same pieces (``StepWork``) with a tree instead of a straight line.
"""

from __future__ import annotations

import asyncio
import difflib
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from . import codeinfo, repair
from ..contract.advice import coder_view
from .events import CodeProposed, Executed, Repaired, Replanned
from ..llm.client import LLMError, LLMNoAnswer
from .kernel_handle import summarize
from .planner import Planner, new_subtask
from ..kernel.errors import measured_in_degrees
from .probes import run_probe
from .prompts import StepContext, coder_messages
from .requested import fields_for, output_guard, step_outputs

if TYPE_CHECKING:
    from .run import Run

_CAUSE_RE = re.compile(r"^\s*(?:#\s*)?Cause\s*:\s*(.+)$", re.IGNORECASE | re.MULTILINE)  # a line or a comment
LIBRARY_WORDS = {
    "geopandas": "geopandas", "shapely": "shapely", "pyproj": "pyproj", "rasterio": "rasterio",
    "rioxarray": "rioxarray", "xarray": "xarray", "leafmap": "leafmap", "geemap": "geemap",
    "matplotlib": "matplotlib", "pystac": "pystac-client", "xarray-spatial": "xarray-spatial", "xrspatial": "xarray-spatial",
}
MAX_SEMANTIC_RETRIES = 2
FIRST_TEMPERATURE = 0.2  # a step's first answer: the model's most likely code
REPAIR_TEMPERATURE = 0.5  # a repair: some room to leave the failed code's path


@dataclass
class Attempt:
    code: str
    result: Any = None
    warnings: list[str] = field(default_factory=list)
    error: str | None = None
    ename: str = ""
    evalue: str = ""
    lineno: int | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and not self.warnings


@dataclass
class Outcome:
    kind: str  # "solved" | "needs_human" | "insert"
    code: str = ""
    result: Any = None
    warnings: list[str] = field(default_factory=list)
    error: str = ""
    attempts: int = 0
    name: str | None = None  # for "insert": the undefined name


def unified_diff(old: str, new: str) -> str:
    return "".join(
        difflib.unified_diff(old.splitlines(True), new.splitlines(True), "previous attempt", "this attempt")
    )


def named_libraries(text: str) -> list[str]:
    lowered = text.lower()
    return sorted({lib for word, lib in LIBRARY_WORDS.items() if word in lowered})


class StepWork:
    """The operations on one subtask that both the loop and the search use."""

    def __init__(self, run: "Run", index: int):
        self.run = run
        self.index = index
        self.subtask = run.subtasks[index]

    def context(self, **overrides: Any) -> StepContext:
        run = self.run
        ctx = StepContext(
            request=run.request,
            data_overview=run.data_overview,
            plan=[s.description for s in run.subtasks],
            step_index=self.index,
            accepted_code=[code for _, code in run.accepted],
            human_fixes=list(run.human_fixes),
            hints=list(run.hints.get(self.subtask.id, [])),
            contract=coder_view(run.contract) if run.contract else "",
            crs_advice=run.crs_advice.for_step(self.subtask.description),
        )
        for key, value in overrides.items():
            setattr(ctx, key, value)
        return ctx

    async def api_docs(self, failure: str | None) -> str:
        """Retrieve docs when a library is named or after a failure (seed 000, 5.3)."""
        index = self.run.index
        if index is None or self.run.options.retrieval == "never":
            return ""
        libraries = named_libraries(self.subtask.description)
        if not libraries and failure is None and self.run.options.retrieval != "always":
            return ""
        query = self.subtask.description if failure is None else f"{self.subtask.description}\n{failure}"
        warnings: list[str] = []
        try:
            # Off the event loop: the first call loads chromadb and the embedding model.
            records = await asyncio.to_thread(index.retrieve, query, libraries=libraries or None, k=4,
                                              warnings=warnings)
        except Exception as exc:  # a broken index degrades answers, it must not stop the run
            self.run.warn("retrieval", f"API retrieval is degraded: {exc}; steps are written without API docs")
            return ""
        if warnings:
            self.run.warn("retrieval", f"API retrieval is degraded: {warnings[0]}")
        return "\n".join(_format_record(r) for r in records)

    async def generate(self, ctx: StepContext, *, temperature: float = FIRST_TEMPERATURE) -> tuple[str, str, Any]:
        """(code, diagnosis line, generation). Raises llm errors after the client's retries."""
        generation = await self.run.llm.complete(
            coder_messages(ctx), temperature=temperature, max_tokens=self.run.options.max_tokens, expect="code"
        )
        from ..llm.parsing import extract_code

        code = extract_code(generation.text) or ""
        cause = _CAUSE_RE.search(generation.text)
        return code, (cause.group(1).strip() if cause else ""), generation

    async def rewrite_step(self, error: str) -> bool:
        """Ask the planner for a new wording of this step; True when the plan changed."""
        run = self.run
        plan = [s.description for s in run.subtasks]
        try:
            step = await Planner(run.llm).rewrite(run.request, run.data_overview, plan, self.index, error)
        except LLMError:
            return False
        if not step:
            return False
        fresh = new_subtask(step)  # its artifacts (the files it names) come from the new wording
        self.subtask = run.subtasks[self.index] = self.subtask.model_copy(
            update={"description": step, "artifacts": fresh.artifacts})
        run.emit(Replanned(run_id=run.id, reason=f"step {self.index + 1} failed the same way three times; rewritten",
                           subtasks=run.subtasks))
        return True

    def output_guard(self, index: int | None = None) -> str:
        """Trial suffix that fails when subtask ``index`` (default: this one) left out a file it must write."""
        subtask = self.subtask if index is None else self.run.subtasks[index]
        return output_guard(step_outputs(subtask.artifacts, self.run.outputs))

    async def check(self, info: codeinfo.CodeInfo, stderr: str = "") -> list[str]:
        """Warnings about a step that ran: empty or all-null results, written files that
        are missing, broken, or lack the keys/columns the request names, measurements
        made in degrees (geopandas' warning on ``stderr``), and each requirement of the
        deliverable contract that a file this step wrote does not meet."""
        fields = fields_for(info.written_files, self.run.request)
        checks = await run_probe(self.run.kernel, "check_result", info.assigned, info.written_files, fields,
                                 self.run.empty_input_columns)
        warnings = list((checks or {}).get("warnings", []))
        degrees = measured_in_degrees(stderr)
        if degrees:
            named = self.run.crs_advice.for_purpose("area" if "area" in degrees else "distance")
            warnings.append(degrees + (f" The CRS advisor's choice for this data: {named}." if named else ""))
        deliverables = self.run.deliverables
        if deliverables is not None:  # the contract's requirements of the deliverables this step wrote
            written = deliverables.outputs_written_by(info.written_files)
            if written:
                pairs = await deliverables.check(written, subtask_id=self.subtask.id)
                warnings += deliverables.failures(pairs, advice=self.run.crs_advice.for_purpose)
        return warnings

    async def evaluate(self, code: str, attempt_no: int, node_id: str | None = None) -> Attempt:
        """Trial-run, then commit to the live kernel; returns what happened."""
        info = codeinfo.analyse(code)
        attempt = Attempt(code=code)
        if not info.ok:
            attempt.error, attempt.ename = info.problem, info.problem_kind
            self.run.emit(Executed(run_id=self.run.id, subtask_id=self.subtask.id, attempt=attempt_no, code=code, trial=True, node_id=node_id,
                                   result=summarize(_NotRunResult(info.problem, info.problem_kind))))
            return attempt
        if self.run.options.use_sandbox:
            trial = await self.run.kernel.trial(code + self.output_guard(), timeout=self.run.options.trial_timeout)
            self.run.emit(Executed(run_id=self.run.id, subtask_id=self.subtask.id, attempt=attempt_no, code=code, trial=True, node_id=node_id, result=summarize(trial)))
            if trial.status != "ok":
                return record_failure(attempt, trial)
        if not await self.run.approve(self.subtask.id, code):
            attempt.error, attempt.ename = f"The user rejected this code: {self.run.last_rejection or 'no reason given'}", "Rejected"
            return attempt
        result = await self.run.commit(self.subtask.id, code)
        attempt.result = result
        if result.status != "ok":
            self.run.emit(Executed(run_id=self.run.id, subtask_id=self.subtask.id, attempt=attempt_no, code=code, node_id=node_id, result=summarize(result)))
            return record_failure(attempt, result)
        attempt.warnings = await self.check(info, result.stderr)
        self.run.emit(Executed(run_id=self.run.id, subtask_id=self.subtask.id, attempt=attempt_no, code=code, node_id=node_id, result=summarize(result, attempt.warnings)))
        return attempt


class _NotRunResult:
    """The result shown for code that was not run (it cannot be: see ``CodeInfo.problem``)."""

    def __init__(self, message: str, ename: str):
        self.status, self.stdout, self.stderr, self.outputs, self.duration_s = "error", "", "", [], 0.0
        self.error = type("E", (), {"message": message, "ename": ename})()


def record_failure(attempt: Attempt, result: Any) -> Attempt:
    """Copy a failed result's error (with its GIS hints) onto the attempt the repair reads."""
    error = getattr(result, "error", None)
    attempt.result = result
    if error is not None:
        hints = list(getattr(error, "hints", []) or [])
        attempt.error = error.message + ("\nHint: " + " ".join(hints) if hints else "")
        attempt.ename, attempt.evalue, attempt.lineno = error.ename, error.evalue, getattr(error, "lineno", None)
    else:
        attempt.error = f"execution {result.status}"
        attempt.ename = result.status
    return attempt


def _format_record(record: Any) -> str:
    name = getattr(record, "qualified_name", "")
    signature = getattr(record, "signature", "") or ""
    summary = getattr(record, "summary", "") or ""
    if getattr(record, "kind", "") == "recipe":
        return f"Recipe: {name}\n{getattr(record, 'text', '')[:800]}"
    return f"- {name}{signature}: {summary[:200]}"


class SequentialSolver:
    """The loop of issue 5: one candidate at a time, repaired by error class."""

    name = "loop"

    def __init__(self, run: "Run"):
        self.run = run

    async def solve(self, index: int) -> Outcome:
        run = self.run
        work = StepWork(run, index)
        subtask = work.subtask
        failed: Attempt | None = None
        repair_context = ""
        semantic_failures = 0
        pending_code: str | None = None  # a certain fix (add_import) skips the model
        diagnosis_text = ""
        repeats: dict[tuple, int] = {}  # error signature -> times seen in this step
        rewritten = False
        for attempt_no in range(1, run.options.max_attempts + 1):
            run.stats.attempts += 1
            if pending_code is not None:
                code, pending_code = pending_code, None
            else:
                ctx = work.context(
                    variables=await run.variable_summary(),
                    api_docs=await work.api_docs(failed.error if failed else None),
                    failed_code=failed.code if failed else None,
                    failure=failed.error if failed else None,
                    repair_context=repair_context,
                )
                run.progress(f"writing code for step {index + 1} (attempt {attempt_no})", subtask.id)
                try:
                    code, cause, _ = await work.generate(ctx, temperature=FIRST_TEMPERATURE if attempt_no == 1 else REPAIR_TEMPERATURE)
                except LLMNoAnswer as exc:
                    # A reply without Python is a failed attempt, not a failed run: the
                    # budget and the human hand-over still apply.
                    failed = Attempt(code=failed.code if failed else "", error=str(exc), ename="NoCode")
                    last_strategy, repair_context, diagnosis_text = "no_code", "", str(exc)
                    continue
                if failed is not None:
                    diagnosis_text = cause or diagnosis_text
            run.emit(CodeProposed(run_id=run.id, subtask_id=subtask.id, attempt=attempt_no, code=code))
            if failed is not None:
                run.emit(Repaired(run_id=run.id, subtask_id=subtask.id, attempt=attempt_no, strategy=last_strategy,
                                  diagnosis=diagnosis_text or failed.error or "", diff=unified_diff(failed.code, code)))
            attempt = await work.evaluate(code, attempt_no)
            if attempt.error is None and (not attempt.warnings or semantic_failures >= MAX_SEMANTIC_RETRIES):
                return Outcome("solved", code=code, result=attempt.result, warnings=attempt.warnings, attempts=attempt_no)
            if attempt.error is None:
                semantic_failures += 1
                attempt.error = "The code ran but the result looks wrong: " + "; ".join(attempt.warnings)
                last_strategy, repair_context, diagnosis_text = "semantic", "", attempt.error
                signature = repair.error_signature("Semantic", "; ".join(attempt.warnings), None)
                repeats[signature] = repeats.get(signature, 0) + 1
                if repeats[signature] >= 2:  # the same defect again (an unmet requirement): say so, with the real data
                    repair_context = repair.escalation_note(attempt.error, await run.variable_summary(), same="problem")
                    last_strategy = "escalate"
                failed = attempt
                continue
            signature = repair.error_signature(attempt.ename, attempt.evalue, attempt.lineno)
            repeats[signature] = repeats.get(signature, 0) + 1
            if repeats[signature] >= 3 and not rewritten:
                # Third time the same: the step's wording is the dead end; the planner rewrites it.
                rewritten = True
                if await work.rewrite_step(attempt.error or ""):
                    subtask = work.subtask
                    failed, repair_context, diagnosis_text, last_strategy = None, "", "", "rewrite"
                    repeats.clear()
                    continue
            diagnosis = repair.classify(code, attempt.ename, attempt.evalue, attempt.error, attempt.lineno, run.defined_names())
            last_strategy = diagnosis.strategy
            diagnosis_text = diagnosis.message
            if diagnosis.strategy == "add_import":
                pending_code = diagnosis.fixed_code
                diagnosis_text = f"added `{diagnosis.fixed_code.splitlines()[0]}`"
            elif diagnosis.strategy == "insert_subtask" and run.may_insert(subtask.id, diagnosis.name):
                return Outcome("insert", code=code, error=attempt.error, attempts=attempt_no, name=diagnosis.name)
            elif diagnosis.strategy == "insert_subtask":
                last_strategy = "analyse"
            repair_context = await repair.enrich(diagnosis, code, attempt.lineno, run.kernel)
            if repeats[signature] == 2:  # second time the same: say so, with the real data beside it
                repair_context = repair.escalation_note(attempt.error or "", await run.variable_summary()) + (
                    "\n" + repair_context if repair_context else "")
                last_strategy = "escalate"
            failed = attempt
        return Outcome("needs_human", code=failed.code if failed else "", error=failed.error or "" if failed else "",
                       attempts=run.options.max_attempts)
