"""``jupyter geoagent index build|query|lookup``: build the API knowledge index, inspect retrieval."""

from __future__ import annotations

import json
import sys

from .common import settings_from_args


def register(subparsers) -> None:
    parser = subparsers.add_parser("index", help="Build or query the geospatial API knowledge index.")
    sub = parser.add_subparsers(dest="index_command", metavar="ACTION")

    build = sub.add_parser(
        "build", help="Harvest installed libraries + the curated corpus (incremental: only what changed)."
    )
    build.add_argument(
        "--libraries", default=None, help="Comma-separated libraries to (re)harvest (default: all known)."
    )
    build.add_argument("--rebuild", action="store_true", help="Drop the index and build anew.")
    build.set_defaults(func=run_build)

    query = sub.add_parser("query", help="Show what retrieval returns for a text.")
    query.add_argument("text")
    query.add_argument("--libraries", default=None, help="Comma-separated library filter.")
    query.add_argument("-k", type=int, default=5)
    query.add_argument("--method", choices=["hybrid", "embedding", "lexical"], default="hybrid")
    query.add_argument("--full", action="store_true", help="Print each record's whole text.")
    query.set_defaults(func=run_query)

    lookup = sub.add_parser("lookup", help="Print the record of one qualified name.")
    lookup.add_argument("name")
    lookup.set_defaults(func=run_lookup)

    parser.set_defaults(func=lambda args: parser.print_help() or 2)


def _open(args, auto_build: bool):
    from ..rag import KnowledgeIndex

    return KnowledgeIndex.open(settings_from_args(args), auto_build=auto_build)


def run_build(args) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from ..rag import IndexUnavailable

    console = Console(stderr=True)
    index = _open(args, auto_build=False)
    tasks: dict[str, int] = {}
    with Progress(
        TextColumn("{task.description:<28}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=False,
    ) as bar:

        def progress(phase: str, label: str, done: int, total: int) -> None:
            key = "harvest" if phase == "harvest" else f"{phase}:{label}"
            if phase == "done":
                return
            if key not in tasks:
                title = "harvesting libraries" if phase == "harvest" else f"embedding {label}"
                tasks[key] = bar.add_task(title, total=max(total, 1))
            bar.update(tasks[key], completed=done, total=max(total, 1))

        try:
            report = index.build(libraries=args.libraries, rebuild=args.rebuild, progress=progress)
        except (IndexUnavailable, ValueError) as exc:
            console.print(f"[red]index build failed:[/red] {exc}")
            return 1
    if report.reason:
        console.print(f"full build: {report.reason}")
    console.print(
        f"index at {report.index_dir}: {report.records} records "
        f"({report.added} added, {report.removed} removed) in {report.seconds:.1f} s"
    )
    for name, version in sorted(report.libraries.items()):
        state = "rebuilt" if name in report.rebuilt else "unchanged"
        console.print(f"  {name:<16} {version:<12} {state}")
    for name, reason in report.failed.items():
        console.print(f"  [red]{name}: {reason}[/red]")
    if report.warnings:
        console.print(f"  {len(report.warnings)} submodules skipped (optional dependencies)")
    return 1 if report.failed and not report.libraries else 0


def run_query(args) -> int:
    from ..rag import IndexUnavailable

    index = _open(args, auto_build=False)
    try:
        results = index.retrieve(args.text, libraries=args.libraries, k=args.k, method=args.method)
    except IndexUnavailable as exc:
        print(f"index not ready: {exc}", file=sys.stderr)
        return 1
    for rank, record in enumerate(results, 1):
        print(
            f"{rank}. [{record.kind}] {record.qualified_name}{record.signature}  "
            f"({record.library} {record.version}, score {record.score:.4f})"
        )
        if args.full:
            print("   " + record.text.replace("\n", "\n   "))
        elif record.summary:
            print(f"   {record.summary[:160]}")
        if record.aliases:
            print(f"   also: {', '.join(record.aliases)}")
    return 0


def run_lookup(args) -> int:
    from ..rag import IndexUnavailable

    index = _open(args, auto_build=False)
    try:
        record = index.lookup(args.name)
    except IndexUnavailable as exc:
        print(f"index not ready: {exc}", file=sys.stderr)
        return 1
    if record is None:
        print(f"{args.name}: not in the index", file=sys.stderr)
        return 1
    print(json.dumps(record.model_dump(exclude={"score", "aliases"}), indent=2))
    return 0
