"""The registry of certain fixes: every module of this package but ``base`` holds rules (``base.Rule``
subclasses), so adding a rule is adding one module. The solvers reach the rules only through the
functions here: the rewrites before a run, the guards of a trial, the diagnosis of a failed attempt
and the names of the strategies the ``repaired`` event may carry.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any

from .base import Diagnosis, Failure, Rule, TrialFacts, registered, tripped_guard

__all__ = [
    "Diagnosis",
    "Failure",
    "Rule",
    "TrialFacts",
    "before_run",
    "diagnose",
    "guards_for",
    "rules",
    "strategy_names",
    "tripped_guard",
]

for _module in pkgutil.iter_modules(__path__):
    if _module.name != "base":
        importlib.import_module(f"{__name__}.{_module.name}")


def rules() -> list[Rule]:
    """Every rule, in its order."""
    return registered()


def before_run(code: str, bound_before: set[str]) -> str:
    """``code`` with each rule's pre-run rewrite applied, in order (``bound_before``: the names
    earlier steps bound)."""
    for rule in registered():
        code = rule.before_run(code, bound_before)
    return code


async def guards_for(kernel: Any, code: str, facts: TrialFacts) -> str:
    """The trial suffix of every rule's guard that ``code`` needs, with what the kernel's names
    hold before it (each guard asks its probe first)."""
    return "".join([await rule.guard(kernel, code, facts) for rule in registered()])


def diagnose(failure: Failure) -> Diagnosis | None:
    """The first rule's diagnosis of ``failure``, or None when no rule knows it."""
    return next((found for found in (rule.diagnose(failure) for rule in registered()) if found), None)


def strategy_names() -> list[str]:
    """The strategies the rules give, in their order."""
    return list(dict.fromkeys(rule.strategy for rule in registered() if rule.strategy))
