"""Keep the server's own secrets out of what other processes of its user can read (Linux).

Stripping secret variables from a kernel's environment (``kernel_env``) is not
enough on its own. A kernel runs as the server's user, so it can read
``/proc/<pid>/environ`` of the server and of every process the server starts:
terminals, language servers, other personas' agents. When ``strip_kernel_secrets``
is on, at start-up:

* secret-named variables leave ``os.environ`` and the C environment
  (``server_secrets.hold``), so no process started from now on inherits them; the
  server keeps their values in memory and hands its model providers their key
  explicitly. Names matching ``server_kept_secrets`` stay (code inside the server
  reads them at run time, like JupyterHub's ``JUPYTERHUB_API_TOKEN``); their
  children inherit those;
* the server's ``/proc/<pid>/environ`` is a view of the environment block it was
  *started* with (on its initial stack), which neither of the above changes: the
  values of secret-named variables are overwritten there with NUL bytes (the block is
  found through ``env_start``/``env_end`` of ``/proc/self/stat``), once;
* the server is marked non-dumpable (``PR_SET_DUMPABLE 0``), so other processes of
  the same user that are not root (kernels included: ``execve`` makes them dumpable
  again) can no longer open its ``/proc/<pid>/mem`` or ``environ``.

What stays readable is said in README's security section: the environment of the
server's *ancestors* (a shell started with the key), and everything to a kernel
running as root or with CAP_SYS_PTRACE.
"""

from __future__ import annotations

import ctypes
import logging
import os
import sys
from collections.abc import Iterable

from ..server_secrets import hold
from .kernel_env import secret_names

log = logging.getLogger(__name__)

PR_SET_DUMPABLE = 4
_done = False


def _env_block() -> tuple[int, int]:
    """Start and end address of this process's original environment block."""
    with open("/proc/self/stat", "rb") as fh:
        stat = fh.read()
    fields = stat[stat.rindex(b")") + 2 :].split()  # fields from the 3rd (state) on
    return int(fields[50 - 3]), int(fields[51 - 3])


def scrub_own_environment(patterns: Iterable[str], keep: Iterable[str] = ()) -> list[str]:
    """Move the secret-named variables not matching ``keep`` out of this process's
    environment, zero every secret-named value in its /proc environ and make it
    non-dumpable; returns the names moved. The /proc part is Linux only and done once
    (the block does not change)."""
    global _done
    patterns, names = list(patterns), secret_names(os.environ, patterns)
    kept = secret_names(names, keep)
    for name in kept:
        os.putenv(name, os.environ[name])  # C getenv() keeps working, from a heap copy
    moved = hold(n for n in names if n not in kept)
    if moved:
        log.info(
            "GeoAgent: %s moved out of the server's environment (its children do not inherit them)", ", ".join(moved)
        )
    if not _done and sys.platform.startswith("linux"):
        _done = True
        _zero_proc_environ(patterns)
        _make_undumpable()
    return moved


def _zero_proc_environ(patterns: list[str]) -> None:
    """Overwrite the values of secret-named variables in this process's original
    environment block, which /proc/<pid>/environ shows."""
    start, end = _env_block()
    with open("/proc/self/environ", "rb") as fh:
        seen = fh.read()
    block = ctypes.string_at(start, end - start)
    if block[: len(seen)] != seen:  # not the layout we expect: touch nothing
        log.warning("GeoAgent: could not locate the server's environment block; /proc/<pid>/environ keeps it")
        return
    entries = block.split(b"\0")
    names = set(secret_names([e.partition(b"=")[0].decode(errors="replace") for e in entries], patterns))
    zeroed, offset = [], 0
    for entry in entries:
        name, sep, value = entry.partition(b"=")
        if sep and value and name.decode(errors="replace") in names:
            ctypes.memset(start + offset + len(name) + 1, 0, len(value))
            zeroed.append(name.decode(errors="replace"))
        offset += len(entry) + 1
    if zeroed:
        log.info("GeoAgent: %s scrubbed from the server's /proc environ", ", ".join(sorted(zeroed)))


def _make_undumpable() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
        log.warning("GeoAgent: could not make the server non-dumpable (errno %d)", ctypes.get_errno())
