"""The agent's narrow view of one kernel: a KernelService bound to a kernel id.

The agent never sees kernel ids or managers; it gets a ``KernelHandle`` and
calls execute/trial/probes on it. Tests and the CLI build one from a
``KernelService`` they own; the server builds one per run from jupyter_server's
kernel manager.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Protocol

from ..kernel.exceptions import KernelDeadError, KernelNotFoundError
from ..redact import redact, redact_obj
from .events import ExecutionSummary
from .output_limits import FIELD_LIMIT, bounded_outputs, shortened

log = logging.getLogger("geoagent.agent")


class KernelHandle(Protocol):
    async def execute(
        self, code: str, *, timeout: float | None = None, silent: bool = False, store_history: bool = True
    ) -> Any: ...
    async def trial(self, code: str, *, timeout: float = 60) -> Any: ...
    async def members(self, expression: str) -> list[Any]: ...
    async def closest_names(self, expression: str, wrong_name: str) -> list[str]: ...
    async def profile(self, name: str) -> str: ...
    async def advise_crs(self, target: Any, purposes: list[str]) -> dict[str, Any]: ...
    async def variables(self) -> list[Any]: ...
    async def probe(self, name: str, /, *args: Any, probe_timeout: float = 120.0, **kwargs: Any) -> Any: ...

    # Optional: ``async def fingerprints(self) -> dict[str, str]`` (what a commit changed, see Run.commit),
    # ``async def watch(self) -> None`` (raises KernelLost once the kernel is lost, see Run._wait_human).


class KernelLost(RuntimeError):
    """The run's kernel died, restarted or was shut down: the state its accepted steps
    built is gone, so no later step (and no human fix) can run as planned."""


class BoundKernel:
    """Adapter: ``KernelService`` + ``kernel_id`` -> ``KernelHandle``, for one run.

    The service follows a restarted kernel transparently (right for a tool); a run
    must not, because its steps build on variables only the first process had. The
    kernel process seen at the first call is the run's; any later call that finds
    another process, none, or an execution that ends ``dead`` raises KernelLost,
    and so does every call after it (``lost`` says why).
    """

    def __init__(self, service, kernel_id: str):
        self.service = service
        self.kernel_id = kernel_id
        self.lost: str | None = None
        self._process: Any = None

    def _same_process(self) -> None:
        if self.lost is None:
            try:
                process = self.service.process(self.kernel_id)
            except KernelNotFoundError:
                self.lost = "the kernel was shut down"
            else:
                if self._process is None:
                    self._process = process
                elif process != self._process:
                    self.lost = "the kernel restarted (a new process without the run's variables)"
        if self.lost is not None:
            raise KernelLost(self.lost)

    async def _call(self, method: str, /, *args: Any, **kwargs: Any) -> Any:
        try:  # a kernel behind a gateway is asked whether it restarted (local ones: no I/O)
            if self.lost is None:
                await self.service.verify(self.kernel_id)
        except KernelNotFoundError:
            pass  # _same_process says it was shut down
        except KernelDeadError as exc:
            self.lost = str(exc)
        self._same_process()
        try:
            result = await getattr(self.service, method)(self.kernel_id, *args, **kwargs)
        except (KernelDeadError, KernelNotFoundError) as exc:
            self.lost = str(exc)
            raise KernelLost(self.lost) from None
        self._same_process()  # restarted while we waited (a trial, introspection)
        return result

    async def execute(self, code, *, timeout=None, silent=False, store_history=True):
        result = await self._call("execute", code, timeout=timeout, silent=silent, store_history=store_history)
        if result.status == "dead":  # died or restarted while our code ran in it
            self.lost = result.error.evalue if result.error else "the kernel died"
            raise KernelLost(self.lost)
        return result

    async def trial(self, code, *, timeout=60):
        result = await self._call("trial", code, timeout=timeout)
        if result.status == "dead":  # the kernel it was forked from died or restarted meanwhile
            self.lost = result.error.evalue if result.error else "the kernel died"
            raise KernelLost(self.lost)
        return result

    async def watch(self, every: float = 1.0) -> None:
        """Raise KernelLost once the kernel dies, restarts or is shut down. A run waiting for a
        human makes no call that would notice, and no answer can help it any more: without
        this it would hold the kernel (new runs 409) until someone answered."""
        while True:
            try:
                await self._check_running()
            except KernelLost:
                raise
            except Exception:  # a gateway that did not answer this time: ask again next time
                log.debug("watching kernel %s failed", self.kernel_id, exc_info=True)
            await asyncio.sleep(every)

    async def _check_running(self) -> None:
        if self.lost is None:
            try:
                await self.service.verify(self.kernel_id)  # gateway kernels: one round trip
                running = await self.service.alive(self.kernel_id)
            except KernelNotFoundError:
                running = True  # shut down: _same_process says so
            except KernelDeadError as exc:
                self.lost, running = str(exc), True
            self._same_process()  # a restart names itself before "not running" could
            if not running:
                self.lost = "the kernel stopped (it died, was killed or is restarting)"
        self._same_process()

    async def probe(self, name, /, *args, probe_timeout=120.0, **kwargs):
        """``name(*args, **kwargs)`` of the in-kernel helper (``KernelService.probe``)."""
        return await self._call("probe", name, *args, probe_timeout=probe_timeout, **kwargs)

    async def members(self, expression):
        return await self._call("members", expression)

    async def closest_names(self, expression, wrong_name):
        return await self._call("closest_names", expression, wrong_name)

    async def profile(self, name):
        return await self._call("profile", name)

    async def variables(self):
        return await self._call("variables")

    async def advise_crs(self, target, purposes):
        return await self._call("advise_crs", target, purposes)

    async def fingerprints(self):
        return await self._call("fingerprints")


def summarize(result: Any, warnings: list[str] | None = None, limit: int = 4000) -> ExecutionSummary:
    """Kernel result -> the bounded form events carry (``output_limits``): stdout and stderr
    within ``limit`` (the outputs hold them too), every other text within FIELD_LIMIT.

    Redacted before the cap: a cut through a secret would leave a piece no rule recognises.
    """
    error = getattr(result, "error", None)
    stdout, stderr = redact(result.stdout or ""), redact(result.stderr or "")
    outputs, cut = bounded_outputs(redact_obj(list(getattr(result, "outputs", []) or [])))
    message = getattr(error, "message", None) if error else None
    return ExecutionSummary(
        status=result.status,
        stdout=shortened(stdout, limit),
        stderr=shortened(stderr, limit),
        outputs=outputs,
        truncated=cut or max(len(stdout), len(stderr)) > limit or len(message or "") > FIELD_LIMIT,
        error=shortened(message, FIELD_LIMIT) if message else message,
        ename=getattr(error, "ename", None) if error else None,
        duration_s=float(getattr(result, "duration_s", 0.0) or 0.0),
        warnings=list(warnings or []),
    )


def format_variables(variables: list[Any], limit: int = 30) -> str:
    lines = []
    for var in variables[:limit]:
        if isinstance(var, dict):
            name, summary = var.get("name"), var.get("summary") or var.get("type")
        else:
            name, summary = getattr(var, "name", "?"), getattr(var, "summary", "") or getattr(var, "type", "")
        lines.append(f"- {name}: {summary}")
    return "\n".join(lines)
