"""Run one ``execute_request`` and turn its messages into an ExecutionResult.

Hazards handled here:

* ``allow_stdin=False`` (an ``input()`` raises instead of hanging the agent) and
  ``stop_on_error=False`` (our failure must not abort the user's queued cells).
* A request is complete only when the shell reply *and* the IOPub ``idle``
  status for it have arrived; outputs may come after the reply.
* Timeouts and cancellation interrupt the kernel only if *our* request is the
  one running (seen ``busy`` with our msg_id); interrupting while a user cell
  runs would kill it.
* Liveness is polled while waiting, so a kernel killed or restarted mid-run is
  reported as ``status="dead"`` within a fraction of a second, not at timeout.
"""

from __future__ import annotations

import asyncio
import time

from .connection import LOST, KernelConnection, maybe_await
from .errors import shorten_error
from .results import ExecutionError, ExecutionResult

TICK = 0.5  # seconds between liveness checks while waiting
INTERRUPT_GRACE = 5.0  # seconds the kernel gets to stop after an interrupt
START_GRACE = 1.0  # seconds a cancelled request gets to start before we give up stopping it


class OutputCollector:
    """Builds nbformat v4 outputs from IOPub messages (streams merged, displays updated)."""

    def __init__(self) -> None:
        self.outputs: list[dict] = []
        self.stdout: list[str] = []
        self.stderr: list[str] = []
        self.error: dict | None = None
        self._clear_on_next = False
        self._by_display_id: dict[str, list[dict]] = {}

    def _append(self, out: dict) -> None:
        if self._clear_on_next:
            self.outputs.clear()
            self._clear_on_next = False
        self.outputs.append(out)

    def add(self, msg: dict) -> None:
        kind, c = msg["msg_type"], msg["content"]
        if kind == "stream":
            name, text = c.get("name", "stdout"), c.get("text", "")
            (self.stderr if name == "stderr" else self.stdout).append(text)
            last = self.outputs[-1] if self.outputs and not self._clear_on_next else None
            if last and last["output_type"] == "stream" and last["name"] == name:
                last["text"] += text
            else:
                self._append({"output_type": "stream", "name": name, "text": text})
        elif kind in ("display_data", "execute_result"):
            out = {"output_type": kind, "data": c.get("data", {}), "metadata": c.get("metadata", {})}
            if kind == "execute_result":
                out["execution_count"] = c.get("execution_count")
            self._append(out)
            display_id = (c.get("transient") or {}).get("display_id")
            if display_id:
                self._by_display_id.setdefault(display_id, []).append(out)
        elif kind == "update_display_data":
            display_id = (c.get("transient") or {}).get("display_id")
            for out in self._by_display_id.get(display_id or "", []):
                out["data"], out["metadata"] = c.get("data", {}), c.get("metadata", {})
        elif kind == "clear_output":
            if c.get("wait"):
                self._clear_on_next = True
            else:
                self.outputs.clear()
        elif kind == "error":
            self.error = c
            self._append(
                {
                    "output_type": "error",
                    "ename": c.get("ename", ""),
                    "evalue": c.get("evalue", ""),
                    "traceback": c.get("traceback", []),
                }
            )


async def run_execute(
    conn: KernelConnection,
    code: str,
    *,
    silent: bool = False,
    store_history: bool = True,
    user_expressions: dict | None = None,
    timeout: float | None = None,
    wait_idle: float = 30.0,
    interrupt: bool = True,
) -> tuple[ExecutionResult, dict | None]:
    """Execute ``code``; the caller holds ``conn.lock`` and has called ``conn.ensure()``.

    ``interrupt=False`` returns at the timeout without interrupting (for
    throw-away replay kernels that are shut down anyway). Returns the result and
    the raw reply content (None if there was none).
    """
    await conn.wait_shell_idle(wait_idle)
    t0 = time.perf_counter()
    req = conn.send(
        "shell",
        "execute_request",
        {
            "code": code,
            "silent": silent,
            "store_history": store_history,
            "user_expressions": user_expressions or {},
            "allow_stdin": False,
            "stop_on_error": False,
        },
    )
    col = OutputCollector()
    reply: dict | None = None
    idle = False
    deadline = t0 + timeout if timeout else None
    interrupted = False
    outcome: str | None = None  # "timeout" | "not_started" | "dead" | "restarted" | "stuck"
    last_check = time.monotonic()
    try:
        while not (reply is not None and idle):
            try:
                channel, msg = req.queue.get_nowait()
            except asyncio.QueueEmpty:
                now = time.perf_counter()
                wait = TICK if deadline is None else min(TICK, deadline - now)
                if wait <= 0:
                    if interrupted:
                        outcome = "stuck"
                        break
                    if not req.started:
                        outcome = "not_started"
                        break
                    if not interrupt:
                        outcome = "abandoned"
                        break
                    await maybe_await(conn.km.interrupt_kernel())
                    interrupted, outcome = True, "timeout"
                    deadline = time.perf_counter() + INTERRUPT_GRACE
                    continue
                try:
                    channel, msg = await asyncio.wait_for(req.queue.get(), wait)
                except asyncio.TimeoutError:
                    channel = None
            if channel == LOST:
                outcome = "dead" if not await conn.alive() else "restarted"
                break
            if time.monotonic() - last_check > TICK:
                last_check = time.monotonic()
                if conn.identity() != conn._identity:
                    conn.mark_lost()
                    outcome = "restarted"
                    break
                if not await conn.alive():
                    conn.mark_lost()
                    outcome = "dead"
                    break
            if channel is None:
                continue
            if channel == "shell":
                reply = msg
            elif channel == "iopub":
                kind = msg["msg_type"]
                if kind == "status":
                    state = msg["content"].get("execution_state")
                    if state == "idle":
                        idle = True
                    elif state == "busy":
                        req.started = True
                elif kind == "execute_input":
                    req.started = True
                else:
                    col.add(msg)
    except asyncio.CancelledError:  # the caller stopped waiting (a cancelled run)
        if interrupt and reply is None:
            await _interrupt_if_ours(conn, req)
        raise
    finally:
        conn.forget(req)
    duration = time.perf_counter() - t0
    return _result(code, col, reply, outcome, interrupted, timeout, duration), (reply["content"] if reply else None)


