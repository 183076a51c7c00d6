"""Trial execution in a forked, copy-on-write copy of the live kernel.

The service side of ``trial_start`` (``inkernel/_40_trial.py``). A trial takes
the kernel's shell only for the fork (milliseconds); the child reports to
:class:`TrialHub`, a Unix socket owned by the service, so waiting for a trial
never blocks the user's kernel and several trials can run at once.

Hazards handled here:

* **Hung or abandoned trials.** The service kills the child's process group at
  the time limit and whenever it stops waiting for a result (the run was
  cancelled, an error) (``SIGKILL``: a trial has no state worth saving). The child also arms
  ``alarm()`` and ``RLIMIT_CPU`` in case the service itself goes away.
* **Killing the wrong process.** The child's pid is only meaningful in the
  kernel's pid namespace. ``SO_PEERCRED`` gives the kernel's pid as *we* see it;
  if it equals the pid the kernel reports for itself we share the namespace and
  may signal the child directly, otherwise we ask the kernel to do it.
* **Crashes.** A child that segfaults or is OOM-killed closes its socket
  without a result: reported as ``TrialCrashed``, never as a hang.
* **The kernel dies or restarts mid-trial.** The child dies with it
  (``PR_SET_PDEATHSIG``, set in the child) and the wait checks the kernel every
  ``TICK``: the trial ends ``dead`` at once (not at the time limit) and its
  process group is killed, so nothing it spawned outlives the kernel either.
* **Kernels on another host** (behind a gateway) cannot see the hub's socket, nor
  be signalled from here: the kernel relays the child's result on IOPub
  (:func:`_relayed`, ``relay=True`` in ``trial_start``) and kills it on request.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import secrets
import shutil
import signal
import socket
import struct
import tempfile
import time
from dataclasses import dataclass, field
from typing import cast

from . import probe
from .connection import LOST, KernelConnection, Request
from .errors import shorten_error
from .results import ExecutionError, TrialResult


@dataclass
class _Waiter:
    hello: asyncio.Event = field(default_factory=asyncio.Event)
    done: asyncio.Future = field(default_factory=lambda: asyncio.get_running_loop().create_future())
    pid: int | None = None
    same_pidns: bool = False


class TrialHub:
    """Unix socket the forked trial children connect to (one per service)."""

    def __init__(self) -> None:
        self.path: str | None = None
        self._dir: str | None = None
        self._server: asyncio.AbstractServer | None = None
        self._waiting: dict[str, _Waiter] = {}

    async def start(self) -> str:
        if self._server is None:
            self._dir = tempfile.mkdtemp(prefix="geoagent-hub-")
            os.chmod(self._dir, 0o700)
            self.path = os.path.join(self._dir, "trials.sock")
            self._server = await asyncio.start_unix_server(self._on_conn, path=self.path)
        assert self.path is not None  # set with the server
        return self.path

    def expect(self, token: str) -> _Waiter:
        waiter = _Waiter()
        self._waiting[token] = waiter
        return waiter

    def drop(self, token: str) -> None:
        self._waiting.pop(token, None)

    async def _on_conn(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        waiter = None
        try:
            hello = json.loads(await reader.readline() or b"{}")
            waiter = self._waiting.get(hello.get("token", ""))
            if waiter is None:
                return
            waiter.same_pidns = _peer_pid(writer) == hello.get("ppid")
            child = json.loads(await reader.readline() or b"{}")
            waiter.pid = child.get("pid")
            waiter.hello.set()
            data = await reader.read()
            if not waiter.done.done():
                waiter.done.set_result(data or None)
        except Exception:  # malformed peer: report as a crash, never hang
            if waiter is not None and not waiter.done.done():
                waiter.done.set_result(None)
                waiter.hello.set()
        finally:
            writer.close()

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            try:
                await self._server.wait_closed()
            except Exception:
                pass
            self._server = None
        for waiter in self._waiting.values():
            if not waiter.done.done():
                waiter.done.set_result(None)
        self._waiting.clear()
        if self._dir:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None


def _peer_pid(writer: asyncio.StreamWriter) -> int | None:
    sock = writer.get_extra_info("socket")
    opt = getattr(socket, "SO_PEERCRED", None)
    if sock is None or opt is None:
        return None
    try:
        creds = sock.getsockopt(socket.SOL_SOCKET, opt, struct.calcsize("3i"))
        return struct.unpack("3i", creds)[0]
    except OSError:
        return None


async def fork_trial(
    hub: TrialHub,
    conn: KernelConnection,
    code: str,
    *,
    timeout: float,
    memory_mb: int | None,
    sandbox: str = "auto",
    wait_idle: float = 30.0,
) -> TrialResult | str:
    """Run a fork trial; returns the result, or a reason string if fork is unavailable."""
    relay = conn.remote
    path = None if relay else await hub.start()
    token = secrets.token_hex(16)
    waiter = hub.expect(token)
    relayed: asyncio.Task | None = None
    try:
        async with conn.lock:
            await conn.ensure()
            conn.require_python()
            await conn.wait_shell_idle(wait_idle)
            if relay:  # registered before the child can finish
                relayed = asyncio.create_task(_relayed(conn, token, waiter))
            info = await probe.call(
                conn,
                "trial_start",
                code=code,
                socket_path=path,
                token=token,
                timeout=timeout,
                memory_mb=memory_mb,
                sandbox=sandbox,
                relay=relay,
            )
        if info.get("mode") != "fork":
            return info.get("reason") or "fork unavailable"
        conn.trials += 1
        conn.sandbox_roots.append(info.get("sandbox_root"))
        t0 = time.perf_counter()
        try:
            data = await asyncio.wait_for(_result_unless_kernel_gone(conn, waiter), timeout)
        except asyncio.TimeoutError:
            return TrialResult(
                status="timeout",
                duration_s=time.perf_counter() - t0,
                sandbox_dir=info.get("sandbox_root"),
                error=ExecutionError(
                    ename="TimeoutError",
                    evalue=f"Trial exceeded its time limit of {timeout} s and was killed",
                    message=f"TimeoutError: trial exceeded its time limit of {timeout} s and was killed",
                ),
            )
        finally:  # timeout, the run cancelled, any error: a child without a result must not run on
            if not waiter.done.done():
                _kill(conn, waiter, info["pid"])
        if data is KERNEL_GONE or (not data and await _kernel_gone_soon(conn)):
            return _kernel_gone_result(conn, time.perf_counter() - t0)
        if not data:
            return TrialResult(
                status="error",
                duration_s=time.perf_counter() - t0,
                error=ExecutionError(
                    ename="TrialCrashed",
                    evalue="the trial process exited without a result",
                    message="TrialCrashed: the trial process exited without a result "
                    "(crash, os._exit() or out of memory)",
                ),
            )
        return _to_result(json.loads(cast(bytes, data)), code, memory_mb)  # not KERNEL_GONE, not empty
    finally:
        hub.drop(token)
        if relayed is not None:
            relayed.cancel()


KERNEL_GONE = object()  # the trial's kernel died or restarted while we waited for the child
TICK = 0.5  # seconds between checks of the kernel while a trial runs


async def _result_unless_kernel_gone(conn: KernelConnection, waiter: _Waiter) -> bytes | None | object:
    """The child's result, or ``KERNEL_GONE`` within a ``TICK`` of the kernel's death or restart:
    a trial of a lost kernel has no state to report on, and its run must not wait out the time limit."""
    while True:
        try:
            return await asyncio.wait_for(asyncio.shield(waiter.done), TICK)
        except asyncio.TimeoutError:
            if await _kernel_gone(conn):
                return KERNEL_GONE


async def _kernel_gone(conn: KernelConnection) -> bool:
    """The process the trial was forked from is no longer the kernel's (restarted) or not running."""
    return conn.identity() != conn._identity or not await conn.alive()


