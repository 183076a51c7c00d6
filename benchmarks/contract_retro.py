"""The deliverable contract, checked after the fact on the deliverables a `jupyter geoagent bench` run left.

    .venv/bin/python benchmarks/contract_retro.py BENCH_OUT [--suite ../shared/bench/geoagentbench-dev] [--mode loop]

For each task of the run: the contract derived from its request (the rules only, as a run
derives it before planning) checked by the in-kernel checker on the files in
``BENCH_OUT/work/<mode>/<task>/`` beside the task's inputs; then whether the run's own verdict was a false success and
whether the contract would have caught it. No model and no repair: it says what the checks see
on the same files, not what a run with the contract would deliver.
Figures, printed last: ``false_successes``, ``caught_by_contract``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def contract_and_checks(helper, probes, task: dict, inputs: Path, deliverables: Path):
    """In a folder holding the task's inputs (as the run's was at its start): the contract derived
    from the request with what the run's probe reads of the inputs; then, with the run's
    deliverables beside them, the checker's answer."""
    from geoagent_ext.contract import check_payload, derive_contract

    cwd = os.getcwd()
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)
        try:
            for p in inputs.iterdir():
                shutil.copy(p, p.name)
            facts = probes["input_facts"](sorted(p.name for p in inputs.iterdir()))
            contract = derive_contract(task["instruction"], [o["name"] for o in task["expected_outputs"]], facts)
            for p in deliverables.iterdir() if deliverables.is_dir() else []:
                shutil.copy(p, p.name)
            return contract, helper.check_contract(check_payload(contract))
        finally:
            os.chdir(cwd)


def main() -> None:
    warnings.filterwarnings("ignore")
    from geoagent_ext.agent.probes import local_probes
    from geoagent_ext.kernel import inkernel

    parser = argparse.ArgumentParser()
    parser.add_argument("bench_out")
    parser.add_argument("--suite", default=str(ROOT.parent / "shared" / "bench" / "geoagentbench-dev"))
    parser.add_argument("--mode", default="loop")
    args = parser.parse_args()
    helper, probes = inkernel.load(), local_probes()
    suite, out = Path(args.suite), Path(args.bench_out).resolve()
    false_successes = caught = 0
    for path in sorted((out / "tasks" / args.mode).glob("*.json")):
        result = json.loads(path.read_text())
        task = json.loads((suite / result["task_id"] / "task.json").read_text())
        contract, checks = contract_and_checks(
            helper, probes, task, suite / result["task_id"] / "inputs", out / "work" / args.mode / result["task_id"]
        )
        text = {r.id: r.text for r in contract.requirements}
        failed = [c for c in checks if not c["passed"]]
        false_success = result["status"] == "succeeded" and result["score"] < 1
        false_successes += false_success
        caught += false_success and bool(failed)
        print(
            f"{result['task_id']}: said {result['status']}, score {result['score']:.3f}, "
            f"contract {len(checks) - len(failed)}/{len(checks)} hold" + (" (false success)" if false_success else "")
        )
        for c in failed[:4]:
            print(f"    x {text[c['id']][:80]} -- {c['observed'][:100]}")
    print(f"false_successes={false_successes}")
    print(f"caught_by_contract={caught}")


if __name__ == "__main__":
    main()
