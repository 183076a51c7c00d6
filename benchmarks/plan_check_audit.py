"""What the plan checks would change in plans a model really wrote, read from run logs.

    .venv/bin/python benchmarks/plan_check_audit.py docs/benchmarks/contract/at-d4686b6/on/logs/loop/*.jsonl \
        [--data-dir ../shared/bench/geoagentbench-dev]

For each run log: its request, its contract (the ``contract_stated`` event) and its first plan
(``planned``), then every step ``contract_conflicts`` and ``idle_steps`` would drop or limit, and
why. The data files are those under ``--data-dir`` (``*/inputs/``) whose names or stems the request
writes. No model, no kernel: a way to read the checks against real plans for wrong drops.
Then the step that writes an output and is told the column requirements no step names
(``uncovered_requirements``, on the plan without the dropped steps), and the loops spread over
steps that become one step (``loop_bodies``). Figures, printed last: ``plans``, ``steps``,
``dropped``, ``limited``, ``told``, ``folded`` (steps folded into a loop step).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from geoagent_ext.agent.plan_check import contract_conflicts, idle_steps, loop_bodies, uncovered_requirements
from geoagent_ext.contract import Contract


def first_plan(log: Path) -> tuple[str, Contract | None, list[str]] | None:
    """(request, contract, first plan) of a run log, or None for a run that never planned."""
    events = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    request = events[0].get("request", "") if events else ""
    contract = next((Contract.model_validate(e["contract"]) for e in events if e["type"] == "contract_stated"), None)
    plan = next(([s["description"] for s in e["subtasks"]] for e in events if e["type"] == "planned"), None)
    return (request, contract, plan) if plan is not None else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("logs", nargs="+", type=Path)
    parser.add_argument("--data-dir", type=Path, default=None, help="folders whose inputs/ hold the data files")
    args = parser.parse_args()
    names = sorted({p.name for p in args.data_dir.glob("*/inputs/*")}) if args.data_dir else []
    totals = {"plans": 0, "steps": 0, "dropped": 0, "limited": 0, "told": 0, "folded": 0}
    for log in args.logs:
        read = first_plan(log)
        if read is None:
            continue
        request, contract, plan = read
        files = [n for n in names if n in request or n.rsplit(".", 1)[0] in request]
        changes = contract_conflicts(plan, contract) + [
            (i, None, why) for i, why in idle_steps(plan, request, contract, files)
        ]
        totals["plans"] += 1
        totals["steps"] += len(plan)
        print(f"== {log.name}: {request[:90]!r}")
        for index, text, why in sorted(changes, key=lambda c: c[0]):
            totals["dropped" if text is None else "limited"] += 1
            what = "dropped" if text is None else "limited"
            print(f"   step {index + 1} {what}: {plan[index][:100]}\n      why: {why[:160]}")
        dropped = {index for index, text, _ in changes if text is None}
        kept = [None if i in dropped else step for i, step in enumerate(plan)]
        for index, text, body in loop_bodies(plan):
            totals["folded"] += len(body)
            print(f"   steps {index + 1}-{body[-1] + 1} folded: {text[:220]}")
        for index, text, why in uncovered_requirements(kept, contract):
            totals["told"] += 1
            print(f"   step {index + 1} told: {text[:220]}\n      why: {why}")
    print(json.dumps(totals))


if __name__ == "__main__":
    main()
