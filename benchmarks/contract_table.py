"""Per-task table of `jupyter geoagent bench` result folders side by side (markdown), with each
folder's strict mean, passes, false successes, timeouts, LLM calls and seconds.

    python3 benchmarks/contract_table.py at-COMMIT/on at-COMMIT/off [--suite ../shared/bench/geoagentbench-dev]

Reads ``<folder>/tasks/loop/*.json`` (what the harness keeps per finished task, so a resumed run
is covered whole, unlike its ``report.md``, which covers the last invocation). With ``--suite``,
tasks of the suite a folder has not run yet are listed as such. Only the standard library.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def results(folder: Path, mode: str = "loop") -> dict[str, dict]:
    return {
        r["task_id"]: r for r in (json.loads(p.read_text()) for p in sorted((folder / "tasks" / mode).glob("*.json")))
    }


def false_success(r: dict) -> bool:
    return r["status"] == "succeeded" and not r["passed"]


def cell(r: dict | None) -> str:
    if r is None:
        return "not run yet"
    return (
        f"{r['score']:.2f}{' (pass)' if r['passed'] else ''}, {r['status']}"
        f"{' (**false success**)' if false_success(r) else ''}, {r['llm_calls']} calls, {r['wall_s']:.0f} s"
    )


def summary(rs: dict[str, dict]) -> str:
    if not rs:
        return "nothing yet"
    n = len(rs)
    return (
        f"{n} tasks: strict mean {sum(r['score'] for r in rs.values()) / n:.3f}, passes "
        f"{sum(r['passed'] for r in rs.values())}, false successes {sum(map(false_success, rs.values()))}, "
        f"timeouts {sum(r['status'] == 'timeout' for r in rs.values())}, {sum(r['llm_calls'] for r in rs.values())} "
        f"LLM calls, {sum(r['wall_s'] for r in rs.values()):.0f} s"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--suite", help="list the suite's tasks a folder has not run yet")
    ap.add_argument("--mode", default="loop")
    args = ap.parse_args()
    per_folder = [results(Path(f), args.mode) for f in args.folders]
    tasks = set().union(*per_folder)
    if args.suite:
        tasks |= {p.parent.name for p in Path(args.suite).glob("*/task.json")}
    print("| task | " + " | ".join(f"`{f}`" for f in args.folders) + " |")
    print("|---|" + "---|" * len(args.folders))
    for task in sorted(tasks):
        print(f"| {task} | " + " | ".join(cell(rs.get(task)) for rs in per_folder) + " |")
    print()
    for folder, rs in zip(args.folders, per_folder):
        print(f"- `{folder}`: {summary(rs)}")


if __name__ == "__main__":
    main()
