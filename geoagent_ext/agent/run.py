"""One agent run: a state machine that turns a request into accepted code, as events.

``Run.start()`` launches the task; faces read ``run.bus`` (live + history) or the
JSONL log; humans act through ``submit()`` (edit / hint / skip / approve /
reject) and ``cancel()``. Everything a face needs to show is an event: there is
no second channel.
"""

from __future__ import annotations

import asyncio
import functools
import re
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from ..contract import Contract, RequirementEdit, apply_edits, derive_contract
from ..contract.proposed import accept_proposals, proposals_wanted
from ..contract.reading import MODEL_READING_GATES, accept_reading, reading_wanted
from ..llm.client import LLMError
from ..redact import redact, redact_obj
from . import codeinfo
from .bus import EventBus
from .crs_advice import CrsAdvice
from .deliverables import DeliverableChecks, input_facts
from .events import (
    ApprovalGiven,
    ApprovalRequested,
    ContractStated,
    CrsAdvised,
    Declined,
    Event,
    Finished,
    HintGiven,
    HumanEditApplied,
    ModelWaiting,
    NamespaceChanged,
    NeedsHuman,
    Planned,
    Progress,
    Replanned,
    RunStarted,
    RunStats,
    RunWarning,
    Skipped,
    Solved,
    SubtaskInserted,
    SubtaskSpec,
    SubtaskStarted,
)
from .kernel_handle import KernelHandle, KernelLost, format_variables, summarize
from .loop import SequentialSolver
from .plan_check import (
    assurance_steps,
    contract_conflicts,
    idle_steps,
    join_steps,
    loop_bodies,
    raster_tools_without_rasters,
    reversed_renames,
    reworded_join,
    uncovered_requirements,
    unshared_join_keys,
    without_join_key,
)
from .planner import Planner, new_subtask
from .probes import format_files, run_probe
from .repair import define_subtask_text
from .requested import contract_subtask, output_subtask, requested_files
from .runlog import RunLog
from .search import MctsOptions, MctsSolver
from .stall_search import StallSearchSolver
from .subtask_work import reword_subtask

MAX_INSERTS_PER_SUBTASK = 2
_ALL_NULL = re.compile(r"has all-null column\(s\): (.+)$")  # the after-step check's words (_70_data_probes)
MAX_INSERTS_PER_RUN = 6


@dataclass
class _ClosingSubtasks:
    """Which closing subtasks a run has added (each kind once)."""

    outputs_added: bool = False
    contract_added: bool = False
    checked_last: bool = False  # the contract was checked after the last subtask ran


class RunOptions(BaseModel):
    # loop: step by step with repairs; mcts: tree search for every step; auto: the loop, and the
    # search for a step where the loop stalls (at most ``search_steps`` steps per run).
    strategy: Literal["loop", "mcts", "auto"] = "loop"
    search_steps: int = Field(2, ge=0, le=50)
    max_attempts: int = 5
    approval_mode: bool = False
    use_sandbox: bool = True
    retrieval: Literal["auto", "always", "never"] = "auto"
    review: Literal["auto", "always", "never"] = "auto"
    max_tokens: int = 1024
    trial_timeout: float = 120
    execute_timeout: float = 300
    on_stuck: Literal["wait", "stop", "skip"] = "wait"  # "wait" for a human (panel/chat); CLI batch uses stop/skip
    mcts: MctsOptions = MctsOptions()
    contract: bool = True  # derive the deliverable contract, check it, and let it decide the status
    crs_advisor: bool = True  # advise the CRS for the data's extent (overview, contract, repairs)
    # The model proposes requirements beyond the rules' (contract.proposed); None: off (``proposals_wanted``).
    propose_requirements: bool | None = None
    # The model reads the request into a typed form (contract.reading); None: by the model (``reading_wanted``).
    read_request: bool | None = None

    @classmethod
    def from_settings(cls, settings, **overrides) -> RunOptions:
        """The options every face starts from: the server's/CLI's settings, then the face's own
        (an override of None keeps the setting)."""
        base = dict(
            max_attempts=settings.max_attempts,
            approval_mode=settings.approval_mode,
            execute_timeout=settings.execute_timeout,
            contract=settings.check_contract,
            crs_advisor=settings.crs_advisor,
            propose_requirements=settings.propose_requirements,
            read_request=settings.read_request,
        )
        return cls(**{**base, **{k: v for k, v in overrides.items() if v is not None}})


CONTRACT_REVIEW = "contract"  # the waiter's subtask id while the user reviews the contract


class HumanAction(BaseModel):
    kind: Literal["edit", "hint", "skip", "approve", "reject", "contract"]
    subtask_id: str
    code: str = ""
    text: str = ""
    requirements: list[RequirementEdit] | None = None  # kind "contract": the requirements as the user left them


