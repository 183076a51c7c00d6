"""Kernels behind a gateway (``jupyter server --GatewayClient.url=...``).

jupyter_server's ``GatewayKernelManager`` reaches its kernel over HTTP and one
websocket instead of ZMQ. Where that differs from a local kernel:

* **No provisioner, no pid, no ``ready`` future.** The manager's ``ready`` is never
  resolved (its ``start_kernel`` skips jupyter_client's pending-state wrapper) and
  nothing says which process runs the kernel: the connection takes the Session id
  in the kernel's replies (new per process) and checks it on every reply and on
  ``verify()``, so a restart is still seen as a new process.
* **Channel queues that spin.** ``ChannelQueue.get_msg(timeout=None)`` polls with
  ``asyncio.sleep(0)``, i.e. busy-loops the server's event loop. :class:`QueuePump`
  moves messages from the thread-safe queue into an ``asyncio.Queue`` from a thread
  of its own instead.
* **A websocket without credentials.** ``GatewayKernelClient.start_channels`` opens
  the kernel's websocket without the ``GatewayClient`` headers (``auth_token``...),
  so a gateway that checks a token answers 401. :func:`gateway_client` builds the
  same client with a websocket that carries them (opened off the event loop).
* **Messages without a channel.** ``ChannelQueue.send`` does not say on which
  channel a message goes, and the gateway then puts it on *shell*: a control
  request would queue behind the user's cell. :func:`tag_channel` adds it.
"""

from __future__ import annotations

import asyncio
import queue
import threading
from typing import Any


def is_remote(km: Any) -> bool:
    """Whether ``km`` manages a kernel through a gateway (not a process of this host)."""
    try:
        from jupyter_server.gateway.managers import GatewayKernelManager
    except Exception:  # jupyter_server missing: a headless jupyter_client manager
        return False
    return isinstance(km, GatewayKernelManager)


def gateway_client(km: Any, session: Any) -> Any:
    """A kernel client of gateway kernel ``km`` whose websocket authenticates like the
    server's own gateway requests (what ``km.client(session=...)`` would build, else)."""
    from jupyter_server.gateway.managers import GatewayKernelClient

    class _Client(GatewayKernelClient):
        async def start_channels(self, shell=True, iopub=True, stdin=True, hb=True, control=True):
            self.channel_socket = await asyncio.to_thread(_open_websocket, self.kernel_id)
            started = super(GatewayKernelClient, self).start_channels(
                shell=shell, iopub=iopub, stdin=stdin, hb=hb, control=control
            )
            if started is not None:
                await started
            self.response_router = threading.Thread(
                target=self._route_responses, daemon=True, name="geoagent-gateway-router"
            )
            self.response_router.start()

    kw = dict(km.get_connection_info(session=True))
    kw.update(connection_file=km.connection_file, parent=km, kernel_id=km.kernel_id, session=session)
    return _Client(**kw)


def _open_websocket(kernel_id: str) -> Any:
    import socket
    import ssl

    import websocket
    from jupyter_server.gateway.gateway_client import GatewayClient
    from jupyter_server.utils import url_escape, url_path_join

    gc = GatewayClient.instance()
    args = gc.load_connection_args()
    url = url_path_join(gc.ws_url or "", gc.kernels_endpoint, url_escape(kernel_id), "channels")
    sslopt: dict[str, Any] = {"ca_certs": gc.ca_certs, "certfile": gc.client_cert, "keyfile": gc.client_key}
    if not gc.validate_cert:
        sslopt["cert_reqs"] = ssl.CERT_NONE
    headers = [f"{k}: {v}" for k, v in (args.get("headers") or {}).items()]
    if gc.http_user:  # basic auth, as the server's own gateway requests send it
        import base64

        basic = base64.b64encode(f"{gc.http_user}:{gc.http_pwd or ''}".encode()).decode()
        headers.append(f"Authorization: Basic {basic}")
    # TCP_NODELAY: small frames (a probe, a ping) otherwise wait ~40 ms for a delayed ACK.
    return websocket.create_connection(
        url,
        timeout=gc.KERNEL_LAUNCH_TIMEOUT,
        enable_multithread=True,
        sslopt=sslopt,
        header=headers,
        sockopt=((socket.IPPROTO_TCP, socket.TCP_NODELAY, 1),),
    )


def tag_channel(msg: dict, channel: str) -> dict:
    """The websocket protocol names the channel in the message itself."""
    msg["channel"] = channel
    return msg


class QueuePump:
    """Feeds an ``asyncio.Queue`` from a gateway channel's thread-safe queue.

    A daemon thread blocks on the queue (no polling on the event loop). When the
    gateway's websocket closes (kernel shut down, gateway gone), ``closed`` is put
    once, so the reader can report the kernel as lost.
    """

    closed = object()

    def __init__(self, channel_queue: queue.Queue, loop: asyncio.AbstractEventLoop) -> None:
        self.source = channel_queue
        self.loop = loop
        self.target: asyncio.Queue = asyncio.Queue()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="geoagent-gateway-pump", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                msg = self.source.get(timeout=0.2)
            except queue.Empty:
                if getattr(self.source, "response_router_finished", False):
                    self._put(self.closed)
                    return
                continue
            self._put(msg)

    def _put(self, item: Any) -> None:
        try:
            self.loop.call_soon_threadsafe(self.target.put_nowait, item)
        except RuntimeError:  # the loop closed under us
            self._stop.set()

    async def get(self) -> Any:
        return await self.target.get()

    def stop(self) -> None:
        self._stop.set()
