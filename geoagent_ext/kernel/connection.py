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
        """Which kernel *process* this is: a restart changes it."""
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
        ready = getattr(self.km, "ready", None)
        if isinstance(ready, asyncio.Future) and not ready.done():
            await asyncio.wait_for(asyncio.shield(ready), self.connect_timeout)
        if self.connected:
            return
        await self.disconnect()
        if not await self.alive():
            raise KernelDeadError(
                f"Kernel {self.kernel_id} is not running (it died or was shut down); "
                "restart it and try again."
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
        self._helper_installed = True  # optimistic: a NameError on first use installs it
        client = km.client(session=session)
        await maybe_await(client.start_channels(shell=True, iopub=True, stdin=False, hb=False, control=True))
        self.client = client
        self._tasks = [
            asyncio.create_task(self._reader("iopub", client.iopub_channel)),
            asyncio.create_task(self._reader("shell", client.shell_channel)),
            asyncio.create_task(self._reader("control", client.control_channel)),
        ]
        await self._wait_ready()

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

    async def disconnect(self) -> None:
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
        req = Request(msg["header"]["msg_id"], channel)
        self._pending[req.msg_id] = req
        getattr(self.client, f"{channel}_channel").send(msg)
        return req

    def forget(self, req: Request) -> None:
        self._pending.pop(req.msg_id, None)

    async def _reader(self, name: str, channel: Any) -> None:
        get = channel.get_msg
        while True:
            try:
                msg = await get(timeout=None)
            except asyncio.CancelledError:
                raise
            except Exception:  # bad signature, a closed socket during shutdown ...
                log.debug("reader %s: bad message", name, exc_info=True)
                await asyncio.sleep(0.05)
                continue
            parent = (msg.get("parent_header") or {}).get("msg_id")
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
