"""Live-kernel execution service: isolated client, trial sandbox, in-kernel introspection.

Every line of agent code reaches the user's kernel through :class:`KernelService`.
Module map (one concern each):

``connection``  private client per kernel (own session id, IOPub routing, restarts)
``execute``     one execute_request -> :class:`ExecutionResult` (timeouts, dead kernels)
``probe``       silent calls into the in-kernel helper ``__geoagent__`` (``KernelService.probe``)
``inkernel``    the helper's source (runs *in* the kernel): introspection, data probes, fork trials
``trial``       fork trials: the service's Unix socket, time limits, kills
``replay``      fallback trials: history replayed in a fresh kernel
``errors``      short error messages (what they mean for GIS code: agent/gis_hints.py)
``launch``      start a kernel with a cwd; find a notebook's kernel; a headless manager
"""

from .errors import shorten_error, strip_ansi
from .exceptions import (
    KernelBusyError,
    KernelDeadError,
    KernelNotFoundError,
    KernelProtocolError,
    KernelServiceError,
)
from .launch import kernel_for_notebook, local_kernel_manager, start_kernel
from .probe import ProbeError
from .results import ExecutionError, ExecutionResult, Member, TrialResult, VariableSummary
from .service import KernelService

__all__ = [
    "ExecutionError",
    "ExecutionResult",
    "KernelBusyError",
    "KernelDeadError",
    "KernelNotFoundError",
    "KernelProtocolError",
    "KernelService",
    "KernelServiceError",
    "Member",
    "ProbeError",
    "TrialResult",
    "VariableSummary",
    "kernel_for_notebook",
    "local_kernel_manager",
    "shorten_error",
    "start_kernel",
    "strip_ansi",
]
