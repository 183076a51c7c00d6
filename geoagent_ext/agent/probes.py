"""The agent's data probes, asked through the kernel's one probe road.

The probes live in the in-kernel helper (``kernel/inkernel/_70_data_probes.py``), installed
once per kernel and called silently like introspection (``KernelHandle.probe``): nothing
lands in the user's history or namespace. ``run_probe`` is the agent's view of one: its
answer, or None when it could not give one.
"""

from __future__ import annotations

import posixpath
from typing import Any

from ..kernel import inkernel
from ..kernel.exceptions import KernelBusyError, KernelDeadError, KernelNotFoundError, KernelServiceError


def local_probes() -> dict[str, Any]:
    """The probe functions in this process, from the same source the kernel runs (for tests and
    benchmarks that need what a run sees, e.g. ``input_facts``, without a kernel)."""
    return vars(inkernel.load())


async def run_probe(kernel, function: str, *args: Any, timeout: float = 60) -> Any:
    """Call a probe function in the kernel; None when the probe could not answer."""
    try:
        return await kernel.probe(function, *args, probe_timeout=timeout)
    except (KernelBusyError, KernelDeadError, KernelNotFoundError):
        raise  # the kernel's state, not the probe's answer: as for any other call
    except KernelServiceError:  # it raised, timed out, or the kernel is not Python
        return None


def format_files(profile: dict[str, Any] | None, named: list[str] | None = None) -> str:
    """The data overview. Files the request names come first; the rest of the folder is listed
    apart, as available, so a plan does not pick up another example's rasters."""
    if not profile:
        return ""
    lines = [f"Working directory: {profile.get('cwd')}"]
    files = profile.get("files") or {}
    wanted = {posixpath.normpath(n) for n in named or []} | {posixpath.basename(n) for n in named or []}
    first = [p for p in files if posixpath.normpath(p) in wanted or posixpath.basename(p) in wanted]
    rest = [p for p in files if p not in first]
    if named and first:
        lines.append("Files the request names:")
    for path in first:
        lines.append(f"- {path}: {files[path] or 'unrecognised format'}")
    if named and first and rest:
        lines.append("Other files in the folder (not named in the request; use them only if the request needs them):")
    for path in rest:
        lines.append(f"- {path}: {files[path] or 'unrecognised format'}")
    if profile.get("empty_columns"):
        lines.append(
            f"Columns empty in every row of these files (keep them as they are): {', '.join(profile['empty_columns'])}"
        )
    return "\n".join(lines)
