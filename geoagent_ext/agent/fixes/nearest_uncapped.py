"""A nearest join given a ``max_distance`` the request never set, where every input row is kept."""

from __future__ import annotations

import ast
from typing import Any

from .. import codeinfo
from .base import Diagnosis, Failure, Rule, TrialFacts


class NearestUncapped(Rule):
    """``gpd.sjoin_nearest(a, b, max_distance=2000)`` leaves out (or leaves blank) every row of ``a``
    with nothing that near. Where the contract keeps one row per input feature and the request caps
    no distance, the trial fails such a step and the ``max_distance=`` goes: the nearest is the
    nearest, however far."""

    strategy = "nearest_uncapped"
    order = 26

    async def guard(self, kernel: Any, code: str, facts: TrialFacts) -> str:
        found = len(capped_joins(code)) if facts.keeps_every_row and not facts.caps_distance else 0
        return self.refuse(
            found,
            "sjoin_nearest(max_distance=...) drops the rows with nothing that near, but the request keeps "
            "every row and sets no distance limit: leave max_distance out",
        )

    def diagnose(self, failure: Failure) -> Diagnosis | None:
        if self.tripped(failure) is None:
            return None
        edits: list[tuple[ast.expr | ast.stmt, str]] = []
        for call in capped_joins(failure.code):
            kept = [k for k in call.keywords if k.arg != "max_distance"]
            edits.append((call, ast.unparse(ast.Call(call.func, call.args, kept))))
        return self.diagnosis(failure, fixed_code=codeinfo.replaced(failure.code, edits)) if edits else None

    def said(self, diagnosis: Diagnosis) -> str:
        return "left out the nearest join's `max_distance` (the request keeps every row and sets no limit)"


def capped_joins(code: str) -> list[ast.Call]:
    """The ``sjoin_nearest`` calls of ``code`` given a ``max_distance``."""
    tree = codeinfo.parse(code)
    return [
        node
        for node in (ast.walk(tree) if tree is not None else [])
        if isinstance(node, ast.Call)
        and codeinfo.method_of(node) == "sjoin_nearest"
        and any(k.arg == "max_distance" for k in node.keywords)
    ]