async def _kernel_gone_soon(conn: KernelConnection, within: float = 0.5) -> bool:
    """A child that ended without a result: did its kernel die (the child died with it)?
    A dying kernel's other threads may still be exiting when the child's socket closes."""
    deadline = time.monotonic() + within
    while not await _kernel_gone(conn):
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.05)
    return True


def _kernel_gone_result(conn: KernelConnection, duration_s: float) -> TrialResult:
    conn.mark_lost()
    why = "The kernel died or restarted during this trial; its variables are gone"
    return TrialResult(
        status="dead",
        duration_s=duration_s,
        error=ExecutionError(ename="KernelDied", evalue=why + ".", message=f"KernelDied: {why}."),
    )


async def _relayed(conn: KernelConnection, token: str, waiter: _Waiter) -> None:
    """Wait for the kernel's ``geoagent_trial`` IOPub message and hand its result to
    ``waiter`` as the hub would; a restarted or dead kernel is a trial without a result."""
    req = Request(f"geoagent-trial-{token}", "iopub")
    conn._pending[req.msg_id] = req
    try:
        while True:
            channel, msg = await req.queue.get()
            if channel == LOST:
                data = None
                break
            if channel == "iopub" and msg["msg_type"] == "geoagent_trial":
                data = (msg["content"].get("result") or "").encode() or None
                break
        if not waiter.done.done():
            waiter.done.set_result(data)
    finally:
        conn.forget(req)


