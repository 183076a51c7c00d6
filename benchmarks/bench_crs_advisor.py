"""CRS advisor benchmark: how long the in-kernel helper takes to advise on one layer.

Runs on its own, in this process (the helper is loaded as it is in a kernel):

    .venv/bin/python benchmarks/bench_crs_advisor.py [--repeats 20]

Eight small layers (Paris, London, Tokyo, Cape Town, Svalbard, Fiji across the antimeridian,
Antarctica, New York; some in lon/lat, some in their own projected CRS) are advised on for the
purposes area, distance, display, official and same, through ``advise_layer`` on the kernel
variable (bounds read, extent transformed, candidates filtered, ranked and explained).

Figures, printed last, one per line:

* ``startup_ms``: the first call of a fresh helper (reads the EPSG catalogue and datum dates once).
* ``first_region_ms_p50``: the first call for each new region after that (builds the candidates'
  CRS objects and projections, cached from then on).
* ``advisor_p50_ms`` / ``advisor_p90_ms``: per layer and purpose, after a warm-up.
* ``file_geojson_p50_ms``: ``advise_layer`` on a GeoJSON path (pyogrio.read_info, no full read).

Target: advisor_p50_ms < 50.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from geoagent_ext.kernel.inkernel import load  # noqa: E402
from tests.kernel.crs_regions import REGIONS, lonlat_layer  # noqa: E402

PURPOSES = ("area", "distance", "display", "official", "same")


def ms(fn):
    t = time.perf_counter()
    out = fn()
    return (time.perf_counter() - t) * 1000.0, out


def pct(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=20)
    args = ap.parse_args()

    helper = load()
    ns = helper._ns()
    for name, (bounds, crs) in REGIONS.items():
        ns[f"bench_{name}"] = lonlat_layer(bounds, crs)
    # A region not in the set pays the one-off start-up (EPSG catalogue, datum dates).
    ns["bench_warm"] = lonlat_layer((-3.75, 40.38, -3.65, 40.45), "EPSG:4326")  # Madrid
    startup, _ = ms(lambda: helper.advise_layer("bench_warm", "distance"))

    first = []
    for name in REGIONS:
        t, out = ms(lambda name=name: [helper.advise_layer(f"bench_{name}", p) for p in PURPOSES])
        assert all(isinstance(o, list) for o in out), out
        first.append(t / len(PURPOSES))
        print(
            f"{name:11s} first calls {t / len(PURPOSES):6.1f} ms/purpose; "
            + "; ".join(f"{p}: EPSG:{o[0]['epsg']}" for p, o in zip(PURPOSES, out))
        )

    times = []
    for _ in range(args.repeats):
        for name in REGIONS:
            for p in PURPOSES:
                t, _ = ms(lambda name=name, p=p: helper.advise_layer(f"bench_{name}", p))
                times.append(t)

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "paris.geojson")
        ns["bench_paris"].to_crs(4326).to_file(path)
        helper.advise_layer(path, "distance")
        files = [ms(lambda: helper.advise_layer(path, "distance"))[0] for _ in range(args.repeats)]

    print(f"{len(times)} warm calls: mean {statistics.mean(times):.2f} ms, max {max(times):.2f} ms")
    print(f"startup_ms={startup:.1f}")
    print(f"first_region_ms_p50={statistics.median(first):.1f}")
    print(f"advisor_p50_ms={pct(times, 0.5):.2f}")
    print(f"advisor_p90_ms={pct(times, 0.9):.2f}")
    print(f"file_geojson_p50_ms={statistics.median(files):.2f}")


if __name__ == "__main__":
    main()