async def _interrupt_if_ours(conn: KernelConnection, req) -> None:
    """Interrupt the kernel for a request we stopped waiting for, but only while that
    request is what the kernel runs: a user's cell must never get our KeyboardInterrupt.

    A request sent a moment ago may not have started yet (we checked the shell was idle
    before sending): give it ``START_GRACE`` to start, then stop it. If it has not
    started by then, something else runs ahead of it and the kernel is left alone.
    """
    deadline = time.perf_counter() + START_GRACE
    while True:
        try:
            channel, msg = req.queue.get_nowait()
        except asyncio.QueueEmpty:
            if req.started:
                break
            wait = deadline - time.perf_counter()
            if wait <= 0:
                return
            try:
                channel, msg = await asyncio.wait_for(req.queue.get(), min(wait, 0.05))
            except asyncio.TimeoutError:
                continue
        if channel in ("shell", LOST):  # it has finished (or the kernel is gone)
            return
    if conn.busy_with_others():  # ours ended and someone's cell has begun (its reply is on the way)
        return
    await maybe_await(conn.km.interrupt_kernel())


def _result(code, col, reply, outcome, interrupted, timeout, duration) -> ExecutionResult:
    content = reply["content"] if reply else {}
    stdout, stderr = "".join(col.stdout), "".join(col.stderr)
    common = dict(
        stdout=stdout,
        stderr=stderr,
        outputs=col.outputs,
        duration_s=duration,
        execution_count=content.get("execution_count"),
    )
    if outcome in ("dead", "restarted"):
        why = (
            "The kernel died while running this code (crashed, killed or out of memory)"
            if outcome == "dead"
            else "The kernel was restarted while running this code; its variables are gone"
        )
        return ExecutionResult(status="dead", error=_plain("KernelDied", why + "."), **common)
    if outcome == "not_started":
        return ExecutionResult(
            status="timeout",
            error=_plain(
                "TimeoutError",
                f"The code did not start within {timeout} s because the kernel was busy with another "
                "request; it is still queued and will run when the kernel is free.",
            ),
            **common,
        )
    if outcome == "abandoned":
        return ExecutionResult(
            status="timeout", error=_plain("TimeoutError", f"Execution exceeded {timeout} s and was stopped."), **common
        )
    if outcome == "stuck":
        return ExecutionResult(
            status="timeout",
            error=_plain(
                "TimeoutError",
                f"Execution exceeded {timeout} s; the kernel was interrupted but did not stop within "
                f"{INTERRUPT_GRACE:.0f} s (stuck in native code?). Restart the kernel if it stays busy.",
            ),
            **common,
        )
    status = content.get("status", "ok")
    if status == "ok" and interrupted:  # the code swallowed our KeyboardInterrupt
        return ExecutionResult(
            status="timeout",
            error=_plain("TimeoutError", f"Execution exceeded {timeout} s and was interrupted."),
            **common,
        )
    if status == "ok":
        return ExecutionResult(status="ok", **common)
    if status == "aborted":
        return ExecutionResult(
            status="interrupted",
            error=_plain("Aborted", "The kernel aborted this request because an earlier request failed."),
            **common,
        )
    err = col.error or content
    ename, evalue, tb = err.get("ename", "Error"), err.get("evalue", ""), err.get("traceback", [])
    error = shorten_error(ename, evalue, tb, code)
    if ename == "KeyboardInterrupt":
        if interrupted:
            error.ename, error.evalue = "TimeoutError", f"Execution exceeded {timeout} s and was interrupted"
            error.message = error.evalue + (f" (at line {error.lineno})" if error.lineno else "")
            return ExecutionResult(status="timeout", error=error, **common)
        return ExecutionResult(status="interrupted", error=error, **common)
    return ExecutionResult(status="error", error=error, **common)


def _plain(ename: str, message: str) -> ExecutionError:
    return ExecutionError(ename=ename, evalue=message, traceback=[], message=f"{ename}: {message}")