@dataclass
class _Waiter:
    kind: str  # "stuck" | "approval"
    subtask_id: str
    future: asyncio.Future = field(default_factory=lambda: asyncio.get_event_loop().create_future())


class Run:
    """One run of a request; its solvers see it only as a ``SolverRun`` (``subtask_work.py``)."""

    def __init__(
        self,
        request: str,
        *,
        kernel: KernelHandle,
        llm,
        model_name: str,
        knowledge_index=None,
        options: RunOptions | None = None,
        log_dir: str | Path | None = None,
        notebook: str | None = None,
        kernel_id: str | None = None,
        run_id: str | None = None,
    ):
        if not request or not request.strip():
            raise ValueError("the request is empty: say what analysis you want")
        self.id = run_id or uuid.uuid4().hex[:12]
        self.request = request.strip()
        self.kernel = kernel
        self.llm = llm
        self.model_name = model_name
        self.knowledge_index = knowledge_index
        self.options = options or RunOptions()
        self.notebook = notebook
        self.kernel_id = kernel_id
        self.bus = EventBus()
        self.log = RunLog(Path(log_dir) / f"{self.id}.jsonl") if log_dir else None
        if self.log:
            self.bus.add_listener(self.log.append)
        self.subtasks: list[SubtaskSpec] = []
        self.accepted: list[tuple[str, str]] = []  # (subtask_id, code) committed to the kernel
        self._current: int | None = None  # position of the subtask being solved (for the lost-kernel message)
        self.results: dict[str, Any] = {}
        self.human_fixes: list[str] = []
        self.hints: dict[str, list[str]] = {}
        self.data_overview = ""
        self.outputs: list[str] = []  # files the request names that did not exist at the start
        self.data_files: list[str] = []  # data files found in the working directory at the start
        self.contract: Contract | None = None
        self.input_facts: dict[str, dict] = {}  # rows and columns of the input files, for the contract's rules
        self._dropped_proposals: list[str] = []  # the model's requirements the rules did not keep, with why
        self.crs_advice = CrsAdvice()
        self.deliverables: DeliverableChecks | None = None
        self.known_empty_columns: list[
            str
        ] = []  # null in every row of an input, or left so by an accepted step: no later step's fault
        self.stats = RunStats()
        self.last_rejection = ""
        self._seq = 0
        self._inserts: dict[str, list[str]] = {}
        self._inserted_names: set[str] = set()
        self._waiter: _Waiter | None = None
        self._task: asyncio.Task | None = None
        self._started = 0.0
        self._warned: set[str] = set()
        if hasattr(llm, "on_wait"):  # LLMClient: a serial model's line reports our place
            llm.on_wait = self._model_place

    # ----- events -------------------------------------------------------------------
    def emit(self, event: Event) -> Event:
        self._seq += 1
        event.seq = self._seq
        event.run_id = self.id
        event = self._with_crs_advice(event)
        # Safety net: nothing secret-looking may leave the process inside an event. Each string is
        # redacted as itself, before anything is serialised: a rule run over JSON text takes in an
        # escaped quote's backslash and leaves the event unparseable.
        clean = type(event).model_validate(redact_obj(event.model_dump(mode="json")))
        self.bus.publish(clean)
        return clean

    def _with_crs_advice(self, event: Event) -> Event:
        """Steps reach the faces with the advisor's CRS for what each does (``CrsAdvice.step_label``):
        every event that carries steps passes here, whoever planned, tidied or inserted them."""
        label = self.crs_advice.step_label
        if isinstance(event, (Planned, Replanned)):
            return event.model_copy(
                update={"subtasks": [s.model_copy(update={"crs_advice": label(s.description)}) for s in event.subtasks]}
            )
        if isinstance(event, SubtaskInserted):
            return event.model_copy(
                update={"subtask": event.subtask.model_copy(update={"crs_advice": label(event.subtask.description)})}
            )
        return event

    def progress(self, message: str, subtask_id: str | None = None) -> None:
        self.emit(Progress(run_id=self.id, message=message, subtask_id=subtask_id))

    def warn(self, source: str, message: str) -> None:
        """A ``warning`` event, once per source per run (every step would repeat it)."""
        if source not in self._warned:
            self._warned.add(source)
            self.emit(RunWarning(run_id=self.id, source=source, message=message))

    def _model_place(self, place: int) -> None:
        if not self.done:
            self.emit(ModelWaiting(run_id=self.id, place=place))

    # ----- lifecycle ----------------------------------------------------------------
    def start(self) -> asyncio.Task:
        if self._task is None:
            # Emitted before the task runs, so whoever started the run can show it at once.
            self._started = time.monotonic()
            self.emit(
                RunStarted(
                    run_id=self.id,
                    request=self.request,
                    model=self.model_name,
                    notebook=self.notebook,
                    kernel_id=self.kernel_id,
                    strategy=self.options.strategy,
                    approval_mode=self.options.approval_mode,
                )
            )
            self._task = asyncio.ensure_future(self._main())
        return self._task

    async def wait(self) -> Finished:
        await self.start()
        return self.bus.history[-1]  # type: ignore[return-value]

    def cancel(self) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()

    @property
    def done(self) -> bool:
        return self.bus.finished

    @property
    def waiting_for(self) -> dict[str, str] | None:
        return {"kind": self._waiter.kind, "subtask_id": self._waiter.subtask_id} if self._waiter else None

    def submit(self, action: HumanAction) -> None:
        """Deliver a human decision; raises ValueError when nothing waits for it."""
        waiter = self._waiter
        if waiter is None or waiter.future.done():
            raise ValueError("the run is not waiting for you right now")
        if waiter.subtask_id != action.subtask_id:
            raise ValueError(f"the run waits on subtask {waiter.subtask_id}, not {action.subtask_id}")
        expected = {
            "approval": {"approve", "reject"},
            "stuck": {"edit", "hint", "skip"},
            "contract": {"approve", "contract"},
        }[waiter.kind]
        if action.kind == "contract" and self.contract is not None:
            apply_edits(
                self.contract, action.requirements or [], self.input_facts
            )  # a bad edit is the caller's 400, not the run's end
        if action.kind not in expected:
            raise ValueError(f"the run waits for one of {sorted(expected)}, not {action.kind!r}")
        waiter.future.set_result(action)

    async def _wait_human(self, kind: str, subtask_id: str) -> HumanAction:
        """The human's action; KernelLost as soon as the kernel is lost meanwhile (no answer
        could still help, and the run would hold the kernel until one came)."""
        self._waiter = _Waiter(kind, subtask_id)
        watch = getattr(self.kernel, "watch", None)  # test doubles may have none
        watcher = asyncio.ensure_future(watch()) if watch is not None else None
        try:
            if watcher is not None:
                await asyncio.wait([self._waiter.future, watcher], return_when=asyncio.FIRST_COMPLETED)
                if watcher.done():
                    watcher.result()  # raises KernelLost
            return await self._waiter.future
        finally:
            self._waiter = None
            if watcher is not None:
                watcher.cancel()

    async def approve(self, subtask_id: str, code: str) -> bool:
        """In approval mode, wait for the user before code touches the live kernel."""
        if not self.options.approval_mode:
            return True
        self.emit(ApprovalRequested(run_id=self.id, subtask_id=subtask_id, code=code))
        action = await self._wait_human("approval", subtask_id)
        approved = action.kind == "approve"
        self.last_rejection = "" if approved else action.text
        self.emit(ApprovalGiven(run_id=self.id, subtask_id=subtask_id, approved=approved, feedback=action.text))
        return approved

    async def commit(self, subtask_id: str, code: str) -> Any:
        """Run code in the live kernel (the only way a run changes the user's state) and say
        which variables it created, changed or deleted (``namespace_changed``: undoing the run
        needs it). A kernel without fingerprints (a test double) just runs the code."""
        before = await self._fingerprints()
        result = await self.kernel.execute(code, timeout=self.options.execute_timeout)
        after = await self._fingerprints() if before is not None else None
        if before is not None and after is not None:
            created = sorted(set(after) - set(before))
            changed = sorted(n for n in after if n in before and after[n] != before[n])
            deleted = sorted(set(before) - set(after))
            if created or changed or deleted:
                self.emit(
                    NamespaceChanged(
                        run_id=self.id,
                        subtask_id=subtask_id,
                        created=created,
                        changed=changed,
                        deleted=deleted,
                        fingerprints={n: after[n] for n in created + changed},
                    )
                )
        return result

    async def _fingerprints(self) -> dict[str, str] | None:
        probe = getattr(self.kernel, "fingerprints", None)
        if probe is None:
            return None
        try:
            answer = await probe()
        except KernelLost:
            raise
        except Exception:  # the record of what changed must not cost the step
            return None
        return answer if isinstance(answer, dict) else None

    # ----- helpers for solvers (the rest of ``SolverRun``) -------------------------
    def defined_names(self) -> set[str]:
        names: set[str] = set()
        for _, code in self.accepted:
            names.update(codeinfo.analyse(code).assigned)
        return names

    def may_insert(self, subtask_id: str, name: str | None) -> bool:
        """A name gets one defining subtask per run; a subtask gets at most two inserted before it.

        Without the run-wide rule, a defining step that itself fails on the same
        name would insert another defining step, forever.
        """
        if not name or name in self._inserted_names:
            return False
        done = self._inserts.setdefault(subtask_id, [])
        return len(done) < MAX_INSERTS_PER_SUBTASK and len(self._inserted_names) < MAX_INSERTS_PER_RUN

    async def variable_summary(self) -> str:
        try:
            return format_variables(await self.kernel.variables())
        except Exception:
            return ""

    # ----- the run ------------------------------------------------------------------
    async def _main(self) -> None:
        try:
            status, message = await self._plan_and_solve()
        except asyncio.CancelledError:
            # Nothing to interrupt here: a live execution of ours stops itself when cancelled
            # (kernel.execute), a trial child is killed (kernel.trial); the kernel may be
            # running the user's own cell, which a cancel must not touch.
            status, message = "cancelled", "cancelled by the user"
        except KernelLost as exc:
            status, message = "failed", self._lost_message(str(exc))
        except LLMError as exc:
            status, message = "failed", str(exc)
        except Exception as exc:  # a bug or a dead kernel: say so, keep the log
            status, message = "failed", f"{type(exc).__name__}: {exc}"
        self._finish(status, message)

    def _lost_message(self, reason: str) -> str:
        """What a lost kernel took with it and what stays, for the run's last word."""
        current = self._current
        subtask = self.subtasks[current] if current is not None and current < len(self.subtasks) else None
        where = f" during step {current + 1} ({subtask.description})" if current is not None and subtask else ""
        message = (
            f"The kernel was lost{where}: {reason.rstrip('.')}. The run cannot go on without the state its steps built."
        )
        if not self.accepted:
            return message + " No step had been accepted yet; nothing was written to the notebook."
        names = sorted(self.defined_names())
        files = sorted({f for _, code in self.accepted for f in codeinfo.analyse(code).written_files})
        done = {sid for sid, _ in self.accepted}
        kept = [f"{i + 1}. {s.description}" for i, s in enumerate(self.subtasks) if s.id in done]
        message += (
            f" Lost with the kernel: the variables {', '.join(names) or '(none)'}."
            f" Kept: the code of the {len(kept)} accepted step(s), in the notebook and the run log"
            f" ({'; '.join(kept)})"
        )
        message += f", and the files they wrote: {', '.join(files)}." if files else "."
        return message + " Run the accepted cells again (or start a new run) to rebuild the state."

    def _finish(self, status: str, message: str) -> None:
        checks = self.deliverables
        stats = self.stats
        llm_stats = getattr(self.llm, "stats", None)
        if llm_stats is not None:
            stats.llm_calls, stats.tokens_in, stats.tokens_out = (
                llm_stats.calls,
                llm_stats.tokens_in,
                llm_stats.tokens_out,
            )
            stats.llm_seconds = round(llm_stats.seconds, 2)
        stats.subtasks = len(self.subtasks)
        stats.seconds = round(time.monotonic() - self._started, 2)
        self.emit(
            Finished(
                run_id=self.id,
                status=status,
                message=redact(message),
                stats=stats,
                unmet=checks.unmet() if checks else [],
                not_verified=checks.not_verified() if checks else [],
            )
        )
        if self.log:
            self.log.close()

    async def _gather_overview(self) -> str:
        self.progress("looking at the data in the working directory and the kernel")
        profile = await run_probe(self.kernel, "profile_files", ".")
        self.known_empty_columns = list((profile or {}).get("empty_columns") or [])
        self.data_files = list((profile or {}).get("files") or [])
        files = format_files(profile, named=requested_files(self.request))
        if self.options.crs_advisor:
            self.crs_advice = await CrsAdvice.gather(self.kernel, self.data_files, requested_files(self.request))
        advice = self.crs_advice.overview_lines(self.request)
        if advice:
            self.emit(CrsAdvised(run_id=self.id, lines=advice.splitlines()))
        variables = await self.variable_summary()
        parts = [files] if files else []
        if advice:
            parts.append(advice)
        if variables:
            parts.append("Variables already in the kernel:\n" + variables)
        return "\n".join(parts)

    async def _intros(self) -> str:
        if self.knowledge_index is None:
            return ""
        try:
            intros = await asyncio.to_thread(self.knowledge_index.intros)
        except Exception:
            return ""
        return "\n".join(f"- {lib}: {text.splitlines()[0] if text else ''}" for lib, text in intros.items())

    def _solver(self):
        if self.options.strategy == "mcts":
            return MctsSolver(self, self.options.mcts)
        if self.options.strategy == "auto":
            return StallSearchSolver(self, self.options.mcts, self.options.search_steps)
        return SequentialSolver(self)

    async def _plan_and_solve(self) -> tuple[str, str]:
        self.data_overview = await self._gather_overview()
        self.outputs = outputs = await self._absent(requested_files(self.request))
        # the output folders a request names may not exist yet in a fresh working directory
        await run_probe(self.kernel, "make_output_dirs", outputs)
        if self.options.contract and outputs:
            self.input_facts = await input_facts(self.kernel, self.data_files, outputs)
            self.contract = derive_contract(
                self.request, outputs, self.input_facts, official_crs=self.crs_advice.label_for("official")
            )
            if proposals_wanted(self.options.propose_requirements, self.model_name):
                await self._add_proposed_requirements()
            if reading_wanted(self.options.read_request, self.model_name):
                await self._add_model_reading()
            if self.options.approval_mode:
                await self._review_contract()
            self.crs_advice = self.crs_advice.within(self.contract)
            pin = self.crs_advice.pin_line()
            self.data_overview += f"\n{pin}" if pin else ""
            self.deliverables = DeliverableChecks(self.kernel, self.contract, self.emit, self.id)
            if not self.options.approval_mode:
                self.emit(ContractStated(run_id=self.id, contract=self.contract, dropped=self._dropped_proposals))
        self.progress("planning")
        plan = await Planner(self.llm).plan(
            self.request, self.data_overview, await self._intros(), self.contract.text() if self.contract else ""
        )
        if plan.declined:
            self.emit(Declined(run_id=self.id, reason=plan.declined))
            return "declined", plan.declined
        self.subtasks = plan.subtasks
        self.emit(Planned(run_id=self.id, subtasks=self.subtasks))
        self._tidy_plan()
        await self._reword_unshared_joins()
        solver = self._solver()
        i = 0
        skipped = 0
        done_outputs: list[tuple[str, str]] = []
        closing = _ClosingSubtasks()
        while True:
            if i == len(self.subtasks):
                added = await self._closing_subtasks(closing)
                if not added:
                    break
                self.subtasks += added
            subtask = self.subtasks[i]
            self._current = i
            self.emit(SubtaskStarted(run_id=self.id, subtask_id=subtask.id, index=i, description=subtask.description))
            outcome = await solver.solve(i)
            if outcome.kind == "insert":
                self._inserts[subtask.id].append(outcome.name)
                self._inserted_names.add(outcome.name)
                new = new_subtask(define_subtask_text(outcome.name, subtask.description), inserted_for=subtask.id)
                self.subtasks.insert(i, new)
                self.emit(
                    SubtaskInserted(
                        run_id=self.id,
                        subtask=new,
                        before=subtask.id,
                        reason=f"`{outcome.name}` is not defined: {outcome.error}",
                    )
                )
                continue
            if outcome.kind == "solved":
                self._accept(subtask, outcome.code, outcome.result, outcome.attempts, outcome.warnings, by="agent")
                await self._drop_assurances_once_delivered(i, outputs)
            else:
                resolution = await self._needs_human(subtask, outcome)
                if resolution == "stop":
                    return "partial", f"stopped at step {i + 1}: {outcome.error}"
                if resolution == "retry":
                    continue
                if resolution == "skipped":
                    skipped += 1
            done_outputs.append((subtask.description, self._output_text(subtask.id)))
            i += 1
            await self._maybe_replan(i, done_outputs, outcome)
        return await self._verdict(outputs, skipped, recheck=not closing.checked_last)

    async def _drop_assurances_once_delivered(self, done: int, outputs: list[str]) -> None:
        """Once every output is written and meets every requirement (all of them checkable), the
        later steps that only see to requirements ("Ensure …", "Check …") have nothing to do: they
        go, and would otherwise cost model calls and risk a file that is right."""
        later = [
            done + 1 + j for j in assurance_steps([s.description for s in self.subtasks[done + 1 :]], self.request)
        ]
        if not later or self.deliverables is None or self.deliverables.not_verified():
            return
        if not self.deliverables.all_hold() or await self._absent(outputs):
            return
        await self.deliverables.check(subtask_id=self.subtasks[done].id)  # the files as they are now
        if not self.deliverables.all_hold():
            return
        dropped = [self.subtasks[j].description for j in later]
        self.subtasks = [s for j, s in enumerate(self.subtasks) if j not in later]
        self.emit(
            Replanned(
                run_id=self.id,
                reason=f"every output meets every requirement: {len(dropped)} step(s) left with nothing to do "
                f"({'; '.join(dropped)})",
                subtasks=self.subtasks,
            )
        )

    def _tidy_plan(self, start: int = 0) -> None:
        """One pass over the plan's steps from ``start`` (the new ones, after a review) before the
        coder reads them, one ``replanned`` event for all it changed (``plan_check``): a step
        naming a raster library when no data file is a raster loses that phrase (the coder would
        open a vector file with rasterio on every attempt); a loop spread over steps becomes one
        step (each step runs once); a rename the contract's provenance says runs the wrong way round
        is turned; then, on that wording, steps the
        contract forbids are dropped or keep their work with the limit written into them, and
        steps with nothing to do are dropped; last, the step that writes an output is told the
        requirements on its columns no step names. What is left to do is never emptied."""
        descriptions = [s.description for s in self.subtasks]
        without_rasters = raster_tools_without_rasters(descriptions, self.data_files, self.request)
        changes: dict[int, tuple[str | None, str]] = {
            i: (text, "it named a raster library but no data file is a raster") for i, text in without_rasters
        }
        for i, text in without_rasters:
            descriptions[i] = text
        folded: set[int] = set()  # steps now inside a loop step (and the loop step): no other check rewords them
        for i, text, body in loop_bodies(descriptions):
            if i < start:
                continue
            changes[i] = (text, f"a loop runs in one step: steps {i + 2}–{body[-1] + 1} are its body")
            changes.update({j: (None, f"folded into step {i + 1}'s loop") for j in body})
            folded.update([i, *body])
            descriptions[i] = text
        for i, text, why in reversed_renames(descriptions, self.contract):
            if i not in folded:
                changes[i] = (text, why)
                descriptions[i] = text
        reworded_only = set(changes) - folded  # a rewording the contract's limit or an idle drop replaces
        for i, reworded, why in contract_conflicts(descriptions, self.contract):
            if i not in folded:
                changes[i] = (reworded, why)
                reworded_only.discard(i)
        for i, why in idle_steps(descriptions, self.request, self.contract, self.data_files):
            if i not in folded and (i not in changes or i in reworded_only):
                changes[i] = (None, why)
        current = [changes[i][0] if i in changes else text for i, text in enumerate(descriptions)]
        for i, text, why in uncovered_requirements(current, self.contract):
            changes[i] = (text, f"{changes[i][1]}; {why}" if i in changes else why)
        changes = {i: change for i, change in changes.items() if i >= start}
        dropped = {i for i, (text, _) in changes.items() if text is None}
        if len(dropped) == len(self.subtasks) - start:
            changes = {i: change for i, change in changes.items() if change[0] is not None}
            dropped = set()
        if not changes:
            return
        for index, (new_text, _) in changes.items():
            if new_text is not None:
                self.subtasks[index] = self.subtasks[index].model_copy(update={"description": new_text})
        self.subtasks = [s for i, s in enumerate(self.subtasks) if i not in dropped]
        said = "; ".join(
            f"step {i + 1} {'dropped' if text is None else 'reworded'}: {why}"
            for i, (text, why) in sorted(changes.items())
        )
        self.emit(Replanned(run_id=self.id, subtasks=self.subtasks, reason=f"the plan was tidied — {said}"))

    async def _reword_unshared_joins(self) -> None:
        """Steps that merge layers on a column only one of them has are reworded before they run
        (``plan_check``): such a step fails every attempt and starves the steps after it. The input
        files are read only when a step merges on a key (they may be large)."""
        descriptions = [s.description for s in self.subtasks]
        if len(self.data_files) < 2 or not join_steps(descriptions):
            return
        if not self.input_facts:
            self.input_facts = await input_facts(self.kernel, self.data_files, self.outputs)
        columns = {path: facts.get("columns") or [] for path, facts in self.input_facts.items()}
        for index, key, why in unshared_join_keys(descriptions, columns):
            reason = f"step {index + 1} merges on `{key}`, a column one layer lacks; rewritten"
            if not await reword_subtask(
                self, index, why, reason, refine=functools.partial(reworded_join, key=key, columns_by_input=columns)
            ):
                # no new wording from the model, or one merging on another key a layer lacks (left as it
                # was, the merge would fail every attempt):
                # the step keeps its words without the key, and the reason is written into it
                text = f"{without_join_key(descriptions[index], key).rstrip(' .')} ({why})."
                self.subtasks[index] = self.subtasks[index].model_copy(update={"description": text})
                self.emit(Replanned(run_id=self.id, reason=reason, subtasks=self.subtasks))

    async def _add_proposed_requirements(self) -> None:
        """The model's reading of the request beyond the rules, kept where the rules can check it
        and the request backs it (``contract.proposed``). A model that cannot answer adds nothing:
        the plan's own call reports a model that is down."""
        try:
            proposals = await Planner(self.llm).propose_requirements(self.request, self.outputs)
        except LLMError:
            return
        contract = self.contract
        assert contract is not None  # derived before the proposals are read
        added, dropped = accept_proposals(proposals, self.request, contract, self.input_facts)
        self._dropped_proposals = [f"{said} ({why})" for said, why in dropped]
        if added:
            self.contract = contract.model_copy(update={"requirements": contract.requirements + added})

    async def _add_model_reading(self) -> None:
        """The model's typed reading of the request, kept where the request writes it and the rules
        agree (``contract.reading``). A model that cannot answer, or answers no such form, adds
        nothing and says so among the dropped readings; the plan's own call reports a model that is down."""
        try:
            reading = await Planner(self.llm).read_request(self.request, self.outputs)
        except LLMError as exc:
            self._dropped_proposals.append(f"the model's reading of the request ({str(exc)[:160]})")
            return
        if reading is None:
            self._dropped_proposals.append("the model's reading of the request (not the form asked for)")
            return
        contract = self.contract
        assert contract is not None  # derived before the reading is used
        added, dropped = accept_reading(reading, self.request, contract, self.input_facts, sure=MODEL_READING_GATES)
        self._dropped_proposals += [f"{said} ({why})" for said, why in dropped]
        if added:
            self.contract = contract.model_copy(update={"requirements": contract.requirements + added})

    async def _review_contract(self) -> None:
        """Approval mode: the user confirms, edits, adds or deletes requirements before the plan."""
        self.emit(
            ContractStated(
                run_id=self.id, contract=self.contract, awaiting_review=True, dropped=self._dropped_proposals
            )
        )
        action = await self._wait_human("contract", CONTRACT_REVIEW)
        if action.kind == "contract" and self.contract is not None:
            self.contract = apply_edits(self.contract, action.requirements or [], self.input_facts)
        self.emit(
            ContractStated(
                run_id=self.id, contract=self.contract, by="user" if action.kind == "contract" else "request"
            )
        )

    async def _closing_subtasks(self, closing: _ClosingSubtasks) -> list[SubtaskSpec]:
        """When the plan ran out: one subtask per output still missing (once), then one per output
        whose contract does not hold (once). Small models often plan "Load the data" and stop, or
        write a file that misses what the request asked for."""
        missing = await self._absent(self.outputs)
        if missing:
            if closing.outputs_added:
                return []
            closing.outputs_added = True
            added = [new_subtask(output_subtask(p)) for p in missing]
            reason = f"the request's output {', '.join(missing)} is not written yet"
        else:
            if self.deliverables is None or closing.contract_added:
                return []
            failed = [(req, res) for req, res in await self.deliverables.check() if not res.passed]
            closing.checked_last = not failed
            if not failed:
                return []
            closing.contract_added = True
            by_output: dict[str, list[str]] = {}
            for req, res in failed:
                by_output.setdefault(req.output, []).append(f"{req.text} (seen: {res.observed})")
            added = [new_subtask(contract_subtask(path, problems)) for path, problems in by_output.items()]
            reason = f"{len(failed)} requirement(s) of the output do not hold"
        self.emit(Replanned(run_id=self.id, reason=reason, subtasks=self.subtasks + added))
        return added

    async def _verdict(self, outputs: list[str], skipped: int, recheck: bool = True) -> tuple[str, str]:
        """The run's status, from the final files: ``succeeded`` only when every output exists and every
        checkable requirement holds on it. A skipped step is then "not needed", not a failure."""
        missing = await self._absent(outputs)
        if self.deliverables is not None and recheck:
            await self.deliverables.check()  # also for a missing file: the summary lists what it had to satisfy
        if missing:
            return "partial", f"{', '.join(missing)} not written" + (f"; {skipped} step(s) skipped" if skipped else "")
        if self.deliverables is not None:
            unmet = self.deliverables.unmet()
            if unmet:
                return "partial", f"{len(unmet)} requirement(s) not met: " + "; ".join(unmet)
            beyond_existence = self.contract is not None and any(r.kind != "exists" for r in self.contract.checkable())
            if skipped and beyond_existence and self.deliverables.all_hold():
                return "succeeded", (
                    f"{len(self.subtasks)} step(s); {skipped} not needed: the output meets every checked requirement"
                )
        if skipped:
            return "partial", f"{skipped} step(s) skipped"
        return "succeeded", f"{len(self.subtasks)} step(s) done"

    async def _absent(self, paths: list[str]) -> list[str]:
        """Which of these paths do not exist in the kernel's working directory."""
        if not paths:
            return []
        missing = await run_probe(self.kernel, "missing_files", paths)
        return list(missing) if isinstance(missing, list) else []

    def _accept(
        self, subtask: SubtaskSpec, code: str, result: Any, attempts: int, warnings: list[str], by: str
    ) -> None:
        self.accepted.append((subtask.id, code))
        self.results[subtask.id] = result
        for warning in warnings:  # accepted as it is: a later step that carries the column on is not retried for it
            emptied = _ALL_NULL.search(warning)
            self.known_empty_columns += (
                [c for c in emptied.group(1).split(", ") if c not in self.known_empty_columns] if emptied else []
            )
        self.stats.solved += 1
        self.emit(
            Solved(
                run_id=self.id,
                subtask_id=subtask.id,
                code=code,
                attempts=attempts,
                result=summarize(result, warnings),
                by=by,
            )
        )

    def full_outputs(self, subtask_id: str) -> list[dict[str, Any]] | None:
        """The whole outputs of an accepted step, redacted: what its notebook cell gets (its
        events carry them bounded, ``output_limits``). None for a step not accepted."""
        if subtask_id not in self.results:
            return None
        return redact_obj(list(getattr(self.results[subtask_id], "outputs", []) or []))

    def _output_text(self, subtask_id: str) -> str:
        result = self.results.get(subtask_id)
        return (getattr(result, "stdout", "") or "")[-600:] if result is not None else "(skipped)"

    async def _still_unmet(self) -> list[str]:
        """The contract checked on the files as they are now, for a hand-over to name what the
        deliverable still lacks (its ``requirement_checked`` events update the panel's list too)."""
        if self.deliverables is None:
            return []
        await self.deliverables.check()
        return self.deliverables.unmet()

    async def _needs_human(self, subtask: SubtaskSpec, outcome) -> str:
        """'solved' | 'retry' | 'skipped' | 'stop' — waits for the human when allowed."""
        lost = getattr(self.kernel, "lost", None)
        if lost:  # its failures were the lost kernel's (and probes swallow errors): no fix can run
            raise KernelLost(lost)
        self.emit(
            NeedsHuman(
                run_id=self.id,
                subtask_id=subtask.id,
                code=outcome.code,
                error=outcome.error,
                attempts=outcome.attempts,
                unmet=await self._still_unmet(),
            )
        )
        if self.options.on_stuck == "stop":
            return "stop"
        if self.options.on_stuck == "skip":
            self.emit(Skipped(run_id=self.id, subtask_id=subtask.id, reason="no human available (batch run)"))
            return "skipped"
        while True:
            action = await self._wait_human("stuck", subtask.id)
            if action.kind == "skip":
                self.emit(Skipped(run_id=self.id, subtask_id=subtask.id, reason=action.text or "skipped by the user"))
                return "skipped"
            if action.kind == "hint":
                self.hints.setdefault(subtask.id, []).append(action.text)
                self.emit(HintGiven(run_id=self.id, subtask_id=subtask.id, hint=action.text))
                return "retry"
            result = await self.commit(subtask.id, action.code)
            accepted = result.status == "ok"
            self.emit(
                HumanEditApplied(
                    run_id=self.id, subtask_id=subtask.id, code=action.code, result=summarize(result), accepted=accepted
                )
            )
            if accepted:
                self.human_fixes.append(action.code)
                self._accept(subtask, action.code, result, outcome.attempts, [], by="human")
                return "solved"
            self.emit(
                NeedsHuman(
                    run_id=self.id,
                    subtask_id=subtask.id,
                    code=action.code,
                    error=getattr(result.error, "message", result.status),
                    attempts=outcome.attempts,
                )
            )

    async def _maybe_replan(self, next_index: int, done: list[tuple[str, str]], outcome) -> None:
        """Review the remaining plan when a step's result suggests the plan may be wrong."""
        remaining = self.subtasks[next_index:]
        if not remaining or self.options.review == "never":
            return
        signal = bool(outcome.warnings) or outcome.kind != "solved" or outcome.attempts > 2
        if self.options.review == "auto" and not signal:
            return
        self.progress("reviewing the rest of the plan")
        descriptions = await Planner(self.llm).review(self.request, done, [s.description for s in remaining])
        if not descriptions:
            return
        self.subtasks = self.subtasks[:next_index] + [new_subtask(d) for d in descriptions]
        self.emit(
            Replanned(run_id=self.id, reason="a step's result showed the plan no longer fits", subtasks=self.subtasks)
        )
        self._tidy_plan(start=next_index)  # the reviewer's steps pass the same checks as the planner's


async def drive(run: Run, on_event: Callable[[Event], Awaitable[None] | None] | None = None) -> Finished:
    """Start a run and feed its events to ``on_event`` until it finishes (CLI, bench, tests)."""
    run.start()
    async for event in run.bus.subscribe(replay=True):
        if on_event is not None:
            maybe = on_event(event)
            if asyncio.iscoroutine(maybe):
                await maybe
    await run.wait()
    return run.bus.history[-1]  # type: ignore[return-value]
