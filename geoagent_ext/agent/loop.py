"""Sequential solver: generate -> trial -> commit -> check -> repair, for one subtask.

Each attempt runs first in the trial sandbox (a fork of the kernel), so a
failing attempt never half-changes the user's state; only code that passed the
trial is committed to the live kernel. The search (``search.py``) reuses the
same pieces (``SubtaskWork``) with a tree instead of a straight line.
"""

from __future__ import annotations

import difflib

from ..llm.client import LLMNoAnswer
from . import codeinfo, repair
from .events import CodeProposed, Repaired
from .subtask_work import (
    FIRST_TEMPERATURE,
    MAX_SEMANTIC_RETRIES,
    REPAIR_TEMPERATURE,
    Attempt,
    Outcome,
    SolverRun,
    SubtaskWork,
)

MAX_FREE_FIXES = 3  # certain fixes (no model call) per subtask that do not count against max_attempts


def unified_diff(old: str, new: str) -> str:
    return "".join(difflib.unified_diff(old.splitlines(True), new.splitlines(True), "previous attempt", "this attempt"))


class SequentialSolver:
    """The default solver: one candidate at a time, repaired by error class."""

    name = "loop"

    def __init__(self, run: SolverRun):
        self.run = run

    async def solve(self, index: int, stop_on_stall: bool = False) -> Outcome:
        """The subtask solved, handed to the user, or a name to define first (``insert``). With
        ``stop_on_stall``, the loop gives up as soon as it sees the same error or the same unmet
        requirement a second time (``stalled``, its reason in ``error``): the caller searches instead."""
        run = self.run
        work = SubtaskWork(run, index)
        subtask = work.subtask
        failed: Attempt | None = None
        repair_context = ""
        semantic_failures = 0
        # A certain fix (a repair rule's mechanical rewrite) skips the model; the step the run
        # adds to fix an output starts with the mechanical mend of what failed.
        pending_code: str | None = work.closing_mend()
        mending = pending_code is not None  # the attempt being evaluated is a mend
        diagnosis_text = ""
        repeats: dict[tuple, int] = {}  # error signature -> times seen in this subtask
        rewritten = False
        before_rewrite: Attempt | None = None  # the failure that had the step reworded: shown if none followed
        live: Attempt | None = None  # the last attempt the live kernel ran to the end (with what it lacks)
        attempt_no = written = free = 0
        while written < run.options.max_attempts or pending_code is not None:
            attempt_no += 1
            run.stats.attempts += 1
            if pending_code is not None:
                code, pending_code = pending_code, None
            else:
                written += 1
                ctx = work.context(
                    variables=await run.variable_summary(),
                    api_docs=await work.api_docs(failed.error if failed else None),
                    failed_code=failed.code if failed else None,
                    failure=failed.error if failed else None,
                    repair_context=repair_context,
                )
                run.progress(f"writing code for step {index + 1} (attempt {attempt_no})", subtask.id)
                try:
                    code, cause, _ = await work.generate(
                        ctx, temperature=FIRST_TEMPERATURE if attempt_no == 1 else REPAIR_TEMPERATURE
                    )
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
                run.emit(
                    Repaired(
                        run_id=run.id,
                        subtask_id=subtask.id,
                        attempt=attempt_no,
                        strategy=last_strategy,
                        diagnosis=diagnosis_text or failed.error or "",
                        diff=unified_diff(failed.code, code),
                    )
                )
            attempt = await work.evaluate(code, attempt_no)
            if attempt.committed:
                live = attempt if attempt.error is None else None
            if repair.repair_the_code_before(attempt.ename, failed.code if failed else None):
                # Only comments (the note echoed): the last real code, its failure and note stay the
                # base; the note now opens with the reminder that code is wanted.
                last_strategy, repair_context = "no_code", repair.with_no_code_note(repair_context)
                continue
            if attempt.error is None and (not attempt.warnings or semantic_failures >= MAX_SEMANTIC_RETRIES):
                return Outcome(
                    "solved", code=code, result=attempt.result, warnings=attempt.warnings, attempts=attempt_no
                )
            was_mend, mending = mending, False
            if attempt.error is None:
                attempt.error = "The code ran but the result looks wrong: " + "; ".join(attempt.warnings)
                failed = attempt
                semantic_failures += (
                    0 if was_mend else 1
                )  # the coder's result; a mend that left other defects is not the coder's retry
                mended = work.mended(code) if free < MAX_FREE_FIXES else None
                if mended:  # the file's failed requirements with a mechanical remedy: mended without the model
                    pending_code, mending, free = mended, True, free + 1
                    last_strategy, diagnosis_text = "mend", repair.Diagnosis("mend", "").fix_said
                    continue
                last_strategy, repair_context, diagnosis_text = "semantic", "", attempt.error
                signature = repair.error_signature("Semantic", "; ".join(attempt.warnings), None)
                repeats[signature] = repeats.get(signature, 0) + 1
                if repeats[signature] >= 2 and stop_on_stall:
                    reason = "the same unmet requirement twice: " + "; ".join(attempt.warnings)
                    return Outcome("stalled", code=code, error=reason, attempts=attempt_no)
                if repeats[signature] >= 2:  # the same defect again (an unmet requirement): say so, with the real data
                    repair_context = repair.escalation_note(await run.variable_summary(), same="problem")
                    last_strategy = "escalate"
                continue
            signature = repair.error_signature(attempt.ename, attempt.evalue, codeinfo.line_of(code, attempt.lineno))
            repeats[signature] = repeats.get(signature, 0) + 1
            if repeats[signature] >= 3 and not rewritten:
                # Third time the same: the subtask's wording is the dead end; the planner rewrites it.
                rewritten = True
                before_rewrite = attempt
                if await work.rewrite(attempt.error or ""):
                    subtask = work.subtask
                    failed, repair_context, diagnosis_text, last_strategy = None, "", "", "rewrite"
                    repeats.clear()
                    continue
            diagnosis = await work.diagnose(attempt)
            last_strategy = diagnosis.strategy
            diagnosis_text = diagnosis.message
            if diagnosis.fixed_code and (free < MAX_FREE_FIXES or written < run.options.max_attempts):
                # A certain fix costs no model call and, up to MAX_FREE_FIXES, none of the budget
                # (a run of small mechanical fixes must not use up the attempts the model needs);
                # beyond that it counts like a written attempt.
                pending_code = diagnosis.fixed_code
                diagnosis_text = diagnosis.fix_said
                if free < MAX_FREE_FIXES:
                    free += 1
                else:
                    written += 1
            elif diagnosis.strategy == "insert_subtask" and run.may_insert(subtask.id, diagnosis.name):
                return Outcome("insert", code=code, error=attempt.error, attempts=attempt_no, name=diagnosis.name)
            elif diagnosis.strategy == "insert_subtask":
                last_strategy = "analyse"
            if repeats[signature] == 2 and stop_on_stall and pending_code is None:
                reason = f"the same error twice: {attempt.error}"
                return Outcome("stalled", code=code, error=reason, attempts=attempt_no)
            repair_context = await repair.enrich(diagnosis, code, attempt.lineno, run.kernel)
            if repeats[signature] == 2:  # second time the same: say so, with the real data beside it
                repair_context = repair.escalation_note(await run.variable_summary()) + (
                    "\n" + repair_context if repair_context else ""
                )
                last_strategy = "escalate"
            failed = attempt
        if live is not None:
            # The later attempts were stopped in their trials (one undid a requirement that holds) or
            # failed there: the kernel and the files are still the live attempt's, with what it lacks.
            return Outcome("solved", code=live.code, result=live.result, warnings=live.warnings, attempts=attempt_no)
        shown = failed or before_rewrite
        return Outcome(
            "needs_human",
            code=shown.code if shown else "",
            error=shown.error or "" if shown else "",
            attempts=attempt_no,
        )
