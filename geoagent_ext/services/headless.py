"""Services without a Jupyter server: a fresh kernel, a model and the index, for CLI and bench.

The server gets its kernels from jupyter_server's managers; here we own the kernel
manager, so the context manager also shuts the kernel down however the run ends.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..agent.kernel_handle import BoundKernel
from ..agent.run import Run, RunOptions
from ..config import GeoAgentSettings
from ..kernel import start_kernel
from ..kernel.launch import local_kernel_manager
from ..llm.client import LLMClient
from .knowledge import LazyKnowledgeIndex
from .root import GeoAgentServices


@dataclass
class HeadlessSession:
    """One kernel with the model and index a headless run uses."""

    services: GeoAgentServices
    kernel: BoundKernel
    kernel_id: str
    llm: LLMClient
    model_name: str
    knowledge_index: Any  # None: without retrieval

    def new_run(self, request: str, *, options: RunOptions, log_dir: Path, notebook: str | None = None) -> Run:
        """A run of ``request`` on this session's kernel, model and index."""
        return Run(
            request,
            kernel=self.kernel,
            llm=self.llm,
            model_name=self.model_name,
            knowledge_index=self.knowledge_index,
            options=options,
            log_dir=log_dir,
            notebook=notebook,
        )


@asynccontextmanager
async def open_headless_services(
    settings: GeoAgentSettings,
    *,
    cwd: Path,
    model: str | None = None,
    use_index: bool = True,
    warn: Callable[[str], None] | None = None,
    kernel_name: str = "python3",
) -> AsyncIterator[HeadlessSession]:
    """A kernel started in ``cwd``, ``model`` (default: the configured one; any spec, as the
    user typed it) and the index (built on first use when missing, unless ``use_index`` is
    off; why it is unavailable goes to ``warn``)."""
    model_name = model or settings.model
    manager = local_kernel_manager()
    services = GeoAgentServices(
        settings, manager, knowledge=LazyKnowledgeIndex(settings, enabled=use_index, auto_build=True, warn=warn)
    )
    try:
        # The cache's own errors (a bad spec says why), not the server's 400: no request here.
        llm = LLMClient(await services.models.get(model_name), timeout=settings.llm_timeout)
        index = await services.knowledge_index()
        kernel_id = await start_kernel(manager, cwd=str(cwd), kernel_name=kernel_name)
        yield HeadlessSession(services, BoundKernel(services.kernels, kernel_id), kernel_id, llm, model_name, index)
    finally:
        try:
            await services.close()
        finally:
            await manager.shutdown_all(now=True)
