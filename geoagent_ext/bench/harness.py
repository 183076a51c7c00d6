"""Run a suite in one mode and keep per-task results on disk (resumable).

Modes share everything but the strategy, so their scores compare the method:
- ``single``: one model answer for the whole request, executed as is;
- ``loop``: the sequential agent (plan, generate, trial, repair);
- ``mcts``: the agent with the tree search per subtask.
Each task runs in a fresh kernel whose working dir is a copy of its inputs.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from ..agent.kernel_handle import KernelLost
from ..agent.probes import format_files, run_probe
from ..agent.prompts import single_messages
from ..config import GeoAgentSettings
from ..contract.proposed import proposals_wanted
from ..llm.parsing import extract_code
from ..services import open_headless_services, run_options
from .suite import Task

MODES = ("single", "loop", "mcts", "auto")
DEFAULT_MODES = ("single", "loop", "mcts")  # "auto" (the loop, searching where it stalls) when asked


# The run's own verdict: "succeeded" graded below 1 is a false success; any other verdict
# (partial, failed, timeout, ...) on a deliverable graded 1 is a false alarm.
SUCCESS = "succeeded"


class TaskResult(BaseModel):
    task_id: str
    mode: str
    model: str
    score: float = 0.0
    passed: bool = False
    contract: bool | None = None  # whether the run checked the deliverable contract (None: older results)
    crs_advisor: bool | None = None  # whether the run had the CRS advisor (None: older results)
    proposals: bool | None = None  # whether the model proposed requirements beyond the rules' (None: older results)
    grader: str = ""  # "task" (the task's own grade.py) or "generic"
    grader_error: str = ""
    gates: list[dict[str, Any]] = Field(default_factory=list)
    subchecks: list[dict[str, Any]] = Field(default_factory=list)
    status: str = ""  # the run's own verdict, kept beside the grade
    message: str = ""
    llm_calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    wall_s: float = 0.0
    time_to_deliverable_s: float | None = None  # start -> last write of an expected output
    code: str = ""
    call_metrics: dict[str, float] | None = None

    @property
    def false_success(self) -> bool:
        return self.status == SUCCESS and self.score < 1.0

    @property
    def false_alarm(self) -> bool:
        return self.status != SUCCESS and self.score >= 1.0


def result_path(out_dir: Path, mode: str, task_id: str) -> Path:
    return Path(out_dir) / "tasks" / mode / f"{task_id}.json"


def load_results(out_dir: Path) -> list[TaskResult]:
    return [TaskResult.model_validate_json(p.read_text()) for p in sorted(Path(out_dir).glob("tasks/*/*.json"))]


async def _single(session, task: Task, settings: GeoAgentSettings) -> tuple[str, str, str]:
    overview = format_files(await run_probe(session.kernel, "profile_files", "."))
    gen = await session.llm.complete(single_messages(task.instruction, overview), temperature=0.2, max_tokens=1536)
    code = extract_code(gen.text) or ""
    if not code:
        return "failed", "the model gave no code", ""
    try:
        result = await session.kernel.execute(code, timeout=settings.execute_timeout)
    except KernelLost as exc:  # the answer killed the kernel (out of memory...): a failed answer
        return "failed", str(exc), code
    message = result.error.message if result.error else ""
    return ("succeeded" if result.status == "ok" else "failed"), message, code


async def _agent(session, task: Task, mode: str, settings: GeoAgentSettings, log_dir: Path) -> tuple[str, str, str]:
    options = run_options(settings, strategy=mode, on_stuck="skip", approval_mode=False)
    run = session.new_run(task.instruction, options=options, log_dir=log_dir)
    finished = await run.wait()
    code = "\n\n".join(code for _, code in run.accepted)
    return finished.status, finished.message, code


async def run_task(
    task: Task,
    mode: str,
    settings: GeoAgentSettings,
    out_dir: Path,
    *,
    model: str | None = None,
    use_index: bool = True,
    task_timeout: float = 1800,
    reference_dir: Path | None = None,
) -> TaskResult:
    from .callmetrics import call_metrics, called_functions
    from .grading import GradingError, grade_task

    workdir = task.prepare_workdir(Path(out_dir) / "work" / mode / task.id)
    started, started_at = time.monotonic(), time.time()
    result = TaskResult(
        task_id=task.id,
        mode=mode,
        model=model or settings.model,
        contract=settings.check_contract if mode != "single" else None,
        crs_advisor=settings.crs_advisor if mode != "single" else None,
        proposals=(settings.check_contract and proposals_wanted(settings.propose_requirements, model or settings.model))
        if mode != "single"
        else None,
    )
    async with open_headless_services(settings, cwd=workdir, model=model, use_index=use_index) as session:
        try:
            if mode == "single":
                coro = _single(session, task, settings)
            else:
                coro = _agent(session, task, mode, settings, Path(out_dir) / "logs" / mode)
            result.status, result.message, result.code = await asyncio.wait_for(coro, task_timeout)
            if result.status == "cancelled" and time.monotonic() - started >= task_timeout:
                raise asyncio.TimeoutError  # the run ended itself on wait_for's cancellation: that was the time limit
        except asyncio.TimeoutError:
            result.status, result.message = "timeout", f"task exceeded {task_timeout:.0f} s"
        except Exception as exc:  # one task's failure must not end the suite
            result.status, result.message = "error", f"{type(exc).__name__}: {exc}"
        stats = session.llm.stats
        result.llm_calls, result.tokens_in, result.tokens_out = stats.calls, stats.tokens_in, stats.tokens_out
    result.wall_s = round(time.monotonic() - started, 1)
    try:
        report = grade_task(task.dir, workdir)
    except GradingError as exc:  # the suite itself is broken: say so, keep going
        result.status, result.message = "grading_error", str(exc)
        return result
    result.score, result.passed = round(report.score, 4), report.passed
    result.grader, result.grader_error = report.grader, report.error
    result.gates = [s.model_dump(exclude={"gate", "weight"}) for s in report.gates]
    result.subchecks = [s.model_dump(exclude={"gate"}) for s in report.subchecks if not s.gate]
    result.time_to_deliverable_s = _time_to_deliverable(task, workdir, started_at)
    reference = (reference_dir / f"{task.id}.py") if reference_dir else None
    if reference is not None and reference.exists():
        result.call_metrics = call_metrics(called_functions(result.code), called_functions(reference.read_text()))
    return result


def _time_to_deliverable(task: Task, workdir: Path, started_at: float) -> float | None:
    """Seconds from the task's start to the last write of its expected outputs (None if one is missing)."""
    times = []
    for output in task.expected_outputs:
        path = workdir / output.get("name", "")
        if not output.get("name") or not path.is_file():
            return None
        times.append(path.stat().st_mtime)
    return round(max(times) - started_at, 1) if times else None


async def run_suite(
    tasks: list[Task],
    modes: list[str],
    settings: GeoAgentSettings,
    out_dir: Path,
    *,
    model: str | None = None,
    force: bool = False,
    use_index: bool = True,
    task_timeout: float = 1800,
    reference_dir: Path | None = None,
    on_result: Callable[[TaskResult, bool], None] | None = None,
) -> list[TaskResult]:
    """Run every (mode, task) not already on disk; finished ones are kept and skipped."""
    results = []
    for mode in modes:
        for task in tasks:
            path = result_path(out_dir, mode, task.id)
            if path.exists() and not force:
                cached = TaskResult.model_validate_json(path.read_text())
                results.append(cached)
                if on_result:
                    on_result(cached, True)
                continue
            result = await run_task(
                task,
                mode,
                settings,
                out_dir,
                model=model,
                use_index=use_index,
                task_timeout=task_timeout,
                reference_dir=reference_dir,
            )
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(result.model_dump_json(indent=1))
            results.append(result)
            if on_result:
                on_result(result, False)
    return results
