"""``jupyter geoagent replay RUN.jsonl``: show a finished (or crashed) run again from its event log.

The log is what the panel replays when it reopens; this is the same for a
terminal, e.g. to read a batch or benchmark run afterwards.
"""

from __future__ import annotations

from pathlib import Path

from ..agent.events import Finished, RunStarted
from ..agent.runlog import read_events
from .display import console, describe, summary


def register(subparsers) -> None:
    parser = subparsers.add_parser("replay", help="Show a run again from its event log (.jsonl).")
    parser.add_argument("log", help="A run's event log, e.g. .geoagent/runs/<run id>.jsonl")
    parser.add_argument(
        "--code", action="store_true", help="Also print the code of every attempt (and of each chosen search node)."
    )
    parser.set_defaults(func=run)


def run(args) -> int:
    path = Path(args.log)
    if not path.is_file():
        console.print(f"[red]No run log at {path}[/]")
        return 2
    started: RunStarted | None = None
    finished: Finished | None = None
    count = 0
    for event in read_events(path):
        count += 1
        if isinstance(event, RunStarted):
            started = event
            console.print(f"[bold]Request[/] {event.request}\n[dim]model {event.model}, strategy {event.strategy}[/]")
        elif isinstance(event, Finished):
            finished = event
        describe(event)
        if args.code and (event.type == "code_proposed" or (event.type == "search_node" and event.status == "chosen")):
            console.print(event.code, markup=False, style="dim")
    if count == 0:
        console.print(f"[red]{path} holds no GeoAgent events[/]")
        return 2
    if finished is None:
        console.print("[yellow]The log ends before the run finished (still running, or the process stopped).[/]")
        return 1
    summary(finished.run_id, started.request if started else "", finished)
    return 0
