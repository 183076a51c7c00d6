"""How many runs one server holds on the local model: one short run alone, then N at once.

The local model is one llama.cpp engine per process; concurrent runs (each on its own
kernel) take turns in its first-come-first-served line (``llm/queue.py``). This starts
N headless sessions in one process (as one server would hold them), runs the same short
request alone and then N times at once, and prints each run's seconds, its status, its
model calls, the seconds the model spent on them (waits not counted) and the longest
place in line it heard (a small model's answers vary, so runs differ in calls).

Usage: python benchmarks/bench_concurrent_runs.py [--model local:qwen2.5-coder-0.5b] [--runs 3]
Not a test: one run, figures printed last as name=value.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from contextlib import AsyncExitStack
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from geoagent_ext.agent.run import Run, RunOptions  # noqa: E402
from geoagent_ext.config import GeoAgentSettings  # noqa: E402
from geoagent_ext.llm.client import LLMClient  # noqa: E402
from geoagent_ext.services import open_headless_services  # noqa: E402

REQUEST = "Set x to 40 plus 2 and print x."


async def one(session, cwd: Path) -> dict:
    llm = LLMClient(session.llm.chat_model, timeout=session.llm.timeout)  # this run's own call counts
    run = Run(
        REQUEST,
        kernel=session.kernel,
        llm=llm,
        model_name=session.model_name,
        knowledge_index=None,
        options=RunOptions(on_stuck="stop", max_attempts=2),
        log_dir=cwd / "runs",
    )
    started = time.perf_counter()
    finished = await run.wait()
    places = [e.place for e in run.bus.history if e.type == "model_waiting"]
    return {
        "seconds": round(time.perf_counter() - started, 1),
        "status": finished.status,
        "calls": finished.stats.llm_calls,
        "model_s": finished.stats.llm_seconds,
        "max_place": max(places, default=0),
    }


async def main(model: str, runs: int) -> None:
    settings = GeoAgentSettings(model=model)
    with tempfile.TemporaryDirectory() as tmp:
        async with AsyncExitStack() as stack:
            sessions = []
            for i in range(runs):
                cwd = Path(tmp) / f"user{i}"
                cwd.mkdir()
                sessions.append(
                    (
                        await stack.enter_async_context(
                            open_headless_services(settings, cwd=cwd, model=model, use_index=False)
                        ),
                        cwd,
                    )
                )
            warm = await one(*sessions[0])  # loads the weights; not counted
            print(f"warm-up: {warm}", file=sys.stderr)
            alone = await one(*sessions[0])
            print(f"alone: {alone}", file=sys.stderr)
            started = time.perf_counter()
            together = await asyncio.gather(*(one(s, cwd) for s, cwd in sessions))
            wall = time.perf_counter() - started
    print(f"model={model}")
    print(f"alone_s={alone['seconds']}")
    print(f"alone_calls={alone['calls']}")
    for i, result in enumerate(together, 1):
        for key, value in result.items():
            print(f"concurrent{i}_{key}={value}")
    print(f"concurrent_wall_s={round(wall, 1)}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="local:qwen2.5-coder-0.5b")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    asyncio.run(main(args.model, args.runs))
