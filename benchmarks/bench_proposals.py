"""What the model proposes beyond the rules' contract, and what the rules keep, per suite task.

    .venv/bin/python benchmarks/bench_proposals.py [--suite ../shared/bench/geoagentbench-dev]
        [--model local:qwen2.5-coder-1.5b] [--out proposals.json]

For each task: the contract the rules derive from its request (with what the run's probe reads of
its inputs), the one proposer call a run makes before planning (``Planner.propose_requirements``),
and ``accept_proposals``' verdict. With the reference deliverable beside the inputs, every kept
requirement is also checked on it: a kept requirement that fails on the reference is a false
alarm the proposals would add. No plan, no code: one model call per task.
Figures, printed last: ``tasks``, ``proposed``, ``kept``, ``kept_failing_on_reference``, ``seconds_per_call``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def in_copy(folder: Path, fn):
    """``fn()`` in a temporary folder holding the task's inputs, then its reference outputs."""
    cwd = os.getcwd()
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)
        try:
            for p in (folder / "inputs").iterdir():
                shutil.copy(p, p.name)
            return fn(folder)
        finally:
            os.chdir(cwd)


async def main() -> None:
    warnings.filterwarnings("ignore")
    from geoagent_ext.agent.planner import Planner
    from geoagent_ext.agent.probes import local_probes
    from geoagent_ext.config import GeoAgentSettings
    from geoagent_ext.contract import Contract, check_payload, derive_contract
    from geoagent_ext.contract.proposed import accept_proposals
    from geoagent_ext.kernel import inkernel
    from geoagent_ext.llm.client import LLMClient

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--suite", default=str(ROOT.parent / "shared/bench/geoagentbench-dev"))
    ap.add_argument("--model", default="local:qwen2.5-coder-1.5b")
    ap.add_argument("--out", help="write the per-task answers here (JSON)")
    args = ap.parse_args()
    settings = GeoAgentSettings()
    settings.model = args.model
    llm = LLMClient.from_settings(settings)
    helper, probes = inkernel.load(), local_probes()
    rows, seconds = [], []
    for folder in sorted(p for p in Path(args.suite).iterdir() if (p / "task.json").exists()):
        task = json.loads((folder / "task.json").read_text())
        outputs = [o["name"] for o in task["expected_outputs"]]

        def derive(folder: Path, task=task, outputs=outputs) -> tuple[Contract, dict]:
            facts = probes["input_facts"](sorted(p.name for p in (folder / "inputs").iterdir()))
            return derive_contract(task["instruction"], outputs, facts), facts

        contract, facts = in_copy(folder, derive)
        started = time.perf_counter()
        proposals = await Planner(llm).propose_requirements(task["instruction"], outputs)
        seconds.append(time.perf_counter() - started)
        kept, dropped = accept_proposals(proposals, task["instruction"], contract, facts)

        def check_on_reference(folder: Path, contract=contract, kept=kept) -> list[dict]:
            for p in (folder / "reference" / "outputs").iterdir():
                shutil.copy(p, p.name)
            only_kept = Contract(outputs=contract.outputs, requirements=kept)
            return helper.check_contract(check_payload(only_kept)) if kept else []

        failing = [r for r in in_copy(folder, check_on_reference) if not r["passed"]]
        rows.append(
            {
                "task": folder.name,
                "proposed": [f"{o}: {s}" for o, s in proposals],
                "kept": [f"{r.output}: {r.text}" for r in kept],
                "dropped": [f"{s} ({w})" for s, w in dropped],
                "kept_failing_on_reference": failing,
                "seconds": round(seconds[-1], 1),
            }
        )
        print(
            f"{folder.name}: {len(proposals)} proposed, {len(kept)} kept, {len(failing)} failing on the reference, "
            f"{seconds[-1]:.1f} s"
        )
        for line in rows[-1]["kept"]:
            print(f"  kept: {line}")
        for line in rows[-1]["dropped"]:
            print(f"  dropped: {line}")
    if args.out:
        Path(args.out).write_text(json.dumps(rows, indent=1))
    print(f"tasks={len(rows)}")
    print(f"proposed={sum(len(r['proposed']) for r in rows)}")
    print(f"kept={sum(len(r['kept']) for r in rows)}")
    print(f"kept_failing_on_reference={sum(len(r['kept_failing_on_reference']) for r in rows)}")
    print(f"seconds_per_call={sum(seconds) / max(1, len(seconds)):.1f}")


if __name__ == "__main__":
    asyncio.run(main())
