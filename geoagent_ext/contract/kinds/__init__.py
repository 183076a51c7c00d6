"""The registry of requirement kinds: every module of this package defines one kind or a small family,
each a :class:`RequirementKind` holding the kind's name, its typed params, its repair advice, its
mend (where one exists), its in-kernel check and (optionally) its reading of a request. A new kind
is one new module here.

The checks run in the user's kernel, not here: :func:`checker_source` is the contract's part of
the in-kernel helper — the shared checker (``contract/checker.py``), each kind's check and its
helpers copied as source, and ``_CONTRACT_KINDS``, the table the checker dispatches on.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections.abc import Callable
from pathlib import Path

from .. import checker
from ._kind import Builder, MendSite, Params, RequestView, RequirementKind


def _discovered() -> dict[str, RequirementKind]:
    """Every kind the package's modules define, by name (sorted: the order the schema lists them)."""
    found: dict[str, RequirementKind] = {}
    for module in pkgutil.iter_modules(__path__):
        if module.name.startswith("_"):
            continue
        members = vars(importlib.import_module(f"{__name__}.{module.name}")).values()
        for kind in [m for m in members if isinstance(m, RequirementKind)]:
            if kind.name in found:
                raise ValueError(f"requirement kind {kind.name!r} is defined twice")
            if kind.check is not None and kind.check.__name__ != kind.check_name:
                raise ValueError(f"the check of {kind.name!r} must be named {kind.check_name}")
            found[kind.name] = kind
    return dict(sorted(found.items()))


KINDS: dict[str, RequirementKind] = _discovered()
KIND_NAMES: tuple[str, ...] = tuple(KINDS)
CHECKABLE: frozenset[str] = frozenset(name for name, kind in KINDS.items() if kind.check is not None)


def checker_source() -> str:
    """The contract's part of the in-kernel helper: the checker, each kind's check with its helpers
    (each function once) and the dispatch table ``{kind: (what it reads, needs geometry, check)}``."""
    shipped: dict[str, Callable] = {}
    for function in [f for kind in KINDS.values() for f in (*kind.helpers, kind.check) if f is not None]:
        if shipped.setdefault(function.__name__, function) is not function or hasattr(checker, function.__name__):
            raise ValueError(f"two in-kernel functions are named {function.__name__}: one namespace holds them all")
    checks = [inspect.getsource(function) for function in shipped.values()]
    table = "".join(
        f"    {kind.name!r}: ({kind.reads!r}, {kind.geometry!r}, {kind.check_name}),\n"
        for kind in KINDS.values()
        if kind.check is not None
    )
    return "\n\n".join([Path(checker.__file__).read_text(), *checks, f"_CONTRACT_KINDS = {{\n{table}}}\n"])


__all__ = [
    "Builder",
    "CHECKABLE",
    "KINDS",
    "KIND_NAMES",
    "MendSite",
    "Params",
    "RequestView",
    "RequirementKind",
    "checker_source",
]
