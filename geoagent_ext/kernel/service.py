"""KernelService: the agent's hands on the user's live kernel.

Works with jupyter_server's ``MappingKernelManager`` (the server extension;
gateway kernels included, since all access goes through the manager's per-kernel
``client()``/``interrupt_kernel()``/``is_alive()``) and with jupyter_client's
``AsyncMultiKernelManager`` (headless CLI and benchmarks).

Raised (bad input, unusable kernel): :class:`KernelNotFoundError`,
:class:`KernelDeadError` (dead *before* the call, or during a probe),
:class:`KernelBusyError`, :class:`KernelProtocolError` (not a Python kernel, for
trials/probes), :class:`ProbeError` (a probe that raised in the kernel, e.g.
introspection of a name that does not exist).
Returned as ``status`` (outcome of running code): ``ok``, ``error``,
``timeout``, ``dead`` (died or restarted *during* the run), ``interrupted``.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Literal

from . import probe
from .connection import KernelConnection, maybe_await
from .exceptions import KernelNotFoundError
from .execute import run_execute
from .launch import kernel_for_notebook as _kernel_for_notebook
from .replay import replay_trial
from .results import ExecutionResult, Member, TrialResult, VariableSummary
from .trial import TrialHub, fork_trial, remove_local_sandbox

log = logging.getLogger("geoagent.kernel")

TrialMode = Literal["auto", "fork", "replay"]


class KernelService:
    """Execute, trial and probe code in running kernels of one kernel manager.

    ``trial_mode``: ``auto`` forks where possible and falls back to replaying
    the history in a fresh kernel; ``fork``/``replay`` force one path.
    ``sandbox``: where forked trials write files (``auto`` = overlay, else
    mirror; see ``inkernel/_30_sandbox.py``). ``wait_idle``: how long a
    request waits for someone else's running cell before KernelBusyError.
    """

    def __init__(
        self,
        kernel_manager: Any,
        *,
        trial_mode: TrialMode = "auto",
        sandbox: Literal["auto", "overlay", "mirror", "none"] = "auto",
        wait_idle: float = 30.0,
        connect_timeout: float = 60.0,
    ) -> None:
        if trial_mode not in ("auto", "fork", "replay"):
            raise ValueError(f"trial_mode must be auto, fork or replay, not {trial_mode!r}")
        if sandbox not in ("auto", "overlay", "mirror", "none"):
            raise ValueError(f"sandbox must be auto, overlay, mirror or none, not {sandbox!r}")
        self.kernel_manager = kernel_manager
        self.trial_mode = trial_mode
        self.sandbox = sandbox
        self.wait_idle = wait_idle
        self.connect_timeout = connect_timeout
        self._conns: dict[str, KernelConnection] = {}
        self._hub = TrialHub()
        self._not_isolated: set[str] = set()  # kernels whose trials were said not to be isolated

    # ------------------------------------------------------------ kernels

    def _conn(self, kernel_id: str) -> KernelConnection:
        if not isinstance(kernel_id, str) or kernel_id not in self.kernel_manager:
            running = list(self.kernel_manager.list_kernel_ids())
            raise KernelNotFoundError(f"No running kernel with id {kernel_id!r} (running: {running or 'none'}).")
        km = self.kernel_manager.get_kernel(kernel_id)
        conn = self._conns.get(kernel_id)
        if conn is None or conn.km is not km:  # a new manager object: kernel replaced
            if conn is not None:
                asyncio.ensure_future(conn.disconnect())
            conn = KernelConnection(km, kernel_id, connect_timeout=self.connect_timeout)
            self._conns[kernel_id] = conn
        return conn

    def process(self, kernel_id: str) -> Any:
        """Which process runs kernel ``kernel_id`` now (a restart changes it); for callers
        that, unlike this service, must not follow a restart transparently."""
        return self._conn(kernel_id).identity()

    async def alive(self, kernel_id: str) -> bool:
        """Whether kernel ``kernel_id``'s process is running (asks its manager; no message to
        the kernel), for callers that watch a kernel between calls."""
        return await self._conn(kernel_id).alive()

    async def verify(self, kernel_id: str) -> None:
        """Make ``process()`` current: a kernel behind a gateway is asked (one control
        round trip) whether it is still the process we connected to; local: no I/O."""
        await self._conn(kernel_id).verify()

    async def kernel_for_notebook(self, path: str, session_manager: Any) -> str:
        """Kernel id of the running session of notebook ``path`` (API path)."""
        return await _kernel_for_notebook(path, session_manager)

    # ------------------------------------------------------------ execute

    async def execute(
        self,
        kernel_id: str,
        code: str,
        *,
        timeout: float | None = None,
        silent: bool = False,
        store_history: bool = True,
        wait_idle: float | None = None,
    ) -> ExecutionResult:
        """Run ``code`` in the live kernel (this changes the user's state)."""
        _check_code(code, timeout)
        conn = self._conn(kernel_id)
        async with conn.lock:
            await conn.ensure()
            result, _ = await run_execute(
                conn,
                code,
                silent=silent,
                store_history=store_history,
                timeout=timeout,
                wait_idle=self.wait_idle if wait_idle is None else wait_idle,
            )
        return result

    async def interrupt(self, kernel_id: str) -> None:
        """Interrupt whatever the kernel is running.

        Goes through the kernel manager (signal or ``interrupt_request``, as the
        kernel spec says). Note that this stops a user's cell just as well, which
        is why a cancelled agent does not call it: a cancelled ``execute`` stops
        only its own request (``execute._interrupt_if_ours``).
        """
        conn = self._conn(kernel_id)
        await maybe_await(conn.km.interrupt_kernel())

    # ------------------------------------------------------------ trials

    async def trial(
        self,
        kernel_id: str,
        code: str,
        *,
        timeout: float = 60,
        memory_mb: int | None = 4096,
    ) -> TrialResult:
        """Run ``code`` against a throw-away copy of the kernel's state.

        The user's namespace and files are left as they were. ``timeout`` (s)
        and ``memory_mb`` (allocations on top of the copied state) are limits.
        """
        if timeout is None:
            raise ValueError("trial() needs a time limit")
        _check_code(code, timeout)
        if memory_mb is not None and memory_mb <= 0:
            raise ValueError(f"memory_mb must be positive, got {memory_mb}")
        conn = self._conn(kernel_id)
        if self.trial_mode != "replay":
            res = await fork_trial(
                self._hub,
                conn,
                code,
                timeout=timeout,
                memory_mb=memory_mb,
                sandbox=self.sandbox,
                wait_idle=self.wait_idle,
            )
            if isinstance(res, TrialResult):
                self._say_if_not_isolated(kernel_id, res)
                return res
            if self.trial_mode == "fork":
                raise RuntimeError(f"Fork trials are unavailable for kernel {kernel_id}: {res}")
            log.info("fork trial unavailable (%s); replaying history in a fresh kernel", res)
        res = await replay_trial(
            self.kernel_manager, conn, code, timeout=timeout, memory_mb=memory_mb, wait_idle=self.wait_idle
        )
        self._say_if_not_isolated(kernel_id, res)
        return res

    def _say_if_not_isolated(self, kernel_id: str, res: TrialResult) -> None:
        """Warn once per kernel, in the server log, that its trials can change files or reach the
        server (no overlay sandbox on this machine); each result says so in ``sandbox_note``."""
        if res.sandbox_note and kernel_id not in self._not_isolated:
            self._not_isolated.add(kernel_id)
            log.warning("Trials of kernel %s are not isolated: %s", kernel_id, res.sandbox_note)

    # ------------------------------------------------------------ probes

    async def probe(self, kernel_id: str, name: str, /, *args: Any, probe_timeout: float = 120.0, **kwargs: Any) -> Any:
        """The one road for looking into a kernel: ``name(*args, **kwargs)`` of the in-kernel
        helper (``inkernel/_90_api.py``: introspection and the agent's data probes alike), run
        silently, its JSON answer returned. An exception inside raises ProbeError."""
        conn = self._conn(kernel_id)
        async with conn.lock:
            await conn.ensure()
            await conn.wait_shell_idle(self.wait_idle)
            return await probe.call(conn, name, *args, probe_timeout=probe_timeout, **kwargs)

    # The typed views of the probes the agent, the completer and the tools ask for.

    async def members(self, kernel_id: str, expression: str, *, include_private: bool = False) -> list[Member]:
        """Real members (and call signatures) of the live object of ``expression``."""
        rows = await self.probe(kernel_id, "members", expression=expression, include_private=include_private)
        return [Member(**r) for r in rows]

    async def closest_names(self, kernel_id: str, expression: str, wrong_name: str, *, n: int = 5) -> list[str]:
        """Names closest to ``wrong_name``: members of ``expression``, or variables if it is ''."""
        return await self.probe(kernel_id, "closest_names", expression=expression, wrong_name=wrong_name, n=n)

    async def profile(self, kernel_id: str, name: str) -> str:
        """Compact text profile of a variable (CRS and units, bounds, columns, raster shape ...)."""
        return await self.probe(kernel_id, "profile", name=name)

    async def advise_crs(self, kernel_id: str, target: Any, purposes: list[str], *, limit: int = 3) -> dict[str, Any]:
        """The CRS advisor's ranked answers per purpose for a layer file, a variable or {bounds, crs}."""
        return await self.probe(kernel_id, "advise_all", path_or_name=target, purposes=list(purposes), limit=limit)

    async def variables(self, kernel_id: str) -> list[VariableSummary]:
        """The user's variables with one-line summaries."""
        return [VariableSummary(**r) for r in await self.probe(kernel_id, "variables")]

    async def fingerprints(self, kernel_id: str) -> dict[str, str]:
        """{name: fingerprint} of the user's variables: diffed around a commit, they say which
        variables a run created or changed."""
        return await self.probe(kernel_id, "fingerprints")

    async def delete_variables(self, kernel_id: str, expected: dict[str, str]) -> dict[str, Any]:
        """Delete the variables still as ``expected`` ({name: fingerprint}); serialised with every
        other call on this kernel. Answers ``{deleted: [...], kept: {name: why}}``."""
        return await self.probe(kernel_id, "delete_names", expected=dict(expected))

    # ------------------------------------------------------------ shutdown

    async def close(self) -> None:
        """Disconnect from all kernels (they keep running) and remove trial sandboxes."""
        for conn in list(self._conns.values()):
            try:
                if conn.trials and conn.connected and await conn.alive():
                    async with conn.lock:
                        await asyncio.wait_for(probe.call(conn, "cleanup", keep=0), 5)
            except Exception:
                log.debug("cleanup failed", exc_info=True)
            for root in conn.sandbox_roots:  # dead or restarted kernels cannot clean up
                remove_local_sandbox(root)
            await conn.disconnect()
        self._conns.clear()
        await self._hub.close()

    async def __aenter__(self) -> KernelService:
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()


def _check_code(code: Any, timeout: float | None) -> None:
    if not isinstance(code, str):
        raise TypeError(f"code must be a str, got {type(code).__name__}")
    if timeout is not None and timeout <= 0:
        raise ValueError(f"timeout must be positive, got {timeout}")
