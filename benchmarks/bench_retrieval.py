"""Retrieval benchmark for the API knowledge index.

Builds the full default index in a temporary directory (timed: ``build_s``),
then runs the labelled queries of ``benchmarks/data/retrieval_queries.jsonl``
(analyst phrasing -> API names a correct solution uses) through hybrid,
embedding-only and lexical-only retrieval.

A result *covers* a label group (alternatives separated by ``|``) when its
qualified name or one of its folded aliases is in the group, or when it is a
recipe whose ``apis`` list names one of them: a recipe showing the call is as
useful to the code generator as the API record. ``*_api_only`` figures repeat
the measurement with recipes excluded.

Recall@3 = covered groups in the top 3 / min(groups, 3), averaged over queries.
MRR = 1 / rank of the first covering result within the top 10.

Usage: python benchmarks/bench_retrieval.py [--index-dir DIR] [--reuse]
The figures are printed last, one per line, as name=value.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from geoagent_ext.config import GeoAgentSettings  # noqa: E402
from geoagent_ext.rag import KnowledgeIndex  # noqa: E402

QUERIES = ROOT / "benchmarks" / "data" / "retrieval_queries.jsonl"
API_KINDS = ("function", "class", "method")


def _cpu_seconds() -> float:
    """User + system CPU of this process and its finished children (the harvesters)."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def load_queries(path: Path = QUERIES) -> list[dict]:
    queries = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    for q in queries:
        q["groups"] = [set(group.split("|")) for group in q["apis"]]
    return queries


def covers(record, group: set[str]) -> bool:
    if record.qualified_name in group or group.intersection(record.aliases):
        return True
    return record.kind == "recipe" and bool(group.intersection(record.apis))


def score(results, groups) -> tuple[float, float]:
    top3 = results[:3]
    hit = sum(1 for g in groups if any(covers(r, g) for r in top3))
    recall = hit / min(len(groups), 3)
    rr = 0.0
    for rank, record in enumerate(results[:10], 1):
        if any(covers(record, g) for g in groups):
            rr = 1.0 / rank
            break
    return recall, rr


def evaluate(index, queries, method: str, kinds=None) -> dict:
    recalls, rrs, per_lib = [], [], defaultdict(list)
    kwargs = {"kinds": kinds} if kinds else {}
    for q in queries:
        results = index.retrieve(q["query"], k=10, method=method, **kwargs)
        recall, rr = score(results, q["groups"])
        recalls.append(recall)
        rrs.append(rr)
        per_lib[q["libraries"][0]].append(recall)
    return {
        "recall3": statistics.mean(recalls),
        "mrr": statistics.mean(rrs),
        "per_library": {k: statistics.mean(v) for k, v in sorted(per_lib.items())},
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--index-dir", help="Build here instead of a temporary directory.")
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="Reuse an existing index in --index-dir (build_s then measures an incremental no-op build).",
    )
    parser.add_argument("--verbose", action="store_true", help="Print each missed query.")
    args = parser.parse_args(argv)

    tmp = None
    if args.index_dir:
        index_dir = args.index_dir
    else:
        tmp = tempfile.TemporaryDirectory(prefix="geoagent-bench-")
        index_dir = tmp.name
    settings = GeoAgentSettings(index_dir=index_dir)
    index = KnowledgeIndex.open(settings)

    cpu_before = _cpu_seconds()
    started = time.perf_counter()
    report = index.build(rebuild=not args.reuse)
    build_s = time.perf_counter() - started
    build_cpu_s = _cpu_seconds() - cpu_before
    print(
        f"built {report.records} records from {len(report.libraries)} libraries "
        f"in {build_s:.1f} s ({build_cpu_s:.0f} CPU s incl. harvest processes, "
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores); "
        f"failed: {report.failed or 'none'}"
    )

    queries = load_queries()
    names = set(index.names())
    unknown = sorted({n for q in queries for g in q["groups"] for n in g if n not in names})
    if unknown:
        print(f"label names not in the index ({len(unknown)}): {', '.join(unknown)}")
    print(f"{len(queries)} queries over {len({q['libraries'][0] for q in queries})} libraries")

    index.retrieve("warm up the embedding session", k=3)
    latencies = []
    for q in queries:
        t0 = time.perf_counter()
        index.retrieve(q["query"], k=5)
        latencies.append((time.perf_counter() - t0) * 1000)

    results = {m: evaluate(index, queries, m) for m in ("hybrid", "embedding", "lexical")}
    api_only = {m: evaluate(index, queries, m, kinds=API_KINDS) for m in ("hybrid", "embedding", "lexical")}
    print("per-library recall@3 (hybrid):")
    for lib, value in results["hybrid"]["per_library"].items():
        print(f"  {lib:<15} {value:.3f}")
    if args.verbose:
        for q in queries:
            got = index.retrieve(q["query"], k=3)
            recall, _ = score(got, q["groups"])
            if recall < 1:
                print(f"MISS {recall:.2f} {q['query']!r}: want {q['apis']} got {[r.qualified_name for r in got]}")
    for method in ("hybrid", "embedding", "lexical"):
        print(f"recall3_{method}_api_only={api_only[method]['recall3']:.3f}")
    print(f"mrr_embedding={results['embedding']['mrr']:.3f}")
    print(f"mrr_lexical={results['lexical']['mrr']:.3f}")
    print(f"query_p95_ms={statistics.quantiles(latencies, n=20)[18]:.1f}")
    print(f"records={report.records}")
    print(f"build_cpu_s={build_cpu_s:.0f}")
    print(f"load_average={os.getloadavg()[0]:.1f}")
    # The figures, last, one per line.
    print(f"recall3_hybrid={results['hybrid']['recall3']:.3f}")
    print(f"recall3_embedding={results['embedding']['recall3']:.3f}")
    print(f"recall3_lexical={results['lexical']['recall3']:.3f}")
    print(f"mrr_hybrid={results['hybrid']['mrr']:.3f}")
    print(f"query_p50_ms={statistics.median(latencies):.1f}")
    print(f"build_s={build_s:.1f}")
    index.close()
    if tmp is not None:
        tmp.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
