"""A duplicate dropped without ordering the rows first, where the request names which copy stays."""

from __future__ import annotations

import ast
from typing import Any, cast

from .. import codeinfo
from .base import Diagnosis, Failure, Rule, TrialFacts


class KeptCopy(Rule):
    """``gdf.drop_duplicates(subset='parcel_id', keep='first')`` keeps the copy that comes first in the
    file, where the request keeps the one with the earliest (or latest) value of a column. Where the
    contract names that column for that key and the code orders by it nowhere, the trial fails the
    step and the call is written
    ``gdf.sort_values(by, ascending=..., kind='stable').drop_duplicates(subset=..., keep='first').sort_index()``:
    the named copy is kept and the rows stay in their order."""

    strategy = "kept_copy"
    order = 26

    async def guard(self, kernel: Any, code: str, facts: TrialFacts) -> str:
        found = unordered_drops(code, facts.kept_copies)
        if not found:
            return ""
        kept = [[list(key), by, keep] for key, by, keep in facts.kept_copies]
        why = (
            "drop_duplicates keeps the copy that comes first in the frame, but the request names which copy "
            f"stays (the {'earliest' if found[0][2] == 'min' else 'latest'} `{found[0][1]}`): sort by that column first"
        )
        return f"\n{self.trip({'kept': repr(kept)})}\nraise ValueError({why!r})\n"

    def diagnose(self, failure: Failure) -> Diagnosis | None:
        seen = self.tripped(failure)
        if seen is None:
            return None
        kept = tuple((tuple(key), str(by), str(keep)) for key, by, keep in seen.get("kept") or [])
        found = unordered_drops(failure.code, kept)
        edits = [(call, _ordered(failure.code, call, by, keep)) for call, by, keep in found]
        return self.diagnosis(failure, fixed_code=codeinfo.replaced(failure.code, edits)) if edits else None

    def said(self, diagnosis: Diagnosis) -> str:
        return "ordered the rows by the column the request names before dropping duplicates, keeping the named copy"


def _subset_arg(call: ast.Call) -> ast.expr | None:
    """A ``drop_duplicates`` call's ``subset``: its keyword, or its first positional argument."""
    return next((k.value for k in call.keywords if k.arg == "subset"), call.args[0] if call.args else None)


def _subset(call: ast.Call) -> tuple[str, ...] | None:
    """The columns of a ``drop_duplicates`` call's ``subset=`` (a name or a list of names)."""
    given = _subset_arg(call)
    if isinstance(given, ast.Constant) and isinstance(given.value, str):
        return (given.value,)
    if isinstance(given, (ast.List, ast.Tuple)) and all(
        isinstance(e, ast.Constant) and isinstance(e.value, str) for e in given.elts
    ):
        return tuple(str(e.value) for e in given.elts)  # type: ignore[attr-defined]
    return None


def unordered_drops(code: str, kept: tuple[tuple[tuple[str, ...], str, str], ...]) -> list[tuple[ast.Call, str, str]]:
    """(call, ordering column, "min"/"max") of each ``x.drop_duplicates(subset=key)`` keeping the first or
    last copy, for a key whose kept copy the contract names, in code that orders by that column nowhere."""
    tree = codeinfo.parse(code)
    if tree is None or not kept:
        return []
    by_key = {tuple(sorted(key)): (by, keep) for key, by, keep in kept}
    ordered = {
        str(n.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("sort_values", "idxmin", "idxmax", "nsmallest", "nlargest")
        for n in ast.walk(node)
        if isinstance(n, ast.Constant) and isinstance(n.value, str)
    }
    found = []
    for node in ast.walk(tree):
        if not (
            isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "drop_duplicates"
        ):
            continue
        subset = _subset(node)
        keep = next((k.value for k in node.keywords if k.arg == "keep"), None)
        keeps_one = keep is None or (isinstance(keep, ast.Constant) and keep.value in ("first", "last"))
        wanted = by_key.get(tuple(sorted(subset))) if subset else None
        if wanted and keeps_one and wanted[0] not in ordered:
            found.append((node, wanted[0], wanted[1]))
    return found


def _ordered(code: str, call: ast.Call, by: str, keep: str) -> str:
    """The ``drop_duplicates`` call written over the frame sorted by ``by``, its first copy kept, the
    rows back in their order."""
    frame = ast.get_source_segment(code, call.func.value) or ast.unparse(call.func.value)  # type: ignore[attr-defined]
    others = [
        ast.get_source_segment(code, k) or ast.unparse(k) for k in call.keywords if k.arg not in ("keep", "subset")
    ]
    given = cast(ast.expr, _subset_arg(call))  # unordered_drops found the call by its subset
    subset = ast.get_source_segment(code, given) or ast.unparse(given)
    args = ", ".join([f"subset={subset}", "keep='first'", *others])
    return f"{frame}.sort_values({by!r}, ascending={keep == 'min'}, kind='stable').drop_duplicates({args}).sort_index()"
