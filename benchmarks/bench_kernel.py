"""Kernel service benchmark: per-call overhead and fork-trial speed-up.

Runs on its own (starts its own kernels with jupyter_client):

    .venv/bin/python benchmarks/bench_kernel.py

Figures, printed last, one per line:

* ``overhead_ms``: median time of ``KernelService.execute("1+1")`` minus the
  median of a bare jupyter_client execute of ``1+1`` (send, wait for the reply
  and the IOPub idle) on the same kernel, measured alternately.
* ``trial_speedup``: evaluating 5 candidate cells after a state that takes
  ~2 s to build (imports + geometry work), one after the other, by replaying
  the history in a fresh kernel per candidate (the fallback) divided by the
  time of the fork trial sandbox.

Targets: overhead_ms <= 5, trial_speedup >= 20.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from jupyter_client.session import Session  # noqa: E402

from geoagent_ext.kernel import KernelService, local_kernel_manager, start_kernel  # noqa: E402

STATE_CELLS = [
    "import numpy as np\nimport geopandas as gpd\nimport shapely",
    "rng = np.random.default_rng(0)\n"
    "pts = gpd.GeoDataFrame({'v': rng.random(N)}, geometry=gpd.points_from_xy(rng.random(N) * 10, "
    "rng.random(N) * 10), crs=4326)\n"
    "zones = gpd.GeoDataFrame({'zone': range(100)}, geometry=gpd.points_from_xy(rng.random(100) * 10, "
    "rng.random(100) * 10).buffer(0.8), crs=4326)\n"
    "blobs = pts.iloc[:K].buffer(0.01, quad_segs=16).union_all()",
]

CANDIDATES = [  # five candidates for one step, "count the points in each zone", as a search proposes them
    "counts = gpd.sjoin(pts.iloc[:3000], zones, predicate='within').groupby('zone').size()",
    "counts = pts.iloc[:3000].sjoin(zones).zone.value_counts()",
    "counts = gpd.sjoin(zones, pts.iloc[:3000], predicate='contains').groupby('zone').size()",
    "counts = zones.geometry.apply(lambda z: int(pts.iloc[:3000].within(z).sum()))",
    "counts = gpd.sjoin(pts, zones, predicate='withinn')",  # fails, as some candidates do
]


async def bare_execute(client, code: str) -> None:
    msg_id = client.execute(code)
    idle = reply = False
    while not (idle and reply):
        if not idle:
            msg = await client.get_iopub_msg(timeout=30)
            if (
                msg["parent_header"].get("msg_id") == msg_id
                and msg["msg_type"] == "status"
                and msg["content"]["execution_state"] == "idle"
            ):
                idle = True
        else:
            msg = await client.get_shell_msg(timeout=30)
            reply = msg["parent_header"].get("msg_id") == msg_id


async def measure_overhead(mkm, svc, kid, n: int) -> tuple[float, float, float]:
    km = mkm.get_kernel(kid)
    client = km.client(session=Session(key=km.session.key, signature_scheme=km.session.signature_scheme))
    client.start_channels()
    await client.wait_for_ready(timeout=60)
    bare, ours = [], []
    for _ in range(10):  # warm up both paths
        await bare_execute(client, "1+1")
        await svc.execute(kid, "1+1")

    async def one_bare() -> None:
        t = time.perf_counter()
        await bare_execute(client, "1+1")
        bare.append(time.perf_counter() - t)

    async def one_ours() -> None:
        t = time.perf_counter()
        res = await svc.execute(kid, "1+1")
        ours.append(time.perf_counter() - t)
        assert res.status == "ok" and res.outputs[-1]["data"]["text/plain"] == "2", res.outputs

    for i in range(n):  # alternate the order so neither path profits from going second
        first, second = (one_bare, one_ours) if i % 2 else (one_ours, one_bare)
        await first()
        await second()
    client.stop_channels()
    b, o = statistics.median(bare) * 1000, statistics.median(ours) * 1000
    return b, o, o - b


async def main(args) -> None:
    mkm = local_kernel_manager()
    cwd = tempfile.mkdtemp(prefix="geoagent-bench-")
    kid = await start_kernel(mkm, cwd=cwd)
    fork_svc = KernelService(mkm, trial_mode="fork")
    replay_svc = KernelService(mkm, trial_mode="replay")
    try:
        bare_ms, ours_ms, overhead = await measure_overhead(mkm, fork_svc, kid, args.n)
        print(f"bare_execute_ms={bare_ms:.2f}")
        print(f"service_execute_ms={ours_ms:.2f}")

        t = time.perf_counter()
        await fork_svc.execute(kid, f"N = {args.points}\nK = {args.blobs}")
        for cell in STATE_CELLS:
            res = await fork_svc.execute(kid, cell, timeout=600)
            assert res.status == "ok", res.error
        state_s = time.perf_counter() - t
        print(f"state_build_s={state_s:.2f}")

        t = time.perf_counter()
        fork_results = [await fork_svc.trial(kid, c, timeout=120) for c in CANDIDATES]
        fork_s = time.perf_counter() - t
        t = time.perf_counter()
        await asyncio.gather(*[fork_svc.trial(kid, c, timeout=120) for c in CANDIDATES])
        fork_parallel_s = time.perf_counter() - t
        t = time.perf_counter()
        replay_results = [await replay_svc.trial(kid, c, timeout=120) for c in CANDIDATES]
        replay_s = time.perf_counter() - t
        same = [(f.status, f.defined, f.changed) for f in fork_results] == [
            (r.status, r.defined, r.changed) for r in replay_results
        ]
        print(f"candidate_status={','.join(r.status for r in fork_results)}")
        print(f"fork_and_replay_agree={same}")
        print(f"fork_trials_s={fork_s:.3f}")
        print(f"fork_trials_concurrent_s={fork_parallel_s:.3f}")
        print(f"replay_trials_s={replay_s:.2f}")
        print(f"overhead_ms={overhead:.2f}")
        print(f"trial_speedup={replay_s / fork_s:.1f}")
    finally:
        await fork_svc.close()
        await replay_svc.close()
        await mkm.shutdown_all(now=True)
        shutil.rmtree(cwd, ignore_errors=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=200, help="1+1 executions per path")
    parser.add_argument("--points", type=int, default=200_000, help="points in the state")
    parser.add_argument("--blobs", type=int, default=4000, help="buffers unioned in the state")
    asyncio.run(main(parser.parse_args()))
