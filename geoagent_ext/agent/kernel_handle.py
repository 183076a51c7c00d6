"""The agent's narrow view of one kernel: a KernelService bound to a kernel id.

The agent never sees kernel ids or managers; it gets a ``KernelHandle`` and
calls execute/trial/introspection on it. Tests and the CLI build one from a
``KernelService`` they own; the server builds one per run from jupyter_server's
kernel manager.
"""

from __future__ import annotations

from typing import Any, Protocol

from ..llm.redact import redact
from .events import ExecutionSummary


class KernelHandle(Protocol):
    async def execute(self, code: str, *, timeout: float | None = None, silent: bool = False, store_history: bool = True) -> Any: ...
    async def trial(self, code: str, *, timeout: float = 60) -> Any: ...
    async def members(self, expression: str) -> list[Any]: ...
    async def closest_names(self, expression: str, wrong_name: str) -> list[str]: ...
    async def profile(self, name: str) -> str: ...
    async def variables(self) -> list[Any]: ...


class BoundKernel:
    """Adapter: ``KernelService`` + ``kernel_id`` -> ``KernelHandle``."""

    def __init__(self, service, kernel_id: str):
        self.service = service
        self.kernel_id = kernel_id

    async def execute(self, code, *, timeout=None, silent=False, store_history=True):
        return await self.service.execute(self.kernel_id, code, timeout=timeout, silent=silent, store_history=store_history)

    async def trial(self, code, *, timeout=60):
        return await self.service.trial(self.kernel_id, code, timeout=timeout)

    async def members(self, expression):
        return await self.service.members(self.kernel_id, expression)

    async def closest_names(self, expression, wrong_name):
        return await self.service.closest_names(self.kernel_id, expression, wrong_name)

    async def profile(self, name):
        return await self.service.profile(self.kernel_id, name)

    async def variables(self):
        return await self.service.variables(self.kernel_id)


def summarize(result: Any, warnings: list[str] | None = None, limit: int = 4000) -> ExecutionSummary:
    """Kernel result -> the compact form events carry (text capped, outputs kept).

    Redacted before the cap: a cut through a secret would leave a piece no rule recognises.
    """
    error = getattr(result, "error", None)
    return ExecutionSummary(
        status=result.status,
        stdout=redact(result.stdout or "")[-limit:],
        stderr=redact(result.stderr or "")[-limit:],
        outputs=list(getattr(result, "outputs", []) or []),
        error=getattr(error, "message", None) if error else None,
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
