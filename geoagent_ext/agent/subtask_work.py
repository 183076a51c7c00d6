"""The work on one subtask that both solvers share, and the part of the run they may use.

The loop (``loop.py``) and the search (``search.py``) solve one subtask per call: they
write code (``SubtaskWork.generate``), trial and commit it (``evaluate``), check what it
did (``check``, the after-step check) and answer an ``Outcome``. They see their run only
as a ``SolverRun``: the state the coder prompt is built from, and the few calls that reach
the event stream, the user or the live kernel. ``Run`` provides it and imports the
solvers; the solvers never import ``run.py``, so there is no circle.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from ..contract.advice import coder_view, mended_values
from ..contract.mend import mend_code
from ..contract.model import Requirement
from ..contract.rules import SPATIAL
from ..kernel.results import ExecutionError
from ..llm.client import LLMError
from . import codeinfo, fixes, repair
from .deliverables import trial_suffix
from .events import Executed, Replanned
from .fixes.drop_keyword import refused_keyword
from .gis_hints import crs_mismatch, error_hints, measured_in_degrees
from .kernel_handle import summarize
from .plan_check import written_later
from .planner import Planner, new_subtask
from .probes import run_probe
from .prompts import SubtaskContext, coder_messages
from .requested import contract_subtask_output, fields_for, output_guard, subtask_outputs

if TYPE_CHECKING:
    from ..contract import Contract
    from ..llm.client import LLMClient
    from ..rag import KnowledgeIndex
    from .crs_advice import CrsAdvice
    from .deliverables import DeliverableChecks
    from .events import Event, RunStats, SubtaskSpec
    from .kernel_handle import KernelHandle

_CAUSE_RE = re.compile(r"^\s*(?:#\s*)?Cause\s*:\s*(.+)$", re.IGNORECASE | re.MULTILINE)  # a line or a comment
# The repair's "# Cause: ..." comment: read into the diagnosis, never part of the code a step keeps
_CAUSE_COMMENT = re.compile(r"^[ \t]*#[ \t]*Cause[ \t]*:.*(?:\n|$)", re.IGNORECASE | re.MULTILINE)
LIBRARY_WORDS = {
    "geopandas": "geopandas",
    "shapely": "shapely",
    "pyproj": "pyproj",
    "rasterio": "rasterio",
    "rioxarray": "rioxarray",
    "xarray": "xarray",
    "leafmap": "leafmap",
    "geemap": "geemap",
    "matplotlib": "matplotlib",
    "pystac": "pystac-client",
    "xarray-spatial": "xarray-spatial",
    "xrspatial": "xarray-spatial",
}
MAX_SEMANTIC_RETRIES = 2
FIRST_TEMPERATURE = 0.2  # a subtask's first answer: the model's most likely code
REPAIR_TEMPERATURE = 0.5  # a repair: some room to leave the failed code's path


class SolverOptions(Protocol):
    """The run options a solver reads (``RunOptions`` has them); read-only, so narrower types fit."""

    @property
    def max_attempts(self) -> int: ...

    @property
    def use_sandbox(self) -> bool: ...

    @property
    def retrieval(self) -> str: ...  # "auto" | "always" | "never"

    @property
    def max_tokens(self) -> int: ...

    @property
    def trial_timeout(self) -> float: ...


@runtime_checkable
class SolverRun(Protocol):
    """What a solver may read and call of the run it works for, and nothing more (``Run`` provides it)."""

    id: str
    request: str
    data_overview: str
    subtasks: list[SubtaskSpec]  # a rewritten subtask is replaced in place
    accepted: list[tuple[str, str]]  # (subtask_id, code) committed to the kernel
    human_fixes: list[str]
    hints: dict[str, list[str]]  # subtask_id -> the user's hints
    outputs: list[str]  # files the request names that did not exist at the start
    known_empty_columns: list[str]
    contract: Contract | None
    crs_advice: CrsAdvice
    deliverables: DeliverableChecks | None
    knowledge_index: KnowledgeIndex | None

    @property
    def options(self) -> SolverOptions: ...  # read, never replaced by a solver

    stats: RunStats  # a solver counts its attempts
    last_rejection: str  # the user's reason when ``approve`` answered False
    llm: LLMClient
    kernel: KernelHandle

    def emit(self, event: Event) -> Event: ...

    def progress(self, message: str, subtask_id: str | None = None) -> None: ...

    def warn(self, source: str, message: str) -> None: ...

    async def approve(self, subtask_id: str, code: str) -> bool: ...

    async def commit(self, subtask_id: str, code: str) -> Any: ...

    async def variable_summary(self) -> str: ...

    def defined_names(self) -> set[str]: ...

    def may_insert(self, subtask_id: str, name: str | None) -> bool: ...


BREAKS_DELIVERABLE = "BreaksDeliverable"  # the ename of an attempt stopped after its trial (``evaluate``)
RESULT_CHECK = "ResultCheck"  # the ename of a committed attempt whose after-step check failed (the search's)


@dataclass
class Attempt:
    code: str
    result: Any = None
    warnings: list[str] = field(default_factory=list)
    error: str | None = None
    ename: str = ""
    evalue: str = ""
    lineno: int | None = None
    committed: bool = False  # ran in the live kernel (not only in a trial)
    tripped: dict | None = None  # what the trial guard that failed it saw (``fixes.tripped_guard``)

    @property
    def ok(self) -> bool:
        return self.error is None and not self.warnings


@dataclass
class Outcome:
    kind: str  # "solved" | "needs_human" | "insert" | "stalled" (the loop's, when asked to stop there)
    code: str = ""
    result: Any = None
    warnings: list[str] = field(default_factory=list)
    error: str = ""
    attempts: int = 0
    name: str | None = None  # for "insert": the undefined name


def named_libraries(text: str) -> list[str]:
    lowered = text.lower()
    return sorted({lib for word, lib in LIBRARY_WORDS.items() if word in lowered})


RASTER_LIBRARIES = frozenset({"rasterio", "rioxarray", "xarray", "xarray-spatial"})
# A raster in the data overview (a file profiled "raster: …", a rasterio or xarray object in the
# kernel) or in the request's words.
_RASTER_WORDS = re.compile(r"\braster|rasterio|xarray|DataArray", re.IGNORECASE)


def docs_libraries(step: str, request: str, overview: str) -> list[str] | None:
    """The libraries a step's API docs come from: those the step names; else, when neither the
    data nor the request has a raster, every library but the raster ones (a repair's query holds
    the error, and "dst.write(...): arr must be an array" brings rasterio's docs to a vector task
    whose coder reached for rasterio once); else all of them (None)."""
    named = named_libraries(step)
    if named:
        return named
    if _RASTER_WORDS.search(request) or _RASTER_WORDS.search(overview):
        return None
    return sorted(set(LIBRARY_WORDS.values()) - RASTER_LIBRARIES)


class SubtaskWork:
    """The operations on one subtask that both the loop and the search use."""

    def __init__(self, run: SolverRun, index: int):
        self.run = run
        self.index = index
        self.subtask = run.subtasks[index]
        self.docs_seen = ""  # every doc text this subtask's coder was shown (``repair.copied_from_example``)
        self.refused: set[tuple[str, str]] = set()  # (function, keyword) a call refused in this subtask
        # The contract's failed requirements of the files this subtask's last checked attempt wrote.
        self.failed_requirements: list[Requirement] = []
        self.mended_ids: set[str] = set()  # requirements a mend was appended for in this subtask

    def context(self, **overrides: Any) -> SubtaskContext:
        run = self.run
        ctx = SubtaskContext(
            request=run.request,
            data_overview=run.data_overview,
            plan=[s.description for s in run.subtasks],
            subtask_index=self.index,
            accepted_code=[code for _, code in run.accepted],
            human_fixes=list(run.human_fixes),
            hints=list(run.hints.get(self.subtask.id, [])),
            contract=coder_view(run.contract) if run.contract else "",
            crs_advice=run.crs_advice.for_subtask(self.subtask.description),
        )
        for key, value in overrides.items():
            setattr(ctx, key, value)
        return ctx

    async def api_docs(self, failure: str | None) -> str:
        """Retrieve docs when a library is named or after a failure (the docs a repair needs are
        those of the call that failed, which the step's words may not name)."""
        knowledge_index = self.run.knowledge_index
        if knowledge_index is None or self.run.options.retrieval == "never":
            return ""
        if not named_libraries(self.subtask.description) and failure is None and self.run.options.retrieval != "always":
            return ""
        libraries = docs_libraries(self.subtask.description, self.run.request, self.run.data_overview)
        query = self.subtask.description if failure is None else f"{self.subtask.description}\n{failure}"
        warnings: list[str] = []
        try:
            # Off the event loop: the first call loads chromadb and the embedding model.
            records = await asyncio.to_thread(
                knowledge_index.retrieve, query, libraries=libraries, k=4, warnings=warnings
            )
        except Exception as exc:  # a broken index degrades answers, it must not stop the run
            self.run.warn("retrieval", f"API retrieval is degraded: {exc}; steps are written without API docs")
            return ""
        if warnings:
            self.run.warn("retrieval", f"API retrieval is degraded: {warnings[0]}")
        docs = "\n".join(_format_record(r) for r in records)
        self.docs_seen += docs + "\n"
        return docs

    def classify(self, attempt: Attempt) -> repair.Diagnosis:
        """The repair strategy for a failed attempt, with what this subtask's coder was shown and
        the keywords its calls already refused."""
        mended = self.mended(attempt.code) if attempt.ename == RESULT_CHECK else None
        if mended:  # the search's node whose written file failed the contract
            return repair.Diagnosis("mend", attempt.error or "", name="the contract", fixed_code=mended)
        diagnosis = repair.classify(
            attempt.code,
            attempt.ename,
            attempt.evalue,
            attempt.error or "",
            attempt.lineno,
            self.run.defined_names(),
            examples=self.docs_seen,
            own_words=f"{self.run.request}\n{self.subtask.description}",
            refused_before=self.refused,
            tripped=attempt.tripped,
            subtask=self.subtask.description,
            mended=mended_values(self.run.contract) if attempt.ename == "KeyError" else set(),
        )
        refused = refused_keyword(attempt.ename, attempt.evalue)
        if refused:
            self.refused.add(refused)
        return diagnosis

    async def diagnose(self, attempt: Attempt) -> repair.Diagnosis:
        """``classify``, then the certain fixes only the live kernel can tell (where a name the code
        imported from the wrong module really is)."""
        diagnosis = self.classify(attempt)
        moved = await fixes.diagnose_live(diagnosis, attempt.code, attempt.lineno, self.run.kernel)
        return moved or diagnosis

    async def generate(self, ctx: SubtaskContext, *, temperature: float = FIRST_TEMPERATURE) -> tuple[str, str, Any]:
        """(code, diagnosis line, generation). Raises llm errors after the client's retries."""
        generation = await self.run.llm.complete(
            coder_messages(ctx), temperature=temperature, max_tokens=self.run.options.max_tokens, expect="code"
        )
        code = code_of(generation.text, self.run.accepted)
        cause = _CAUSE_RE.search(generation.text)
        return code, (cause.group(1).strip() if cause else ""), generation

    async def rewrite(self, error: str) -> bool:
        """Ask the planner for a new wording of this subtask; True when the plan changed."""
        changed = await reword_subtask(
            self.run, self.index, error, f"step {self.index + 1} failed the same way three times; rewritten"
        )
        if changed:
            self.subtask = self.run.subtasks[self.index]
        return changed

    def output_guard(self, index: int | None = None) -> str:
        """Trial suffix that fails when subtask ``index`` (default: this one) left out a file it must write."""
        subtask = self.subtask if index is None else self.run.subtasks[index]
        return output_guard(subtask_outputs(subtask.artifacts, self.run.outputs))

    async def check(self, info: codeinfo.CodeInfo, stderr: str = "") -> list[str]:
        """The after-step check. Warnings about a subtask's code that ran: empty or all-null
        results, written files that are missing, broken, or lack the keys/columns the request
        names, measurements made in degrees and joins of layers in different CRSs (geopandas'
        warnings on ``stderr``), and each
        requirement of the deliverable contract that a file this subtask wrote does not meet (a step
        added to fix a file: that file, even when its code did not write it, so code that leaves the
        file as it was does not solve the step)."""
        fields = fields_for(info.written_files, self.run.request)
        checks = await run_probe(
            self.run.kernel, "check_result", info.assigned, info.written_files, fields, self.run.known_empty_columns
        )
        warnings = list((checks or {}).get("warnings", []))
        measured: list[bool] = []  # the written files' measure requirements, held or not
        contract_warnings: list[str] = []
        deliverables = self.run.deliverables
        if deliverables is not None:  # the contract's requirements of the deliverables this subtask wrote
            written = deliverables.outputs_written_by(info.written_files)
            fixing = self.fixing_output()
            if fixing is not None and fixing not in written:  # a step to fix a file is judged on it, written or not
                written.append(fixing)
            if written:
                pairs = await deliverables.check(written, subtask_id=self.subtask.id)
                descriptions = [s.description for s in self.run.subtasks]
                later = {p for p in written if written_later(descriptions, self.index, p)}
                own = [(r, res) for r, res in pairs if r.output not in later]
                self.failed_requirements = [r for r, res in own if not res.passed]
                measured = [res.passed for r, res in own if r.kind == "measure_units"]
                contract_warnings = deliverables.failures(own, advice=self.run.crs_advice.for_purpose)
                if any(not res.passed for r, res in pairs if r.output in later):
                    self.run.progress(
                        f"{', '.join(sorted(later))}: not final yet — a later step writes it, "
                        "and its requirements are checked again then",
                        self.subtask.id,
                    )
        degrees = measured_in_degrees(stderr)
        if degrees and not (measured and all(measured)):  # a measure the file shows right (a mend redid it) stands
            named = self.run.crs_advice.for_purpose("area" if "area" in degrees else "distance")
            warnings.append(degrees + (f" The CRS advisor's choice for this data: {named}." if named else ""))
        mismatch = crs_mismatch(stderr)
        if mismatch:
            warnings.append(mismatch)
        return warnings + contract_warnings

    def mended(self, code: str) -> str | None:
        """``code`` followed by the mechanical mends (``contract.mend``) of the requirements its
        files failed, or None when there are none or they are already in it."""
        mends = self._mends([r for r in self.failed_requirements if r.id not in self.mended_ids])
        mends = [m for m in mends if m not in code]
        return "\n\n".join([code.rstrip(), *mends]) if mends else None

    def fixing_output(self) -> str | None:
        """The output this step was added to fix (``requested.contract_subtask``), or None."""
        contract = self.run.contract
        if self.run.deliverables is None or contract is None:
            return None
        return contract_subtask_output(self.subtask.description, [o.path for o in contract.outputs])

    def closing_mend(self) -> str | None:
        """For the step the run adds to fix an output (``requested.contract_subtask``): the mend of
        that output's requirements that failed at the last check, run before any model call."""
        deliverables, contract = self.run.deliverables, self.run.contract
        path = self.fixing_output()
        if path is None or deliverables is None or contract is None:
            return None
        failed = [
            r for r in contract.for_output(path) if r.id in deliverables.last and not deliverables.last[r.id].passed
        ]
        return "\n\n".join(self._mends(failed)) or None

    def _mends(self, failed: list[Requirement]) -> list[str]:
        contract = self.run.contract
        if contract is None:
            return []
        by_output: dict[str, list[Requirement]] = {}
        for req in failed:
            by_output.setdefault(req.output, []).append(req)
        mends = [found for found in (mend_code(contract, path, reqs) for path, reqs in by_output.items()) if found]
        self.mended_ids.update(
            r.id for _, reqs in mends for r in reqs
        )  # a mend that did not meet it is not tried again
        return [code for code, _ in mends]

    def held_requirements_written(self, info: codeinfo.CodeInfo) -> list[str]:
        """The requirements that hold on the deliverables this code writes (at their last check):
        its trial checks them, and an attempt that undoes one is not committed."""
        deliverables = self.run.deliverables
        if deliverables is None:
            return []
        return deliverables.held_requirements(deliverables.outputs_written_by(info.written_files))

    async def trial(self, code: str, held: list[str], *, every_requirement: bool = False) -> tuple[Any, str]:
        """Run the code in a fork of the kernel with the output guard, the guards against lost data
        (the registry's rules, ``fixes.guards_for``) and the contract's checks:
        of the deliverables it rewrites whose requirements hold (``held``, their ids), or of every
        requirement (the search's reward for a program's last step). Returns the trial and what it
        undid of ``held`` ("" when nothing: then committing it cannot make a deliverable worse)."""
        contract = self.run.contract
        held_outputs = sorted({r.output for r in contract.requirements if r.id in held}) if contract else []
        suffix = trial_suffix(contract) if every_requirement else trial_suffix(contract, held_outputs)
        facts = fixes.TrialFacts(
            keeps_invalid=contract is not None and contract.keeps_invalid(),
            keeps_one=contract is not None and contract.keeps_one_of_duplicates(),
            kept_copies=contract.kept_copies() if contract else (),
            keeps_every_row=contract is not None and "rows_as_input" in contract.kinds(),
            caps_distance=contract is not None and "distance_cap" in {r.kind for r in contract.requirements},
            spatial_output=contract is not None and any(o.format in SPATIAL for o in contract.outputs),
            spatial_paths=tuple(o.path for o in contract.outputs if o.format in SPATIAL) if contract else (),
            output_columns=contract.listed_columns() if contract else (),
            mended_columns=tuple(sorted(mended_values(contract))),
        )
        guards = self.output_guard() + await fixes.guards_for(self.run.kernel, code, facts)
        trial = await self.run.kernel.trial(code + guards + suffix, timeout=self.run.options.trial_timeout)
        deliverables = self.run.deliverables
        broken = (
            deliverables.broken_in_trial(trial.stdout, held)
            if held and trial.status == "ok" and deliverables is not None
            else ""
        )
        return trial, broken

    async def evaluate(self, code: str, attempt_no: int, node_id: str | None = None) -> Attempt:
        """Trial-run, then commit to the live kernel; returns what happened."""
        info = codeinfo.analyse(code)
        attempt = Attempt(code=code)
        if not info.ok:
            attempt.error, attempt.ename = info.problem, info.problem_kind
            self.run.emit(
                Executed(
                    run_id=self.run.id,
                    subtask_id=self.subtask.id,
                    attempt=attempt_no,
                    code=code,
                    trial=True,
                    node_id=node_id,
                    result=summarize(_NotRunResult(info.problem or "", info.problem_kind)),
                )
            )
            return attempt
        if self.run.options.use_sandbox:
            trial, broken = await self.trial(code, self.held_requirements_written(info))
            self.run.emit(
                Executed(
                    run_id=self.run.id,
                    subtask_id=self.subtask.id,
                    attempt=attempt_no,
                    code=code,
                    trial=True,
                    node_id=node_id,
                    result=summarize(trial),
                )
            )
            if trial.status != "ok":
                return record_failure(attempt, trial)
            if broken:  # not committed: the deliverable on disk stays as it was
                return record_broken(attempt, trial, broken)
        if not await self.run.approve(self.subtask.id, code):
            attempt.error, attempt.ename = (
                f"The user rejected this code: {self.run.last_rejection or 'no reason given'}",
                "Rejected",
            )
            return attempt
        result = await self.run.commit(self.subtask.id, code)
        attempt.result, attempt.committed = result, True
        if result.status != "ok":
            self.run.emit(
                Executed(
                    run_id=self.run.id,
                    subtask_id=self.subtask.id,
                    attempt=attempt_no,
                    code=code,
                    node_id=node_id,
                    result=summarize(result),
                )
            )
            return record_failure(attempt, result)
        attempt.warnings = await self.check(info, result.stderr)
        self.run.emit(
            Executed(
                run_id=self.run.id,
                subtask_id=self.subtask.id,
                attempt=attempt_no,
                code=code,
                node_id=node_id,
                result=summarize(result, attempt.warnings),
            )
        )
        return attempt


class _NotRunResult:
    """The result shown for code that was not run (it cannot be: see ``CodeInfo.problem``)."""

    def __init__(self, message: str, ename: str):
        self.status, self.stdout, self.stderr, self.duration_s = "error", "", "", 0.0
        self.outputs: list[dict[str, Any]] = []
        self.error = type("E", (), {"message": message, "ename": ename})()


def code_of(answer: str, accepted: Sequence[tuple[str, str]] = ()) -> str:
    """The Python of a coder's answer ('' when none), with the slips that are never meant rewritten
    by the registry's rules (``fixes.before_run``); ``accepted``: the steps run before it, whose
    names (their imports) the code may use. A repair's "# Cause:" comment is left out: it tells why
    an earlier attempt failed (the diagnosis carries it), not what this code does, and kept in a
    committed cell it reaches the notebook and the context of later steps, which copy it."""
    from ..llm.parsing import extract_code

    bound_before = {n for _, done in accepted for n in codeinfo.bound_names(done)}
    code = extract_code(answer) or ""
    without_cause = _CAUSE_COMMENT.sub("", code).strip("\n")
    # an answer of nothing but comments stays as it was: it fails as "no code" and is shown so
    earlier = "\n".join(done for _, done in accepted)
    return fixes.before_run(without_cause if without_cause.strip() else code, bound_before, earlier)


def record_broken(attempt: Attempt, trial: Any, broken: str) -> Attempt:
    """An attempt that ran but would break a finished deliverable (``SubtaskWork.trial``): not
    committed, and repaired with what it broke as its error."""
    attempt.result, attempt.ename, attempt.error, attempt.evalue = trial, BREAKS_DELIVERABLE, broken, broken
    return attempt


def record_failure(attempt: Attempt, result: Any) -> Attempt:
    """Copy a failed result's error (with its GIS hints) onto the attempt the repair reads."""
    error = getattr(result, "error", None)
    attempt.result = result
    if error is not None:
        # A step not run (``_NotRunResult``) has a message and nothing for the GIS hints to read.
        hints = error_hints(error, getattr(result, "stderr", "") or "") if isinstance(error, ExecutionError) else []
        attempt.error = error.message + ("\nHint: " + " ".join(hints) if hints else "")
        attempt.ename, attempt.evalue, attempt.lineno = error.ename, error.evalue, getattr(error, "lineno", None)
        attempt.tripped = fixes.tripped_guard(getattr(result, "stdout", "") or "")
    else:
        attempt.error = f"execution {result.status}"
        attempt.ename = result.status
    return attempt


def _format_record(record: Any) -> str:
    name = getattr(record, "qualified_name", "")
    signature = getattr(record, "signature", "") or ""
    summary = getattr(record, "summary", "") or ""
    if getattr(record, "kind", "") == "recipe":
        # A small model copies a recipe's variables (`stations`) into a session that has none.
        return (
            f"Recipe: {name} (its variable names are the example's: write yours with this session's)\n"
            f"{getattr(record, 'text', '')[:800]}"
        )
    return f"- {name}{signature}: {summary[:200]}"


async def reword_subtask(
    run: SolverRun, index: int, error: str, reason: str, refine: Callable[[str], str] | None = None
) -> bool:
    """Ask the planner for a new wording of subtask ``index`` (what went or would go wrong:
    ``error``) and publish the changed plan with ``reason``; True when it changed. ``refine``
    mends the new wording where the caller knows what it must not say."""
    plan = [s.description for s in run.subtasks]
    try:
        description = await Planner(run.llm).rewrite(run.request, run.data_overview, plan, index, error)
    except LLMError:
        return False
    if refine is not None and description:
        description = refine(description)
    if not description or description in plan:  # a step's words again: no new wording
        return False
    fresh = new_subtask(description)  # its artifacts (the files it names) come from the new wording
    run.subtasks[index] = run.subtasks[index].model_copy(
        update={"description": description, "artifacts": fresh.artifacts}
    )
    run.emit(Replanned(run_id=run.id, reason=reason, subtasks=run.subtasks))
    return True
