"""The server's secret variables once they have left its environment.

Every process the server starts inherits its environment: terminals, language
servers, agents of other Jupyter AI personas, kernels. Any of those is a process of
the user that a kernel of the same user can read (``/proc/<pid>/environ``). So with
``strip_kernel_secrets`` the server moves its secret-named variables out of
``os.environ`` at start-up (``runs/server_env.py``) and keeps their values here, in
its own memory, for the code of its own that needs them: the model providers (given
their key explicitly, ``llm/factory.py``), the model list, and redaction.

It sits at the package root, beside ``redact``, because both ``llm`` and ``redact``
read it and neither may import ``runs``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

_held: dict[str, str] = {}


def hold(names: Iterable[str]) -> list[str]:
    """Move these variables out of ``os.environ`` (and the C environment, which
    ``subprocess`` and ``exec`` pass on) into this process's memory; the names moved."""
    moved = []
    for name in names:
        value = os.environ.pop(name, None)
        if value is not None:
            _held[name] = value
            moved.append(name)
    return sorted(moved)


def server_secret(name: str) -> str | None:
    """A secret variable's value: from the environment, else held (None: neither)."""
    return os.environ.get(name) or _held.get(name)


def is_held(name: str) -> bool:
    """The variable was moved out of the environment: provider libraries cannot find it there."""
    return name in _held and name not in os.environ


def held() -> dict[str, str]:
    """The held variables (name -> value), for redaction."""
    return dict(_held)


def forget_held() -> None:
    """Drop the held values (tests: one process hosts many servers, each test its own environment)."""
    _held.clear()
