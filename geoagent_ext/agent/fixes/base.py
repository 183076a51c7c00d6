"""What a certain fix is made of, shared by every rule of the registry (``fixes/__init__.py``).

A rule knows one mistake whose right rewrite is known, so no model call is spent on it. A rule may
rewrite every coder answer before it runs (``before_run``), append a guard to a step's trial that
fails a step which ran but lost what later steps need (``guard``), turn a failed attempt into a
``Diagnosis`` carrying the rewritten code (``diagnose``), and say what it did (``said``). A guard
reports what it saw as data on the trial's stdout (``trip``), next to the error the model reads, so
the rewrite never parses the guard's own English.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, ClassVar

GUARD_MARK = "@@GEOAGENT_GUARD@@"

# Python's words for a name nothing has bound (a NameError), the name as its group
UNDEFINED_NAME = re.compile(r"name '([^']+)' is not defined")


@dataclass
class Diagnosis:
    strategy: str
    message: str
    name: str | None = None
    expression: str | None = None
    fixed_code: str | None = None  # set when the fix is certain: the next attempt is this code, no model call

    @property
    def fix_said(self) -> str:
        """What the certain fix did, for the ``repaired`` event (the rule of the strategy says it)."""
        rule = _BY_STRATEGY.get(self.strategy)
        return rule.said(self) if rule is not None else ""


@dataclass
class Failure:
    """A failed attempt as the rules read it."""

    code: str
    ename: str
    evalue: str
    message: str  # the shortened error the model is shown
    lineno: int | None
    defined_before: set[str] = field(default_factory=set)  # names earlier steps bound
    examples: str = ""  # the docs the coder was shown
    own_words: str = ""  # the request and the subtask
    refused_before: set[tuple[str, str]] = field(default_factory=set)  # (function, keyword) refused in this subtask
    tripped: dict[str, Any] | None = None  # what the trial guard that failed the attempt saw (``trip``)
    subtask: str = ""  # the subtask's words
    mended: set[str] = field(default_factory=set)  # columns the contract's mend computes on the written files


@dataclass
class TrialFacts:
    """What the guards need to know of the run beyond the code."""

    keeps_invalid: bool = False  # the contract keeps invalid features, repaired
    keeps_one: bool = False  # of each set of duplicates, the contract keeps one
    kept_copies: tuple[tuple[tuple[str, ...], str, str], ...] = ()  # (key, by, "min"/"max"): which one it keeps
    keeps_every_row: bool = False  # an output keeps one row per feature of its input
    caps_distance: bool = False  # the request caps a distance ("within 2 km")
    spatial_output: bool = False  # an output of the contract has geometries
    spatial_paths: tuple[str, ...] = ()  # the contract's outputs that have geometries
    output_columns: tuple[str, ...] = ()  # the columns the contract's outputs list
    mended_columns: tuple[str, ...] = ()  # the columns the contract's mend computes whatever the code writes


_BY_STRATEGY: dict[str, Rule] = {}
_REGISTERED: list[Rule] = []


class Rule:
    """One certain fix. Subclasses register themselves; ``order`` places them among the others
    (lower first: the guards' order in the trial, the first rule that diagnoses a failure wins)."""

    strategy: ClassVar[str | None] = None  # the ``repaired`` event's strategy; None when it only rewrites or guards
    order: ClassVar[int] = 500
    unfixed_only: ClassVar[bool] = False  # asked only when nothing else fixes the failure for certain

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        rule = cls()
        _REGISTERED.append(rule)
        if cls.strategy is not None:
            _BY_STRATEGY.setdefault(cls.strategy, rule)

    def before_run(self, code: str, bound_before: set[str]) -> str:
        """``code`` with the mistake rewritten, before any run (``bound_before``: names earlier steps bound)."""
        return code

    def before_run_reading(self, code: str, bound_before: set[str], earlier: str) -> str:
        """``before_run`` for a rule that also reads the earlier steps' code (``earlier``): where a
        name they bound came from."""
        return self.before_run(code, bound_before)

    async def guard(self, kernel: Any, code: str, facts: TrialFacts) -> str:
        """Code appended to the trial of ``code`` that fails it when the mistake happened ("" for none)."""
        return ""

    def diagnose(self, failure: Failure) -> Diagnosis | None:
        """The diagnosis of ``failure`` when this rule knows it, else None (the next rule is asked)."""
        return None

    async def diagnose_live(self, diagnosis: Diagnosis, code: str, lineno: int | None, kernel: Any) -> Diagnosis | None:
        """A certain fix of a failure the rules left to the model (``diagnosis``) that only the live
        kernel can tell, else None."""
        return None

    def said(self, diagnosis: Diagnosis) -> str:
        """What the fix did, in the user's words."""
        return ""

    def diagnosis(self, failure: Failure, **fields: Any) -> Diagnosis:
        return Diagnosis(self.strategy or "", failure.message, **fields)

    def tripped(self, failure: Failure) -> dict[str, Any] | None:
        """What this rule's guard saw when it was the one that failed the attempt, else None."""
        seen = failure.tripped
        return seen if seen is not None and seen.get("rule") == type(self).__name__ else None

    def refuse(self, found: int, why: str) -> str:
        """A trial suffix that fails a step for what its code says alone (``found`` places of the
        mistake), reporting the count as the guard's data and ``why`` as the error the model reads."""
        if not found:
            return ""
        return f"\n{self.trip({'calls': repr(found)})}\nraise ValueError({why!r})\n"

    def trip(self, seen: dict[str, str]) -> str:
        """The in-trial statement that reports what the guard saw, just before it raises: ``seen``
        maps each field to a Python expression of the guard's loop."""
        fields = ", ".join(f"{key!r}: {expression}" for key, expression in seen.items())
        return f"print({GUARD_MARK!r} + __import__('json').dumps({{'rule': {type(self).__name__!r}, {fields}}}))"


def registered() -> list[Rule]:
    return sorted(_REGISTERED, key=lambda rule: rule.order)


def tripped_guard(stdout: str) -> dict[str, Any] | None:
    """What the trial guard that failed a trial saw (``Rule.trip``), or None when none did."""
    for line in reversed((stdout or "").splitlines()):
        if line.startswith(GUARD_MARK):
            try:
                seen = json.loads(line[len(GUARD_MARK) :])
            except ValueError:
                return None
            return seen if isinstance(seen, dict) else None
    return None


def for_each(items: dict | list, names: str, body: list[str]) -> str:
    """A trial suffix that runs ``body`` for each item of ``items`` (a dict's (key, value) pairs)
    bound to ``names`` ("" for none)."""
    if not items:
        return ""
    loop = f"{items!r}.items()" if isinstance(items, dict) else repr(items)
    return f"\nfor {names} in {loop}:\n" + "".join(f"    {line}\n" for line in body)
