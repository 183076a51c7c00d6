"""One private client per kernel, with its own session and message routing.

Kernel hazards handled here:

* **Session theft.** ``KernelManager.client()`` hands out a *clone* of the
  manager's session, same session id, and jupyter_client uses the session id as
  the ZMQ identity of the shell/control DEALER sockets. Two clients with one
  identity make the kernel's ROUTER send replies to whichever connected last, so
  the other one (the user's notebook or our agent) silently stops getting
  replies. We always pass a fresh :class:`Session` (same key and signature
  scheme, new id) to ``km.client()``; that keeps gateway and CurveZMQ settings
  the manager puts into the client's kwargs.
* **IOPub is broadcast.** Every client sees every output. One reader task per
  channel routes messages by ``parent_header.msg_id`` to the request that sent
  them; everything else is dropped (but ``status`` messages are watched to know
  when the kernel is busy with somebody else's request).
* **Slow joiner.** A SUB socket misses what is published before its
  subscription lands. Before the first request we ping with
  ``kernel_info_request`` on the *control* channel (answered even while the
  shell runs a long user cell) until an IOPub status for the ping arrives.
* **Restarts and death.** A restarted kernel is a new process (and maybe new
  ports); requests in flight are lost. We remember the process identity (the
  provisioner and its pid) at connect time and watch IOPub for
  ``starting``/``restarting``/``dead``; any change invalidates the connection,
  fails what is pending, and the next request reconnects from the manager's
  current connection info.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import time
from dataclasses import dataclass, field
from typing import Any

from jupyter_client.session import Session

from .exceptions import KernelBusyError, KernelDeadError, KernelProtocolError
from .remote import QueuePump, gateway_client, is_remote, tag_channel

log = logging.getLogger("geoagent.kernel")

LOST = "__lost__"  # queue item: the kernel restarted or died while we waited


async def maybe_await(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


@dataclass
class Request:
    """A message we sent; its IOPub messages and replies arrive in ``queue``."""

    msg_id: str
    channel: str
    queue: asyncio.Queue = field(default_factory=asyncio.Queue)
    started: bool = False  # the kernel began working on it (status busy seen)


class KernelConnection:
    """Private client of one kernel. Requests are serialised with :attr:`lock`."""

    def __init__(self, km: Any, kernel_id: str, *, connect_timeout: float = 60.0):
        self.km = km
        self.kernel_id = kernel_id
        self.remote = is_remote(km)  # behind a gateway: see remote.py
        self._kernel_session: str | None = None  # remote kernels: the process's Session id
        self._pumps: list[QueuePump] = []
        self.connect_timeout = connect_timeout
        self.lock = asyncio.Lock()
        self.client: Any = None
        self.kernel_info: dict = {}
        self._identity: Any = None
        self._pending: dict[str, Request] = {}
        self._busy: dict[str, float] = {}  # parent msg_id -> since, from IOPub status
        self._tasks: list[asyncio.Task] = []
        self._lost = False
        self._ready = False
        self._helper_installed = False
        self.trials = 0  # fork trials started (their sandboxes are removed on close)
        self.sandbox_roots: list[str | None] = []

    # ------------------------------------------------------------ lifecycle

    def identity(self) -> Any:
        """Which kernel *process* this is: a restart changes it (None: not known yet)."""
        if self.remote:  # the kernel process's own Session id (new per process); unknown once lost
            if self.client is None or self._lost or self._kernel_session is None:
                return None
            return ("remote", self.kernel_id, self._kernel_session)
        prov = getattr(self.km, "provisioner", None)
        if prov is None:
            return None
        pid = getattr(prov, "pid", None) or getattr(getattr(prov, "process", None), "pid", None)
        return (id(prov), pid)

    @property
    def connected(self) -> bool:
        return self.client is not None and not self._lost and self.identity() == self._identity

    async def alive(self) -> bool:
        try:
            return bool(await maybe_await(self.km.is_alive()))
        except Exception:
            return False

    async def ensure(self) -> None:
        """Connect, or reconnect after a restart. Raises KernelDeadError if the kernel is gone."""
        ready = None if self.remote else getattr(self.km, "ready", None)  # a gateway's never resolves
        if isinstance(ready, asyncio.Future) and not ready.done():
            await asyncio.wait_for(asyncio.shield(ready), self.connect_timeout)
        if self.connected:
            return
        await self.disconnect()
        if not await self.alive():
            raise KernelDeadError(
                f"Kernel {self.kernel_id} is not running (it died or was shut down); restart it and try again."
            )
        await self._connect()

    async def _connect(self) -> None:
        km = self.km
        session = Session(
            key=km.session.key,
            signature_scheme=km.session.signature_scheme,
            username="geoagent",
        )
        self._identity = self.identity()
        self._lost = False
        self._ready = False
        self._kernel_session = None
        self._helper_installed = True  # optimistic: a NameError on first use installs it
        client = gateway_client(km, session) if self.remote else km.client(session=session)
        await maybe_await(client.start_channels(shell=True, iopub=True, stdin=False, hb=False, control=True))
        self.client = client
        self._tasks = [
            asyncio.create_task(self._reader(name, getattr(client, f"{name}_channel")))
            for name in ("iopub", "shell", "control")
        ]
        await self._wait_ready()
        if self.remote:
            self._identity = self.identity()

    async def _wait_ready(self) -> None:
        deadline = time.monotonic() + self.connect_timeout
        while True:
            req = self.send("control", "kernel_info_request", {})
            got_reply = got_iopub = False
            try:
                while not (got_reply and got_iopub):
                    remaining = min(0.5, deadline - time.monotonic())
                    if remaining <= 0:
                        raise asyncio.TimeoutError
                    channel, msg = await asyncio.wait_for(req.queue.get(), remaining)
                    if channel == "control":
                        got_reply = True
                        self.kernel_info = msg["content"]
                        self._kernel_session = msg["header"].get("session")
                    elif channel == "iopub":
                        got_iopub = True
                    elif channel == LOST:
                        raise KernelDeadError(f"Kernel {self.kernel_id} restarted while connecting")
                self.forget(req)
                self._ready = True
                return
            except asyncio.TimeoutError:
                self.forget(req)
                if time.monotonic() >= deadline:
                    await self.disconnect()
                    raise KernelDeadError(
                        f"Kernel {self.kernel_id} did not answer within {self.connect_timeout:.0f} s"
                    ) from None
                if not await self.alive():
                    await self.disconnect()
                    raise KernelDeadError(f"Kernel {self.kernel_id} died while connecting") from None

    async def verify(self) -> None:
        """Remote kernels: find out now whether the kernel restarted since we connected
        (a gateway may not relay the new process's ``starting``), so that ``identity()``
        tells callers before they send code: one control round trip, answered even while
        a cell runs. Local kernels: nothing to do, their provisioner says it."""
        if not self.remote:
            return
        async with self.lock:
            await self.ensure()
            req = self.send("control", "kernel_info_request", {})
            try:
                while True:
                    channel, msg = await asyncio.wait_for(req.queue.get(), self.connect_timeout)
                    if channel in ("control", LOST):
                        return  # the reader compared the reply's session (a restart marks us lost)
            except asyncio.TimeoutError:
                raise KernelDeadError(
                    f"Kernel {self.kernel_id} did not answer within {self.connect_timeout:.0f} s"
                ) from None
            finally:
                self.forget(req)

    async def disconnect(self) -> None:
        for pump in self._pumps:
            pump.stop()
        self._pumps = []
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            try:
                await task
            except BaseException:
                pass
        self._tasks = []
        self._fail_pending()
        self._busy.clear()
        if self.client is not None:
            try:
                self.client.stop_channels()
            except Exception:
                log.debug("stop_channels failed", exc_info=True)
        self.client = None

    def mark_lost(self) -> None:
        """The kernel restarted or died: fail pending requests, reconnect next time."""
        self._lost = True
        self._busy.clear()
        self._fail_pending()

    def _fail_pending(self) -> None:
        for req in list(self._pending.values()):
            req.queue.put_nowait((LOST, None))
        self._pending.clear()

    # ------------------------------------------------------------ messaging

    @property
    def is_python(self) -> bool:
        lang = (self.kernel_info.get("language_info") or {}).get("name", "")
        return lang.lower() == "python"

    def require_python(self) -> None:
        if not self.is_python:
            lang = (self.kernel_info.get("language_info") or {}).get("name", "unknown")
            raise KernelProtocolError(
                f"Kernel {self.kernel_id} runs {lang!r}; GeoAgent's trials and introspection "
                "need a Python (IPython) kernel."
            )

    def send(self, channel: str, msg_type: str, content: dict) -> Request:
        msg = self.client.session.msg(msg_type, content)
        if self.remote:
            tag_channel(msg, channel)
        req = Request(msg["header"]["msg_id"], channel)
        self._pending[req.msg_id] = req
        getattr(self.client, f"{channel}_channel").send(msg)
        return req

    def forget(self, req: Request) -> None:
        self._pending.pop(req.msg_id, None)

    async def _reader(self, name: str, channel: Any) -> None:
        if self.remote:
            pump = QueuePump(channel, asyncio.get_running_loop())
            self._pumps.append(pump)
            get = pump.get
        else:
            get = lambda: channel.get_msg(timeout=None)  # noqa: E731
        while True:
            try:
                msg = await get()
            except asyncio.CancelledError:
                raise
            except Exception:  # bad signature, a closed socket during shutdown ...
                log.debug("reader %s: bad message", name, exc_info=True)
                await asyncio.sleep(0.05)
                continue
            if msg is QueuePump.closed:  # the gateway closed the kernel's websocket
                if name == "iopub" and self._ready:
                    self.mark_lost()
                return
            if self.remote and self._restarted(name, msg):
                self.mark_lost()
            parent: str = (msg.get("parent_header") or {}).get("msg_id") or ""  # "": not a reply to us
            if name == "iopub" and msg["msg_type"] == "status":
                state = msg["content"].get("execution_state")
                if state == "busy":
                    self._busy[parent] = time.monotonic()
                    if parent in self._pending:
                        self._pending[parent].started = True
                elif state == "idle":
                    self._busy.pop(parent, None)
                elif state in ("starting", "restarting", "dead") and self._ready:
                    if state == "starting" and self._identity is not None and self.identity() == self._identity:
                        # The process we connected to announcing its own start: ipykernel 7
                        # answers our control ping from its control thread, which can beat
                        # the main thread's "starting" on a loaded machine. A restart is a
                        # new process (new provisioner and pid).
                        continue
                    self.mark_lost()
                    continue
            req = self._pending.get(parent)
            if req is not None:
                req.queue.put_nowait((name, msg))

    def _restarted(self, channel: str, msg: dict) -> bool:
        """A reply or status from another kernel process than the one we connected to.
        (Other IOPub messages may come from the gateway's own session: rate limits.)"""
        if self._kernel_session is None or not self._ready:
            return False
        if channel == "iopub" and msg["msg_type"] != "status":
            return False
        session = (msg.get("header") or {}).get("session")
        return bool(session) and session != self._kernel_session

    # ------------------------------------------------------------ busy gate

    def busy_with_others(self) -> bool:
        return any(parent not in self._pending for parent in self._busy)

    async def wait_shell_idle(self, wait: float) -> None:
        """Wait until the shell has finished other clients' requests (e.g. a user cell).

        IOPub status tells us someone else's request is running; a shell
        ``kernel_info_request`` then answers exactly when the shell queue reaches
        it, i.e. when the user's cell is done. Raises KernelBusyError after ``wait``.
        """
        if not self.busy_with_others():
            return
        req = self.send("shell", "kernel_info_request", {})
        deadline = time.monotonic() + wait
        try:
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise KernelBusyError(
                        f"Kernel {self.kernel_id} has been busy with another request (a user cell?) "
                        f"for more than {wait:.0f} s; try again when it is idle or interrupt it."
                    )
                try:
                    channel, _ = await asyncio.wait_for(req.queue.get(), min(remaining, 0.5))
                except asyncio.TimeoutError:
                    if not self.connected or not await self.alive():
                        raise KernelDeadError(f"Kernel {self.kernel_id} died while busy") from None
                    continue
                if channel == "shell":
                    self._busy.clear()
                    return
                if channel == LOST:
                    raise KernelDeadError(f"Kernel {self.kernel_id} restarted while busy")
        finally:
            self.forget(req)
