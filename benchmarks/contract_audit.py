"""The contract audit: derive each request's contract as a run does and check it on a correct and
on broken deliverables — the dev tasks as written, their rewordings, and the project's own corpus.

    .venv/bin/python benchmarks/contract_audit.py [--suite ../shared/bench/geoagentbench-dev]
        [--rewordings ../shared/bench/paraphrases/dev.json] [--only dev,rewording,corpus,heldout,...] [--details]
        [--reader rules|model|both|proposals] [--model local:qwen2.5-coder-1.5b] [--model-unsure]
        [--cache benchmarks/data/reading_cache.json]

Prints one table (sound requests, broken deliverables caught by sound requirements, gating
requirements per request) and, with ``--details``, each wrong requirement with what the correct
deliverable showed and each broken deliverable no sound requirement caught. No kernel; with
``--reader model`` or ``both`` the model reads each request once (``contract.reading``), its answers
kept in ``--cache`` so a rerun needs no model; ``--reader proposals``: the older model path
(``contract.proposed``: free sentences the rules read) beside the rules; ``--model-unsure``: what
the reading adds is shown, never gating (so it counts in neither figure).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def corpus_cases():
    from geoagent_ext.bench.contract_audit import corpus_case
    from tests.contract.corpus import ENTRIES, group_of, input_path

    return [corpus_case(entry, lambda spec: input_path(spec, ROOT), group_of(entry)) for entry in ENTRIES]


def main() -> None:
    warnings.filterwarnings("ignore")
    from geoagent_ext.bench.contract_audit import READERS, Auditor, CachedModelReader, details, dev_cases, table

    parser = argparse.ArgumentParser()
    shared = ROOT.parent / "shared" / "bench"
    parser.add_argument("--suite", type=Path, default=shared / "geoagentbench-dev")
    parser.add_argument("--rewordings", type=Path, default=shared / "paraphrases" / "dev.json")
    parser.add_argument("--only", default="dev,rewording,corpus,heldout,heldout2,heldout3,heldout4,heldout5,heldout6")
    parser.add_argument("--details", action="store_true")
    parser.add_argument("--reader", choices=READERS, default="rules")
    parser.add_argument("--model", default="local:qwen2.5-coder-1.5b")
    parser.add_argument("--model-unsure", action="store_true")
    parser.add_argument("--cache", type=Path, default=ROOT / "benchmarks" / "data" / "reading_cache.json")
    args = parser.parse_args()
    groups = set(args.only.split(","))
    cases = [c for c in dev_cases(args.suite, args.rewordings) if c.group in groups]
    cases += [c for c in corpus_cases() if c.group in groups]
    read = (
        CachedModelReader(args.model, args.cache, proposals=args.reader == "proposals")
        if args.reader != "rules"
        else None
    )
    auditor = Auditor(args.reader, read, model_gates=not args.model_unsure)
    results = [auditor.audit(c) for c in cases]
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "geoagent_ext"], cwd=ROOT, capture_output=True, text=True
    ).stdout
    print(f"Contract audit at {commit}{' (with uncommitted changes)' if dirty.strip() else ''}\n")
    if read is not None:
        reader = f"{args.reader}, {args.model}" + (", the model's requirements unsure" if args.model_unsure else "")
        print(f"Reader: {reader}")
        calls = read.seconds or read.cached_seconds
        if calls:
            print(
                f"Model calls: {len(read.seconds)} made now, {len(read.cached_seconds)} from {args.cache.name}; "
                f"{sum(calls) / len(calls):.1f} s per call ({'now' if read.seconds else 'as cached'})\n"
            )
    print(table(results))
    if args.details:
        print()
        print(details(results))


if __name__ == "__main__":
    main()
