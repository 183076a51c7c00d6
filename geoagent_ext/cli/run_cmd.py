"""``jupyter geoagent run "request" --notebook nb.ipynb``: a headless agent run.

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

from ..agent import notebook as nbwriter
from ..agent.events import Event
from ..agent.run import CONTRACT_REVIEW, HumanAction, Run
from ..contract import RequirementEdit
from ..services import open_headless_services, run_options
from .common import settings_from_args
from .display import console, describe, summary
from .editors import open_in


def register(subparsers) -> None:
    parser = subparsers.add_parser("run", help="Run the agent on a request, headless, into a notebook.")
    parser.add_argument("request", nargs="?", help="What you want, in plain words.")
    parser.add_argument(
        "--notebook", "-n", required=True, help="Notebook to append the result to (created if missing)."
    )
    parser.add_argument(
        "--undo",
        metavar="RUN_ID",
        help="Instead of running: take the cells of run RUN_ID out of the notebook "
        "(only while no editor has it open; in JupyterLab use the panel's Reject all).",
    )
    parser.add_argument("--model", "-m", help="provider:model (default: the configured model).")
    parser.add_argument(
        "--strategy",
        choices=["loop", "mcts", "auto"],
        default="loop",
        help="loop: step by step with repairs; mcts: tree search for every step; "
        "auto: the loop, and the search for a step where the loop stalls.",
    )
    parser.add_argument(
        "--search-steps", type=int, help="With --strategy auto: steps per run the search may take over (default 2)."
    )
    parser.add_argument("--max-attempts", type=int, help="Attempts per step before asking for help.")
    parser.add_argument(
        "--on-stuck",
        choices=["ask", "stop", "skip"],
        help="What to do when a step is stuck (default: ask in a terminal, else stop).",
    )
    parser.add_argument("--no-replay", action="store_true", help="Do not run the notebook's existing code cells first.")
    parser.add_argument("--no-index", action="store_true", help="Run without the API knowledge index.")
    parser.add_argument("--approve", action="store_true", help="Ask before each step's code runs.")
    parser.set_defaults(func=run)


def _edit_in_editor(code: str) -> str:
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    with tempfile.NamedTemporaryFile("w+", suffix=".py", delete=False) as fh:
        fh.write(code)
        path = fh.name
    subprocess.call([editor, path])
    text = Path(path).read_text()
    os.unlink(path)
    return text


def _requirement_edits(text: str, contract) -> list[RequirementEdit]:
    """'<output>: <requirement>' lines back into edits; an unchanged line keeps its requirement."""
    known = {(r.output, r.text): r.id for r in contract.requirements}
    outputs = [o.path for o in contract.outputs]
    edits = []
    for line in (raw.strip() for raw in text.splitlines()):
        output, _, requirement = line.partition(": ")
        if output not in outputs and len(outputs) == 1 and line:
            output, requirement = outputs[0], line
        if output in outputs and requirement.strip():
            edits.append(
                RequirementEdit(id=known.get((output, requirement.strip()), ""), output=output, text=requirement)
            )
    return edits


async def _ask_human(run: Run, event: Event) -> None:
    """Terminal prompt for a stuck step or an approval (runs beside the agent task)."""
    loop = asyncio.get_running_loop()
    if event.type == "contract_stated":
        console.print("Edit the requirements: one per line, '<output>: <requirement>'; delete a line to drop it.")
        answer = (await loop.run_in_executor(None, input, "Use them as they are? [Y/e(dit)] ")).strip().lower()
        if answer.startswith("e"):
            lines = [f"{r.output}: {r.text}" for r in event.contract.requirements]
            edited = await loop.run_in_executor(None, _edit_in_editor, "\n".join(lines) + "\n")
            run.submit(
                HumanAction(
                    kind="contract", subtask_id=CONTRACT_REVIEW, requirements=_requirement_edits(edited, event.contract)
                )
            )
        else:
            run.submit(HumanAction(kind="approve", subtask_id=CONTRACT_REVIEW))
        return
    if event.type == "approval_requested":
        console.print(f"[bold]Step code awaiting approval:[/]\n{event.code}", markup=False)
        answer = (await loop.run_in_executor(None, input, "Run it? [Y/n/reason to reject] ")).strip()
        if answer.lower() in ("", "y", "yes"):
            run.submit(HumanAction(kind="approve", subtask_id=event.subtask_id))
        else:
            run.submit(
                HumanAction(
                    kind="reject", subtask_id=event.subtask_id, text="" if answer.lower() in ("n", "no") else answer
                )
            )
        return
    console.print(f"[bold]Last attempt:[/]\n{event.code}", markup=False)
    while True:
        choice = (
            (await loop.run_in_executor(None, input, "[e]dit code, give a [h]int, [s]kip step, [q]uit run? "))
            .strip()
            .lower()
        )
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


def _refuse_open(notebook: Path) -> bool:
    """True (and says so) when a Jupyter server has the notebook open: writing the file behind its
    editor would be overwritten by the editor's next save, or overwrite the user's edits."""
    server = open_in(notebook)
    if server:
        console.print(
            f"[red]{notebook.name} is open in the Jupyter server at {server}: close it there first "
            "(or use the GeoAgent panel, which writes through the editor).[/]"
        )
    return bool(server)


def undo(notebook: Path, run_id: str) -> int:
    """``--undo RUN_ID``: remove the cells that run added to the notebook file."""
    if not notebook.exists():
        console.print(f"[red]{notebook} does not exist[/]")
        return 2
    if _refuse_open(notebook):
        return 3
    nb = nbwriter.load_or_new(notebook)
    removed = nbwriter.remove_run(nb, run_id)
    if not removed:
        console.print(f"[yellow]{notebook.name} holds no cells of run {run_id}[/]")
        return 1
    nbwriter.write(nb, notebook)
    console.print(f"removed {removed} cell(s) of run {run_id} from {notebook}")
    return 0


async def run(args) -> int:
    settings = settings_from_args(args)
    notebook = Path(args.notebook).resolve()
    if notebook.suffix != ".ipynb":
        console.print(f"[red]--notebook must be an .ipynb file, got {notebook.name}[/]")
        return 2
    if args.undo:
        return undo(notebook, args.undo)
    if not args.request:
        console.print('[red]say what you want: jupyter geoagent run "request" --notebook nb.ipynb[/]')
        return 2
    if _refuse_open(notebook):
        return 3
    notebook.parent.mkdir(parents=True, exist_ok=True)
    interactive = sys.stdin.isatty()
    on_stuck = args.on_stuck or ("ask" if interactive else "stop")
    options = run_options(
        settings,
        strategy=args.strategy,
        search_steps=args.search_steps,
        max_attempts=args.max_attempts or None,
        approval_mode=args.approve or None,
        on_stuck="wait" if on_stuck == "ask" else on_stuck,
    )
    if options.approval_mode and not interactive:
        console.print("[red]--approve needs a terminal to answer in[/]")
        return 2
    nb = nbwriter.load_or_new(notebook)
    replay = [] if args.no_replay else [c.source for c in nb.cells if c.cell_type == "code" and c.source.strip()]
    async with open_headless_services(
        settings,
        cwd=notebook.parent,
        model=args.model,
        use_index=not args.no_index,
        warn=lambda message: console.print(f"[yellow]{message}[/]"),
    ) as session:
        for source in replay:
            result = await session.kernel.execute(source, timeout=settings.execute_timeout)
            if result.status != "ok":
                why = result.error.message if result.error else result.status
                console.print(f"[yellow]A notebook cell failed while replaying ({why}); continuing[/]")
        run_obj = session.new_run(
            args.request, options=options, log_dir=notebook.parent / ".geoagent" / "runs", notebook=str(notebook)
        )
        pending: set[asyncio.Task] = set()

        def on_event(event: Event) -> None:
            describe(event)
            review = event.type == "contract_stated" and event.awaiting_review
            if (
                interactive
                and event.type in ("needs_human", "approval_requested")
                and run_obj.options.on_stuck == "wait"
                or event.type == "approval_requested"
                or review
            ):
                task = asyncio.ensure_future(_ask_human(run_obj, event))
                pending.add(task)
                task.add_done_callback(pending.discard)

        run_obj.bus.add_listener(on_event)
        finished = await run_obj.wait()
    if _refuse_open(notebook):  # opened while the run worked: its cells stay in the run log
        where = run_obj.log.path if run_obj.log else "the run log"
        console.print(f"the run's code is in its log: jupyter geoagent replay {where}")
        return 3
    nb = nbwriter.load_or_new(notebook)  # as it is now, not as it was before the run
    added = nbwriter.append_run(
        nb, run_obj.request, run_obj.subtasks, run_obj.bus.history, run_obj.id, full_outputs=run_obj.full_outputs
    )
    nbwriter.write(nb, notebook)
    console.print(f"wrote {added} code cell(s) to {notebook}")
    summary(run_obj.id, run_obj.request, finished)
    return 0 if finished.status == "succeeded" else 1
