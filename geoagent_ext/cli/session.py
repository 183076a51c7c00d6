"""A headless GeoAgent session: a fresh kernel, a model and the index, for CLI and bench.

The server builds the same three things from jupyter_server's managers; here we
own them, so this context manager also shuts the kernel down however the run ends.
"""

from __future__ import annotations

from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, AsyncIterator

from ..agent.kernel_handle import BoundKernel
from ..config import GeoAgentSettings
from ..kernel import KernelService, start_kernel
from ..kernel.launch import local_kernel_manager
from ..llm.client import LLMClient
from ..llm.factory import make_chat_model


@dataclass
class Session:
    kernel: BoundKernel
    llm: LLMClient
    model_name: str
    index: Any
    kernel_id: str


def open_index(settings: GeoAgentSettings, console=None):
    """The knowledge index, or None with a printed reason (a run works without it)."""
    try:
        from ..rag import KnowledgeIndex

        index = KnowledgeIndex.open(settings)
        return index
    except Exception as exc:
        if console is not None:
            console.print(f"[yellow]API index unavailable ({exc}); continuing without retrieval. "
                          "Build it with `jupyter geoagent index build`.[/]")
        return None


@asynccontextmanager
async def open_session(settings: GeoAgentSettings, *, cwd: Path, model: str | None = None,
                       use_index: bool = True, console=None, kernel_name: str = "python3") -> AsyncIterator[Session]:
    model_name = model or settings.model
    chat_model = make_chat_model(model_name, settings)
    llm = LLMClient(chat_model, timeout=settings.llm_timeout)
    index = open_index(settings, console) if use_index else None
    manager = local_kernel_manager()
    kernel_id = await start_kernel(manager, cwd=str(cwd), kernel_name=kernel_name)
    service = KernelService(manager)
    try:
        yield Session(kernel=BoundKernel(service, kernel_id), llm=llm, model_name=model_name, index=index, kernel_id=kernel_id)
    finally:
        try:
            await service.close()
        finally:
            await manager.shutdown_all(now=True)
