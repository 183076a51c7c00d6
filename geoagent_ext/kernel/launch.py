"""Finding and starting kernels, for both kinds of kernel manager.

``MappingKernelManager`` (inside jupyter_server, possibly a gateway one) takes an
API ``path`` relative to the server root; jupyter_client's
``AsyncMultiKernelManager`` (headless CLI, benchmarks) takes a ``cwd``.
"""

from __future__ import annotations

import os
from typing import Any

from .connection import maybe_await
from .exceptions import KernelNotFoundError


def local_kernel_manager(config: Any = None, connection_dir: str | None = None) -> Any:
    """An ``AsyncMultiKernelManager`` for headless use (CLI, benchmarks, tests).

    jupyter_client's default ``connection_dir`` is ``""``, i.e. connection files
    (with the kernel's key) land in the process's cwd, and a killed kernel leaves
    its file behind; we put them in Jupyter's runtime directory instead.
    """
    from jupyter_client.multikernelmanager import AsyncMultiKernelManager
    from jupyter_core.paths import jupyter_runtime_dir

    directory = connection_dir or jupyter_runtime_dir()
    os.makedirs(directory, mode=0o700, exist_ok=True)
    kwargs: dict[str, Any] = {"connection_dir": directory}
    if config is not None:
        kwargs["config"] = config
    return AsyncMultiKernelManager(**kwargs)


async def start_kernel(kernel_manager: Any, cwd: str | None = None, kernel_name: str | None = None) -> str:
    """Start a kernel whose working directory is ``cwd``; returns its id."""
    kwargs: dict[str, Any] = {}
    if kernel_name:
        kwargs["kernel_name"] = kernel_name
    if hasattr(kernel_manager, "cwd_for_path"):  # jupyter_server
        root = os.path.realpath(getattr(kernel_manager, "root_dir", "") or os.getcwd())
        if cwd:
            real = os.path.realpath(cwd)
            if real == root or real.startswith(root + os.sep):
                kwargs["path"] = os.path.relpath(real, root).replace(os.sep, "/")
    elif cwd:
        kwargs["cwd"] = os.fspath(cwd)
    return await maybe_await(kernel_manager.start_kernel(**kwargs))


async def kernel_for_notebook(path: str, session_manager: Any) -> str:
    """The kernel id of the session of notebook ``path`` (an API path, as in the URL)."""
    want = path.strip("/")
    sessions = await maybe_await(session_manager.list_sessions())
    for s in sessions:
        if (s.get("path") or "").strip("/") == want and s.get("kernel"):
            return s["kernel"]["id"]
    known = sorted((s.get("path") or "?") for s in sessions)
    raise KernelNotFoundError(
        f"No running kernel session for notebook {path!r}; open it in JupyterLab and start "
        f"its kernel. Notebooks with sessions: {known or 'none'}"
    )
