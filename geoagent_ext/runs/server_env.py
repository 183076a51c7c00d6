"""Keep the server's own secrets out of what its kernels can read about it (Linux).

Stripping secret variables from a kernel's environment (``kernel_env``) is not
enough on its own: a kernel is a child of the server, runs as the same user, and
``open(f"/proc/{os.getppid()}/environ")`` shows the environment the server was
*started* with. That file is a view of the process's original environment block
(on its initial stack); ``del os.environ[...]`` or ``unsetenv`` only drop
pointers to it, the bytes stay. So, once, when ``strip_kernel_secrets`` is on:

* the values of secret-named variables are overwritten with NUL bytes in that
  block (found through ``env_start``/``env_end`` of ``/proc/self/stat``), after
  ``putenv`` gave C code a copy on the heap; Python's ``os.environ`` (what the
  provider libraries read) keeps its values, so models work as before;
* the server is marked non-dumpable (``PR_SET_DUMPABLE 0``), so other processes
  of the same user that are not root (kernels included: ``execve`` makes them
  dumpable again) can no longer open its ``/proc/<pid>/mem`` or ``environ``.

What stays readable is said in README's security section: the environment of
the server's *ancestors* (a shell started with the key), and everything to a
kernel running as root or with CAP_SYS_PTRACE.
"""

from __future__ import annotations

import ctypes
import logging
import os
import sys
from typing import Iterable

from .kernel_env import secret_names

log = logging.getLogger(__name__)

PR_SET_DUMPABLE = 4
_done = False


def _env_block() -> tuple[int, int]:
    """Start and end address of this process's original environment block."""
    with open("/proc/self/stat", "rb") as fh:
        stat = fh.read()
    fields = stat[stat.rindex(b")") + 2:].split()  # fields from the 3rd (state) on
    return int(fields[50 - 3]), int(fields[51 - 3])


def scrub_own_environment(patterns: Iterable[str]) -> list[str]:
    """Zero the values of secret-named variables in this process's /proc environ and make
    the process non-dumpable; returns the names scrubbed. Linux only; a no-op elsewhere
    and on a second call (the block does not change)."""
    global _done
    if _done or not sys.platform.startswith("linux"):
        return []
    _done = True
    start, end = _env_block()
    with open("/proc/self/environ", "rb") as fh:
        seen = fh.read()
    block = ctypes.string_at(start, end - start)
    if block[: len(seen)] != seen:  # not the layout we expect: touch nothing
        log.warning("GeoAgent: could not locate the server's environment block; /proc/<pid>/environ keeps it")
        return []
    names = set(secret_names(os.environ, patterns))
    scrubbed = []
    offset = 0
    for entry in block.split(b"\0"):
        name, sep, value = entry.partition(b"=")
        key = name.decode(errors="replace")
        if sep and value and key in names:
            os.putenv(key, os.environ[key])  # C getenv() keeps working, from a heap copy
            ctypes.memset(start + offset + len(name) + 1, 0, len(value))
            scrubbed.append(key)
        offset += len(entry) + 1
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
        log.warning("GeoAgent: could not make the server non-dumpable (errno %d)", ctypes.get_errno())
    if scrubbed:
        log.info("GeoAgent: %s scrubbed from the server's /proc environ", ", ".join(sorted(scrubbed)))
    return sorted(scrubbed)
