"""Silent calls into the in-kernel helper (``inkernel/`` as ``__geoagent__``).

A probe is ``execute_request(code="", silent=True, store_history=False,
user_expressions={"r": "__geoagent__.call(...)"})``: no ``execute_input``, no
history entry, no ``Out``/``_`` update, and the answer travels in the shell
reply (``application/json``), so nothing shows up in the user's notebook.

The helper is installed lazily: the first probe after a (re)start fails with
NameError, we send the module source once and retry. A helper from an older
service version answers ``GEOAGENT_STALE_HELPER`` and is replaced the same way.
"""

from __future__ import annotations

import json
from typing import Any

from .connection import KernelConnection
from .exceptions import KernelDeadError, KernelProtocolError, KernelServiceError
from .execute import run_execute
from .inkernel import SOURCE, VERSION

HELPER_NAME = "__geoagent__"

# Only ``__geoagent__`` is bound in the user's namespace.
INSTALL_CODE = (
    f"{HELPER_NAME} = __import__('types').ModuleType({HELPER_NAME!r}); "
    f"exec(compile({SOURCE!r}, '<geoagent-helper>', 'exec'), {HELPER_NAME}.__dict__); "
    f"{HELPER_NAME}.VERSION = {VERSION!r}"
)


class ProbeError(KernelServiceError):
    """An introspection call failed inside the kernel (e.g. the name does not exist)."""

    def __init__(self, ename: str, evalue: str):
        super().__init__(f"{ename}: {evalue}")
        self.ename, self.evalue = ename, evalue


async def install(conn: KernelConnection, timeout: float = 60.0) -> None:
    res, _ = await run_execute(conn, INSTALL_CODE, silent=True, store_history=False, timeout=timeout)
    if res.status != "ok":
        raise KernelProtocolError(
            f"Could not install GeoAgent's helper in kernel {conn.kernel_id}: "
            f"{res.error.message if res.error else res.status}"
        )
    conn._helper_installed = True


def _needs_install(ue: dict) -> bool:
    text = f"{ue.get('ename')}: {ue.get('evalue')}"
    return (
        "GEOAGENT_STALE_HELPER" in text
        or HELPER_NAME in text
        or (ue.get("ename") == "AttributeError" and "'call'" in text)
        or (ue.get("ename") == "TypeError" and "call() takes" in text)
    )  # a helper older than positional args


async def call(conn: KernelConnection, fn: str, /, *args: Any, probe_timeout: float = 120.0, **kwargs: Any) -> Any:
    """Run ``__geoagent__.<fn>(*args, **kwargs)`` in the kernel; the caller holds ``conn.lock``.

    Arguments and answer travel as JSON. A kernel that dies during the call raises
    KernelDeadError (as a dead execution does), any other missing answer KernelServiceError.
    """
    conn.require_python()
    expr = f"{HELPER_NAME}.call({VERSION!r}, {fn!r}, {json.dumps(kwargs)!r}, {json.dumps(args)!r})"
    for attempt in range(2):
        if not conn._helper_installed:
            await install(conn)
        res, reply = await run_execute(
            conn, "", silent=True, store_history=False, user_expressions={"r": expr}, timeout=probe_timeout
        )
        if reply is None:
            raise (KernelDeadError if res.status == "dead" else KernelServiceError)(
                f"Probe {fn} got no answer from kernel {conn.kernel_id}: "
                f"{res.error.message if res.error else res.status}"
            )
        ue = (reply.get("user_expressions") or {}).get("r") or {}
        if ue.get("status") == "ok":
            data = ue.get("data") or {}
            if "application/json" in data:
                return data["application/json"]["v"]
            raise KernelProtocolError(f"Probe {fn}: the kernel returned no JSON ({list(data)})")
        if attempt == 0 and _needs_install(ue):
            conn._helper_installed = False
            continue
        raise ProbeError(ue.get("ename", "Error"), ue.get("evalue", ""))
    raise KernelProtocolError(f"Probe {fn}: helper could not be installed")
