"""Index query latency: embedded chromadb (a local directory) vs a shared chroma server.

Builds the same small index twice, into a temporary directory and into a real
``chroma run`` server on loopback (tests/chroma_server.py), then times what a run's
step pays for API docs: ``KnowledgeIndex.retrieve`` (hybrid) over the labelled queries
of ``benchmarks/data/retrieval_queries.jsonl``, unfiltered (chroma's HNSW index answers)
and filtered by library (scored over the in-memory copy). For the server it also times
each query with the look at the server's manifest that retrieval makes at most every
``REMOTE_RECHECK_S`` (``remote_recheck``), and the first query (``open_s``: connect and
load every record with its vector).

Usage: python benchmarks/bench_index_remote.py [--libraries shapely,pystac-client] [--rounds 3]
Not a test: one run, figures printed last as name=value.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from geoagent_ext.config import GeoAgentSettings  # noqa: E402
from geoagent_ext.rag import KnowledgeIndex  # noqa: E402
from tests.chroma_server import chroma_server  # noqa: E402

QUERIES = ROOT / "benchmarks" / "data" / "retrieval_queries.jsonl"


def queries() -> list[str]:
    return [json.loads(line)["query"] for line in QUERIES.read_text().splitlines() if line.strip()]


def ms(values: list[float]) -> float:
    return round(statistics.median(values) * 1000, 2)


def measure(
    settings: GeoAgentSettings, libraries: list[str], texts: list[str], rounds: int, recheck: bool = False
) -> dict[str, float]:
    index = KnowledgeIndex.open(settings, libraries=libraries, auto_build=False)
    started = time.perf_counter()
    index.retrieve(texts[0])
    open_s = time.perf_counter() - started
    plain, filtered = [], []
    for _ in range(rounds):
        for text in texts:
            if recheck:
                index._checked = 0.0  # look at the server's manifest on this query
            t = time.perf_counter()
            warnings: list[str] = []
            index.retrieve(text, warnings=warnings)
            plain.append(time.perf_counter() - t)
            assert not warnings, warnings
            t = time.perf_counter()
            index.retrieve(text, libraries=libraries[:1])
            filtered.append(time.perf_counter() - t)
    index.close()
    return {"open_s": round(open_s, 2), "p50_ms": ms(plain), "p50_filtered_ms": ms(filtered), "queries": len(plain)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--libraries", default="shapely,pystac-client")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    libraries = args.libraries.split(",")
    texts = queries()
    with tempfile.TemporaryDirectory() as tmp:
        local = GeoAgentSettings(index_dir=os.path.join(tmp, "local"))
        with chroma_server(Path(tmp)) as chroma:
            remote = GeoAgentSettings(index_dir=os.path.join(tmp, "unused"), **chroma.settings)
            builds = {}
            for name, settings in (("local", local), ("remote", remote)):
                report = KnowledgeIndex.open(settings, libraries=libraries).build()
                assert not report.failed, report.failed
                builds[name] = (report.records, report.seconds)
                print(f"built {name}: {report.records} records in {report.seconds} s", file=sys.stderr)
            figures = {
                "local": measure(local, libraries, texts, args.rounds),
                "remote": measure(remote, libraries, texts, args.rounds),
                "remote_recheck": measure(remote, libraries, texts, args.rounds, recheck=True),
            }
    print(f"libraries={','.join(libraries)}")
    print(f"records={builds['local'][0]}")
    for name, (_, seconds) in builds.items():
        print(f"{name}_build_s={seconds}")
    for name, values in figures.items():
        for key, value in values.items():
            print(f"{name}_{key}={value}")


if __name__ == "__main__":
    main()
