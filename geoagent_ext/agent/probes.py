"""Run the agent's data probes in the live kernel without touching its namespace.

The probe source (``_probe_source.py``) is executed in a fresh globals dict via
``exec`` inside one silent request; the answer comes back as one marked JSON
line on stdout. Silent requests keep the probes out of the user's history and
execution count.
"""

from __future__ import annotations

import functools
import json
import posixpath
from importlib import resources
from typing import Any

MARKER = "__GEOAGENT_PROBE__"


@functools.cache
def _source() -> str:
    """The probes, after the in-kernel helper's parts they share (read once): the geometry-column
    rule and the deliverable contract's checks."""
    inkernel = resources.files("geoagent_ext.kernel.inkernel")
    shared = [inkernel.joinpath(name).read_text() for name in ("_15_geocolumns.py", "_50_contract.py")]
    return "\n\n".join(shared + [resources.files("geoagent_ext.agent").joinpath("_probe_source.py").read_text()])


def local_probes() -> dict[str, Any]:
    """The probe functions in this process, from the same source the kernel runs (for tests and
    benchmarks that need what a run sees, e.g. ``input_facts``, without a kernel)."""
    namespace: dict[str, Any] = {"__name__": "__geoagent_probe__"}
    exec(compile(_source(), "<geoagent-probe>", "exec"), namespace)
    return namespace


def probe_code(function: str, *args: Any) -> str:
    call = f"{function}(*_json.loads({json.dumps(args)!r}))"
    program = f"{_source()}\nprint({MARKER!r} + _json.dumps({call}, default=str))\n"
    return f"exec(compile({program!r}, '<geoagent-probe>', 'exec'), {{'__name__': '__geoagent_probe__'}})"


def parse_probe_output(stdout: str) -> Any:
    for line in reversed(stdout.splitlines()):
        if line.startswith(MARKER):
            return json.loads(line[len(MARKER):])
    return None


async def run_probe(kernel, function: str, *args: Any, timeout: float = 60) -> Any:
    """Call a probe function in the kernel; None when the probe could not answer."""
    result = await kernel.execute(probe_code(function, *args), timeout=timeout, silent=True)
    if result.status != "ok":
        return None
    return parse_probe_output(result.stdout)


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
        lines.append(f"Columns empty in every row of these files (keep them as they are): {', '.join(profile['empty_columns'])}")
    return "\n".join(lines)
