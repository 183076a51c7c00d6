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
    "ASKED_STRATEGIES",
    "SOLVER_STRATEGIES",
    "before_run",
    "diagnose",
    "diagnose_live",
    "guards_for",
    "rules",
    "strategy_names",
    "table",
    "tripped_guard",
]

for _module in pkgutil.iter_modules(__path__):
    if _module.name != "base":
        importlib.import_module(f"{__name__}.{_module.name}")


def rules() -> list[Rule]:
    """Every rule, in its order."""
    return registered()


def before_run(code: str, bound_before: set[str], earlier: str = "") -> str:
    """``code`` with each rule's pre-run rewrite applied, in order (``bound_before``: the names
    earlier steps bound; ``earlier``: their code, for the rules that read where a name came from)."""
    for rule in registered():
        code = rule.before_run_reading(code, bound_before, earlier)
    return code


async def guards_for(kernel: Any, code: str, facts: TrialFacts) -> str:
    """The trial suffix of every rule's guard that ``code`` needs, with what the kernel's names
    hold before it (each guard asks its probe first)."""
    return "".join([await rule.guard(kernel, code, facts) for rule in registered()])


def diagnose(failure: Failure, *, unfixed: bool = False) -> Diagnosis | None:
    """The first rule's diagnosis of ``failure``, or None when no rule knows it. ``unfixed``: ask the
    rules kept for a failure nothing else fixes for certain instead."""
    asked = (rule for rule in registered() if rule.unfixed_only == unfixed)
    return next((found for found in (rule.diagnose(failure) for rule in asked) if found), None)


async def diagnose_live(diagnosis: Diagnosis, code: str, lineno: int | None, kernel: Any) -> Diagnosis | None:
    """The certain fix only the live kernel can tell of a failure the rules left to the model, or None."""
    for rule in registered():
        found = await rule.diagnose_live(diagnosis, code, lineno, kernel)
        if found:
            return found
    return None


# The strategies of a failure no rule fixes: the model repairs it, given what the strategy names
# (``repair.enrich``): a subtask inserted to define a name, the session's own variables instead of
# an example's, the live object's members, the data's profile, or its own reading of the error.
ASKED_STRATEGIES = ("insert_subtask", "example_name", "members", "data_profile", "analyse")
# The solvers' own turns, around the rules: an answer without code, a result the after-step check
# failed, the user's hint, the same error again, the subtask reworded.
SOLVER_STRATEGIES = ("no_code", "semantic", "hint", "escalate", "rewrite")


def strategy_names() -> list[str]:
    """Every strategy a ``repaired`` event may carry: the rules' (in their order), then the asked
    ones and the solvers'."""
    ruled = [rule.strategy for rule in registered() if rule.strategy]
    return list(dict.fromkeys([*ruled, *ASKED_STRATEGIES, *SOLVER_STRATEGIES]))


def table() -> str:
    """The rules as a Markdown table (module, strategy, what the rule fixes: its docstring's first
    sentence), for documentation generated from the registry rather than kept by hand."""
    rows = ["| rule | strategy | what it fixes |", "| --- | --- | --- |"]
    for rule in registered():
        doc = " ".join((type(rule).__doc__ or "").split())
        first = doc.split(": ", 1)[0] if ": " in doc.split(". ", 1)[0] else doc.split(". ", 1)[0]
        module = type(rule).__module__.rsplit(".", 1)[-1]
        strategy = rule.strategy or "(rewrites before the run, or guards)"
        rows.append(f"| `fixes/{module}.py` | {strategy} | {first.rstrip('.')} |")
    return "\n".join(rows) + "\n"
