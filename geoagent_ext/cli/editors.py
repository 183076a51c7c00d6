"""Is a notebook open in a running Jupyter server? The CLI writes .ipynb files on disk, which is
safe only when no editor holds the notebook: an open editor keeps its own copy (and, with RTC,
its own document) and would save over the change, or the two would diverge."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path


def _sessions(info: dict) -> list[dict]:
    request = urllib.request.Request(
        info["url"].rstrip("/") + "/api/sessions", headers={"Authorization": f"token {info.get('token', '')}"}
    )
    with urllib.request.urlopen(request, timeout=3) as response:  # noqa: S310 - a local server's own URL
        return json.loads(response.read())


def open_in(path: Path) -> str | None:
    """The URL of a running Jupyter server with a session (an open notebook with a kernel) on
    ``path``, or None. A notebook open with no kernel has no session and is not seen."""
    try:
        from jupyter_server.serverapp import list_running_servers
    except ImportError:
        return None
    target = path.resolve()
    for info in list_running_servers():
        root = Path(info.get("root_dir") or info.get("notebook_dir") or "/").resolve()
        try:
            relative = target.relative_to(root).as_posix()
        except ValueError:
            continue
        try:
            sessions = _sessions(info)
        except Exception:  # a stale runtime file, a server that wants a password: cannot tell, go on
            continue
        if any(s.get("path") == relative for s in sessions):
            return info["url"]
    return None
