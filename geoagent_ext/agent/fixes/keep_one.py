"""Every copy of a duplicate dropped (``keep=False``) where the contract keeps one of each set."""

from __future__ import annotations

import ast
from typing import Any

from .. import codeinfo
from .base import Diagnosis, Failure, Rule, TrialFacts


class KeepOne(Rule):
    """``gdf.drop_duplicates(subset='geometry', keep=False)`` (or ``gdf[~gdf.duplicated(keep=False)]``)
    drops every copy, so the features that had a duplicate are gone. Where the contract keeps one of
    each set of duplicates, the trial fails such a step and each ``keep=False`` becomes
    ``keep='first'``; which copy is kept is the contract's ordering requirement's to check. A
    ``duplicated(keep=False)`` that only selects the copies (not negated) is left as written."""

    strategy = "keep_one"
    order = 25

    async def guard(self, kernel: Any, code: str, facts: TrialFacts) -> str:
        found = len(every_copy_dropped(code)) if facts.keeps_one else 0
        return self.refuse(
            found,
            "keep=False drops every copy of a duplicate, but the request keeps one of each set: "
            "use keep='first' (after sorting by the column that says which one)",
        )

    def diagnose(self, failure: Failure) -> Diagnosis | None:
        if self.tripped(failure) is None:
            return None
        found = every_copy_dropped(failure.code)
        edits = [(keyword.value, "'first'") for keyword in found]
        return self.diagnosis(failure, fixed_code=codeinfo.replaced(failure.code, edits)) if edits else None

    def said(self, diagnosis: Diagnosis) -> str:
        return "kept one of each set of duplicates (`keep='first'`) where the step dropped every copy"


def every_copy_dropped(code: str) -> list[ast.keyword]:
    """The ``keep=False`` keywords of ``code``'s ``drop_duplicates`` calls and negated
    ``~x.duplicated(...)`` filters."""
    tree = codeinfo.parse(code)
    if tree is None:
        return []
    negated = {
        id(node.operand) for node in ast.walk(tree) if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Invert)
    }
    return [
        keyword
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and (node.func.attr == "drop_duplicates" or (node.func.attr == "duplicated" and id(node) in negated))
        for keyword in node.keywords
        if keyword.arg == "keep" and isinstance(keyword.value, ast.Constant) and keyword.value.value is False
    ]