def remove_local_sandbox(path: str | None) -> None:
    """Remove a trial sandbox left by a dead kernel, if it is on *this* machine.

    Only paths named like our sandboxes are touched (a remote kernel's path
    almost surely does not exist here; if it does, it is ours by its random name).
    """
    if not path:
        return
    root = path
    while root and not os.path.basename(root).startswith("geoagent-trial-"):
        parent = os.path.dirname(root)
        if parent == root:
            return
        root = parent
    if root and os.path.isdir(root) and not os.path.islink(root):

        def retry(func, p, _exc):
            try:
                os.chmod(os.path.dirname(p), 0o700)
                os.chmod(p, 0o700)
                func(p)
            except OSError:
                pass

        shutil.rmtree(root, onerror=retry)


def _kill(conn: KernelConnection, waiter: _Waiter, pid: int) -> None:
    """SIGKILL the trial child's process group now, or (another pid namespace, or the child
    not connected yet) have the kernel do it soon. Never awaits, so it also runs in a task
    that is being cancelled."""
    if waiter.same_pidns and waiter.pid:
        try:
            os.killpg(waiter.pid, signal.SIGKILL)
            return
        except ProcessLookupError:
            return
        except OSError:
            pass

    async def via_kernel() -> None:  # remote kernel: ask the kernel, when its shell is free
        try:
            async with conn.lock:
                await conn.ensure()
                await probe.call(conn, "trial_kill", pid=pid)
        except Exception:
            pass  # the child's alarm() ends it anyway

    asyncio.create_task(via_kernel())


_NO_NETWORK = re.compile(
    r"Network is unreachable|name resolution|Name or service not known|"
    r"resolve host|getaddrinfo failed|No address associated",
    re.I,
)
NO_NETWORK_HINT = (
    "Trials run without network, so that they cannot reach the Jupyter server or change "
    "anything remote: code that downloads fails in its trial even when it would work. "
    "Download the data in a cell of your own, then read the local file."
)


def _to_result(d: dict, code: str, memory_mb: int | None) -> TrialResult:
    error = None
    if d.get("error"):
        e = d["error"]
        error = shorten_error(
            e.get("ename", "Error"),
            e.get("evalue", ""),
            e.get("traceback") or [],
            code,
            lineno=e.get("lineno"),
        )
        if error.ename == "MemoryError" and memory_mb:
            error.hints.insert(
                0,
                f"The trial hit its memory limit ({memory_mb} MB on top of the "
                "kernel's state): process the data in chunks or lower the resolution.",
            )
        if d.get("sandbox") == "overlay" and _NO_NETWORK.search(f"{e.get('evalue', '')}\n{d.get('stderr', '')}"):
            error.hints.insert(0, NO_NETWORK_HINT)
    return TrialResult(
        status="error" if error else "ok",
        stdout=d.get("stdout", ""),
        stderr=d.get("stderr", ""),
        outputs=d.get("outputs") or [],
        error=error,
        duration_s=float(d.get("duration_s") or 0.0),
        defined=d.get("defined") or [],
        changed=d.get("changed") or [],
        deleted=d.get("deleted") or [],
        files=d.get("files") or [],
        files_deleted=d.get("files_deleted") or [],
        sandbox_dir=d.get("sandbox_dir"),
        sandbox=d.get("sandbox"),
        sandbox_note=d.get("sandbox_note") or "",
        mode="fork",
        timings=d.get("timings") or {},
    )
