"""Replay the committed code of a kept example-notebook run log and compare the deliverable.

``bench_example_request.py`` runs in a temporary folder that is gone afterwards; its kept log
(``--keep-log``) holds every committed step's code. This runs the notebook's set-up cell and those
steps, in order, on a fresh copy of ``examples/`` and compares the file with the worked solution
the same way (used when the comparison itself was fixed after a run).

Usage: python benchmarks/replay_example_log.py LOG [--notebook 01_vector_areas_per_district.ipynb]
       [--output outputs/district_summary.csv]
Not a test: one replay, figures printed last as name=value.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from pathlib import Path

from bench_example_request import code_cells, compare, prepared_copies


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("log", type=Path)
    ap.add_argument("--notebook", default="01_vector_areas_per_district.ipynb")
    ap.add_argument("--output", default="outputs/district_summary.csv")
    args = ap.parse_args()
    codes = [e["code"] for e in map(json.loads, args.log.open()) if e["type"] == "solved"]
    here = Path.cwd()
    with tempfile.TemporaryDirectory() as tmp:
        work, ref, nb = prepared_copies(Path(tmp), args.notebook)
        os.chdir(work)
        try:
            (work / args.output).parent.mkdir(parents=True, exist_ok=True)  # the run makes it before its first step
            namespace: dict = {}
            exec(code_cells(nb, "Set-up")[0].replace("%matplotlib inline", ""), namespace)
            for code in codes:
                exec(code, namespace)
        finally:
            os.chdir(here)
        matches, why = compare(work / args.output, ref / args.output)
    print(f"steps_replayed={len(codes)}")
    print(f"why={why}")
    print(f"matches_worked_solution={matches}")


if __name__ == "__main__":
    main()
