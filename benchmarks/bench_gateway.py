"""Gateway benchmark: the agent's round trip per execute and per trial, through a Kernel
Gateway vs a local kernel, measured in one run on this machine.

    .venv/bin/python benchmarks/bench_gateway.py [--repeats 30]

Starts a real ``jupyter kernelgateway`` on a free loopback port (``tests/kernel_gateway.py``),
one kernel through jupyter_server's gateway manager and one local kernel, and times
``KernelService`` calls on both, interleaved (so load on the machine hits both alike):

* execute: ``x = 1`` with a one-line print (what a small commit or probe costs);
* trial: a fork trial of the same code (local: the service's Unix socket; gateway: the
  result relayed on the kernel's IOPub);
* the agent's restart check (``verify``), a control round trip only gateway kernels make.

Figures, printed last, one per line: ``*_local_ms_p50``, ``*_gateway_ms_p50`` and
``*_ratio`` (gateway / local) for execute and trial, and ``verify_gateway_ms_p50``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from geoagent_ext.kernel import KernelService, local_kernel_manager, start_kernel  # noqa: E402
from tests.kernel_gateway import kernel_gateway  # noqa: E402

CODE = "x = 1\nprint('x is', x)"


async def _time(fn, repeats: int) -> list[float]:
    out = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        await fn()
        out.append((time.perf_counter() - t0) * 1000)
    return out


async def measure(url: str, token: str, work: Path, repeats: int) -> dict[str, float]:
    from jupyter_server.gateway.gateway_client import GatewayClient
    from jupyter_server.gateway.managers import GatewayMappingKernelManager

    GatewayClient.instance(url=url, auth_token=token)
    gkm, lkm = GatewayMappingKernelManager(), local_kernel_manager(connection_dir=str(work))
    gid, lid = await gkm.start_kernel(kernel_name="python3"), await start_kernel(lkm, cwd=str(work))
    gsvc, lsvc = KernelService(gkm, trial_mode="fork"), KernelService(lkm, trial_mode="fork")
    times: dict[str, list[float]] = {
        k: [] for k in ("execute_local", "execute_gateway", "trial_local", "trial_gateway", "verify_gateway")
    }
    try:
        for svc, kid in ((gsvc, gid), (lsvc, lid)):  # warm up: connect, install the helper
            assert (await svc.execute(kid, CODE, timeout=120)).status == "ok"
            assert (await svc.trial(kid, CODE, timeout=120)).status == "ok"
        for _ in range(repeats):  # interleaved, one call each per round
            times["execute_local"] += await _time(lambda: lsvc.execute(lid, CODE), 1)
            times["execute_gateway"] += await _time(lambda: gsvc.execute(gid, CODE), 1)
            times["trial_local"] += await _time(lambda: lsvc.trial(lid, CODE, timeout=60), 1)
            times["trial_gateway"] += await _time(lambda: gsvc.trial(gid, CODE, timeout=60), 1)
            times["verify_gateway"] += await _time(lambda: gsvc.verify(gid), 1)
    finally:
        await gsvc.close()
        await lsvc.close()
        await gkm.shutdown_all(now=True)
        await lkm.shutdown_all(now=True)
    p50 = {k: statistics.median(v) for k, v in times.items()}
    return {
        "execute_local_ms_p50": p50["execute_local"],
        "execute_gateway_ms_p50": p50["execute_gateway"],
        "execute_ratio": p50["execute_gateway"] / p50["execute_local"],
        "trial_local_ms_p50": p50["trial_local"],
        "trial_gateway_ms_p50": p50["trial_gateway"],
        "trial_ratio": p50["trial_gateway"] / p50["trial_local"],
        "verify_gateway_ms_p50": p50["verify_gateway"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=30)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-gateway-"))
    with kernel_gateway(work, work / "gateway.log") as (url, token):
        figures = asyncio.run(measure(url, token, work, args.repeats))
    for name, value in figures.items():
        print(f"{name}={value:.2f}")


if __name__ == "__main__":
    main()
