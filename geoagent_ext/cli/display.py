"""Terminal rendering of run events, shared by ``jupyter geoagent run`` (live) and
``jupyter geoagent replay`` (from a log)."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from ..agent.events import Event, Finished
from ..llm.queue import place_text

console = Console(stderr=True, highlight=False)


def describe(event: Event) -> None:
    """One event as the terminal progress line(s); ignores event types it has no line for."""
    t = event.type
    if t == "progress":
        console.print(f"[dim]… {event.message}[/]")
    elif t == "model_waiting" and event.place:
        console.print(f"[dim]… {place_text(event.place)}[/]")
    elif t == "warning":
        console.print(f"[yellow]warning:[/] {escape(event.message)}")
    elif t == "planned":
        console.print("[bold]Plan[/]")
        for i, s in enumerate(event.subtasks, 1):
            console.print(
                f"  {i}. {escape(s.description)}" + (f" [dim]({escape(s.crs_advice)})[/]" if s.crs_advice else "")
            )
    elif t == "replanned":
        console.print(f"[yellow]Re-planned[/] ({event.reason})")
    elif t == "subtask_inserted":
        console.print(f"[yellow]+ inserted step[/] {event.subtask.description}")
    elif t == "crs_advised":
        console.print("[bold]CRS advice[/]")
        for line in event.lines:
            console.print("  " + line.lstrip("- "), markup=False)
    elif t == "contract_stated":
        who = " (as you left it)" if event.by == "user" else ""
        console.print(f"[bold]The output must satisfy{who}[/]")
        for r in event.contract.requirements:
            line = Text(f"  • {r.output}: {r.text}")
            line.append("" if r.checkable else " (not checkable)", style="dim")
            line.append(" (proposed by the model)" if r.origin == "model" else "", style="dim")
            console.print(line)
        for said in event.dropped:
            console.print(Text(f"  – not kept: {said}", style="dim"))
    elif t == "requirement_checked" and (not event.passed or event.subtask_id is None):
        mark = "[green]✓[/]" if event.passed else "[red]✗[/]"
        console.print(
            f"  {mark} {event.output}: {event.text}" + ("" if event.passed else f" [dim]— seen: {event.observed}[/]")
        )
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
        for unmet in event.unmet:
            console.print(f"    [red]still lacking:[/] {escape(unmet)}")
    elif t == "skipped":
        console.print(f"  [yellow]skipped[/] {event.reason}")


def summary(run_id: str, request: str, finished: Finished) -> None:
    """The closing table: counts and times from the finished event."""
    stats = finished.stats
    table = Table(title=f"GeoAgent run {run_id}: {finished.status}", show_header=False)
    for label, value in (
        [
            ("request", request),
            ("subtasks", f"{stats.solved}/{stats.subtasks} solved"),
            ("attempts", str(stats.attempts)),
            ("LLM calls", str(stats.llm_calls)),
            ("tokens in / out", f"{stats.tokens_in} / {stats.tokens_out}"),
            ("LLM time", f"{stats.llm_seconds:.1f} s"),
            ("total time", f"{stats.seconds:.1f} s"),
            ("message", finished.message),
        ]
        + [("not met", u) for u in finished.unmet]
        + [("not verified", n) for n in finished.not_verified]
    ):
        table.add_row(label, value)
    console.print(table)
