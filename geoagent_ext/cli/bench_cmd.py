"""``jupyter geoagent bench SUITE_DIR --mode single|loop|mcts``: measure the agent on a task suite."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from ..bench.harness import DEFAULT_MODES, MODES, run_suite
from ..bench.report import write_reports
from ..bench.suite import load_suite
from .common import settings_from_args

console = Console(stderr=True, highlight=False)


def register(subparsers) -> None:
    parser = subparsers.add_parser("bench", help="Run a task suite and grade the deliverables.")
    parser.add_argument(
        "suite",
        help="Suite folder (<task>/task.json, inputs/, reference/[solution/]outputs/, "
        "optional grade.py: the task's own grader, used when present).",
    )
    parser.add_argument(
        "--mode", action="append", choices=MODES, help="Mode(s) to run (repeatable; default: single, loop and mcts)."
    )
    parser.add_argument("--model", "-m", help="provider:model (default: the configured model).")
    parser.add_argument("--out", default="bench-results", help="Output folder (results are kept and reused).")
    parser.add_argument("--task", action="append", help="Only these task ids (repeatable).")
    parser.add_argument("--force", action="store_true", help="Re-run tasks that already have results.")
    parser.add_argument("--no-index", action="store_true", help="Run without the API knowledge index.")
    parser.add_argument(
        "--no-contract",
        action="store_true",
        help="Agent modes without the deliverable contract (same as --config check_contract=false).",
    )
    parser.add_argument(
        "--no-advisor",
        action="store_true",
        help="Agent modes without the CRS advisor (same as --config crs_advisor=false).",
    )
    parser.add_argument(
        "--no-proposals",
        action="store_true",
        help="The contract from the rules only (same as --config propose_requirements=false read_request=false).",
    )
    parser.add_argument("--task-timeout", type=float, default=1800, help="Seconds per task (default 1800).")
    parser.add_argument(
        "--reference-solutions", help="Folder of <task_id>.py reference solutions for function-call metrics."
    )
    parser.set_defaults(func=run)


async def run(args) -> int:
    settings = settings_from_args(args)
    if args.no_contract:
        settings.check_contract = False
    if args.no_advisor:
        settings.crs_advisor = False
    if args.no_proposals:
        settings.propose_requirements = False
        settings.read_request = False
    try:
        tasks = load_suite(Path(args.suite), args.task)
    except (OSError, ValueError) as exc:
        console.print(f"[red]Cannot run the suite:[/] {exc}")
        return 2
    modes = args.mode or list(DEFAULT_MODES)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    reference = Path(args.reference_solutions) if args.reference_solutions else None

    def on_result(result, cached):
        tag = "[dim](kept)[/]" if cached else ""
        flag = (
            " [red]FALSE SUCCESS[/]"
            if result.false_success
            else (" [yellow]false alarm[/]" if result.false_alarm else "")
        )
        console.print(
            f"{result.mode:6} {result.task_id:40} score {result.score:.2f} {'PASS' if result.passed else '    '} "
            f"{result.status:10} {result.llm_calls:3} calls {result.wall_s:7.1f} s{flag} {tag}"
        )

    console.print(f"{len(tasks)} task(s) x {len(modes)} mode(s) -> {out}")
    results = await run_suite(
        tasks,
        modes,
        settings,
        out,
        model=args.model,
        force=args.force,
        use_index=not args.no_index,
        task_timeout=args.task_timeout,
        reference_dir=reference,
        on_result=on_result,
    )
    summary = write_reports(out, results)
    for mode, m in summary["modes"].items():
        console.print(
            f"{mode}: strict mean {m['mean_score']:.3f}, {m['passes']}/{m['tasks']} passed, "
            f"{m['false_successes']} false successes, {m['false_alarms']} false alarms, "
            f"{m['llm_calls']} LLM calls, {m['wall_s']} s"
        )
    console.print(f"report: {out / 'report.md'}")
    return 0
