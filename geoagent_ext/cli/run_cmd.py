"""``geoagent run "request" --notebook nb.ipynb``: a headless agent run.

Starts a fresh kernel in the notebook's folder (replaying the notebook's own
code first, so the request can refer to its variables), runs the agent with
live progress, writes the accepted code and outputs into the notebook as new
cells and prints a summary. When a step is stuck: in a terminal it asks you
(edit / hint / skip / stop); in a batch job it stops or skips (``--on-stuck``).
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat
from rich.console import Console
from rich.table import Table

from ..agent import notebook as nbwriter
from ..agent.events import Event
from ..agent.run import HumanAction, Run, RunOptions
from .common import settings_from_args
from .session import open_session

console = Console(stderr=True, highlight=False)


def register(subparsers) -> None:
    parser = subparsers.add_parser("run", help="Run the agent on a request, headless, into a notebook.")
    parser.add_argument("request", help="What you want, in plain words.")
    parser.add_argument("--notebook", "-n", required=True, help="Notebook to append the result to (created if missing).")
    parser.add_argument("--model", "-m", help="provider:model (default: the configured model).")
    parser.add_argument("--strategy", choices=["loop", "mcts"], default="loop")
    parser.add_argument("--max-attempts", type=int, help="Attempts per step before asking for help.")
    parser.add_argument("--on-stuck", choices=["ask", "stop", "skip"], help="What to do when a step is stuck (default: ask in a terminal, else stop).")
    parser.add_argument("--no-replay", action="store_true", help="Do not run the notebook's existing code cells first.")
    parser.add_argument("--no-index", action="store_true", help="Run without the API knowledge index.")
    parser.add_argument("--approve", action="store_true", help="Ask before each step's code runs.")
    parser.set_defaults(func=run)


def _describe(event: Event, run: Run) -> None:
    t = event.type
    if t == "progress":
        console.print(f"[dim]… {event.message}[/]")
    elif t == "planned":
        console.print("[bold]Plan[/]")
        for i, s in enumerate(event.subtasks, 1):
            console.print(f"  {i}. {s.description}")
    elif t == "replanned":
        console.print(f"[yellow]Re-planned[/] ({event.reason})")
    elif t == "subtask_inserted":
        console.print(f"[yellow]+ inserted step[/] {event.subtask.description}")
    elif t == "declined":
        console.print(f"[red]Declined:[/] {event.reason}")
    elif t == "subtask_started":
        console.print(f"[bold cyan]▶ Step {event.index + 1}[/] {event.description}")
    elif t == "executed" and event.result.status != "ok":
        where = "trial" if event.trial else "kernel"
        console.print(f"  [red]✗ attempt {event.attempt} ({where}):[/] {event.result.error}")
    elif t == "executed" and event.result.warnings:
        console.print(f"  [yellow]! {'; '.join(event.result.warnings)}[/]")
    elif t == "repaired":
        console.print(f"  [magenta]↻ {event.strategy}[/]: {event.diagnosis[:160]}")
    elif t == "solved":
        who = "by you" if event.by == "human" else f"{event.attempts} attempt(s)"
        console.print(f"  [green]✓ done[/] ({who}, {event.result.duration_s:.1f} s)")
        if event.result.stdout.strip():
            console.print("    " + event.result.stdout.strip()[-400:].replace("\n", "\n    "), markup=False)
    elif t == "needs_human":
        console.print(f"  [red bold]needs you:[/] {event.error}")
    elif t == "skipped":
        console.print(f"  [yellow]skipped[/] {event.reason}")


def _edit_in_editor(code: str) -> str:
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    with tempfile.NamedTemporaryFile("w+", suffix=".py", delete=False) as fh:
        fh.write(code)
        path = fh.name
    subprocess.call([editor, path])
    text = Path(path).read_text()
    os.unlink(path)
    return text


async def _ask_human(run: Run, event: Event) -> None:
    """Terminal prompt for a stuck step or an approval (runs beside the agent task)."""
    loop = asyncio.get_running_loop()
    if event.type == "approval_requested":
        console.print(f"[bold]Step code awaiting approval:[/]\n{event.code}", markup=False)
        answer = (await loop.run_in_executor(None, input, "Run it? [Y/n/reason to reject] ")).strip()
        if answer.lower() in ("", "y", "yes"):
            run.submit(HumanAction(kind="approve", subtask_id=event.subtask_id))
        else:
            run.submit(HumanAction(kind="reject", subtask_id=event.subtask_id, text="" if answer.lower() in ("n", "no") else answer))
        return
    console.print(f"[bold]Last attempt:[/]\n{event.code}", markup=False)
    while True:
        choice = (await loop.run_in_executor(None, input, "[e]dit code, give a [h]int, [s]kip step, [q]uit run? ")).strip().lower()
        if choice.startswith("e"):
            code = await loop.run_in_executor(None, _edit_in_editor, event.code)
            run.submit(HumanAction(kind="edit", subtask_id=event.subtask_id, code=code))
        elif choice.startswith("h"):
            hint = await loop.run_in_executor(None, input, "hint: ")
            run.submit(HumanAction(kind="hint", subtask_id=event.subtask_id, text=hint))
        elif choice.startswith("s"):
            run.submit(HumanAction(kind="skip", subtask_id=event.subtask_id))
        elif choice.startswith("q"):
            run.cancel()
        else:
            continue
        return


def _summary(run: Run, finished) -> None:
    stats = finished.stats
    table = Table(title=f"GeoAgent run {run.id}: {finished.status}", show_header=False)
    for label, value in [
        ("request", run.request),
        ("subtasks", f"{stats.solved}/{stats.subtasks} solved"),
        ("attempts", str(stats.attempts)),
        ("LLM calls", str(stats.llm_calls)),
        ("tokens in / out", f"{stats.tokens_in} / {stats.tokens_out}"),
        ("LLM time", f"{stats.llm_seconds:.1f} s"),
        ("total time", f"{stats.seconds:.1f} s"),
        ("message", finished.message),
    ]:
        table.add_row(label, value)
    console.print(table)


async def run(args) -> int:
    settings = settings_from_args(args)
    notebook = Path(args.notebook).resolve()
    if notebook.suffix != ".ipynb":
        console.print(f"[red]--notebook must be an .ipynb file, got {notebook.name}[/]")
        return 2
    notebook.parent.mkdir(parents=True, exist_ok=True)
    interactive = sys.stdin.isatty()
    on_stuck = args.on_stuck or ("ask" if interactive else "stop")
    options = RunOptions(
        strategy=args.strategy,
        max_attempts=args.max_attempts or settings.max_attempts,
        approval_mode=args.approve or settings.approval_mode,
        on_stuck="wait" if on_stuck == "ask" else on_stuck,
        execute_timeout=settings.execute_timeout,
    )
    if options.approval_mode and not interactive:
        console.print("[red]--approve needs a terminal to answer in[/]")
        return 2
    nb = nbwriter.load_or_new(notebook)
    replay = [] if args.no_replay else [c.source for c in nb.cells if c.cell_type == "code" and c.source.strip()]
    async with open_session(settings, cwd=notebook.parent, model=args.model, use_index=not args.no_index, console=console) as session:
        for source in replay:
            result = await session.kernel.execute(source, timeout=settings.execute_timeout)
            if result.status != "ok":
                console.print(f"[yellow]A notebook cell failed while replaying ({result.error.message if result.error else result.status}); continuing[/]")
        run_obj = Run(args.request, kernel=session.kernel, llm=session.llm, model_name=session.model_name, index=session.index,
                      options=options, log_dir=notebook.parent / ".geoagent" / "runs", notebook=str(notebook))
        pending: set[asyncio.Task] = set()

        def on_event(event: Event) -> None:
            _describe(event, run_obj)
            if interactive and event.type in ("needs_human", "approval_requested") and run_obj.options.on_stuck == "wait" or event.type == "approval_requested":
                task = asyncio.ensure_future(_ask_human(run_obj, event))
                pending.add(task)
                task.add_done_callback(pending.discard)

        run_obj.bus.add_listener(on_event)
        finished = await run_obj.wait()
    added = nbwriter.append_run(nb, run_obj.request, run_obj.subtasks, run_obj.bus.history)
    nbwriter.write(nb, notebook)
    console.print(f"wrote {added} code cell(s) to {notebook}")
    _summary(run_obj, finished)
    return 0 if finished.status == "succeeded" else 1
