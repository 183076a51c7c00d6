"""Slow fallback for trials: replay the kernel's history in a fresh kernel.

Used when the live kernel cannot fork (Windows, a non-Linux/macOS kernel) or
cannot reach the service's socket (a kernel behind a gateway on another
host). The replay kernel is started through the same kernel manager (so a
gateway starts it remotely too), gets the live kernel's history (user cells and
agent commits, i.e. every cell run with ``store_history``), runs the candidate
and is shut down. It works inside a mirror sandbox of the live kernel's cwd,
since replaying history re-runs whatever the cells wrote.

Cost: kernel start + imports + the whole history, per trial; the benchmark
compares it with the fork path.
"""

from __future__ import annotations

import time
from typing import Any

from . import probe
from .connection import KernelConnection, maybe_await
from .execute import run_execute
from .launch import start_kernel
from .results import TrialResult
from .trial import remove_local_sandbox

REPLAY_CELL_TIMEOUT = 600.0
# A replay kernel runs threads before the trial starts, so it cannot enter namespaces of its own.
REPLAY_NOTE = (
    "Trial not isolated, replayed in a fresh kernel (no fork): only Python writes into the working "
    "directory were redirected: this trial could change files elsewhere (and files in it through "
    "GDAL and other native writers) and reach the network, the Jupyter server's API included."
)


async def replay_trial(
    kernel_manager: Any,
    conn: KernelConnection,
    code: str,
    *,
    timeout: float,
    memory_mb: int | None,
    wait_idle: float = 30.0,
) -> TrialResult:
    t0 = time.perf_counter()
    async with conn.lock:
        await conn.ensure()
        conn.require_python()
        await conn.wait_shell_idle(wait_idle)
        history = await probe.call(conn, "history")
        cwd = await probe.call(conn, "cwd")
    kernel_name = getattr(conn.km, "kernel_name", None)
    new_id = await start_kernel(kernel_manager, cwd=cwd, kernel_name=kernel_name)
    rconn = KernelConnection(kernel_manager.get_kernel(new_id), new_id)
    try:
        async with rconn.lock:
            await rconn.ensure()
            await probe.call(rconn, "enter_sandbox", real=cwd)
            for cell in history:
                await run_execute(rconn, cell, timeout=REPLAY_CELL_TIMEOUT, interrupt=False)
            await probe.call(rconn, "snapshot")
            if memory_mb:
                await probe.call(rconn, "limit_memory", memory_mb=memory_mb)
            res, _ = await run_execute(rconn, code, timeout=timeout, interrupt=False)
            changes: dict = {}
            files: dict = {}
            if res.status in ("ok", "error"):
                changes = await probe.call(rconn, "diff")
                files = await probe.call(rconn, "sandbox_changes")
    finally:
        sandbox = await _cleanup(rconn)
        await rconn.disconnect()
        try:
            await maybe_await(kernel_manager.shutdown_kernel(new_id, now=True))
        except Exception:
            pass
        remove_local_sandbox(sandbox)
    data = res.model_dump()
    data["duration_s"] = time.perf_counter() - t0
    return TrialResult(**data, **changes, **files, sandbox="mirror", mode="replay", sandbox_note=REPLAY_NOTE)


async def _cleanup(rconn: KernelConnection) -> str | None:
    """Remove the replay kernel's sandbox through the kernel; return its path as a fallback."""
    try:
        async with rconn.lock:
            changes = await probe.call(rconn, "sandbox_changes", probe_timeout=5)
            await probe.call(rconn, "cleanup", keep=0, probe_timeout=5)
        return changes.get("sandbox_dir")
    except Exception:  # hung candidate or dead kernel: the caller removes it locally
        return None
