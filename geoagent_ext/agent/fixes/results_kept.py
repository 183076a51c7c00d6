"""A method that returns a new frame, called as a statement: its result is dropped."""

from __future__ import annotations

import ast
from typing import cast

from .. import codeinfo
from .base import Rule


class ResultsKept(Rule):
    """``gdf.to_crs(3857)`` on its own line leaves ``gdf`` as it was, and every later measure is in
    the old CRS: the result is assigned back before the code runs."""

    order = 101

    def before_run(self, code: str, bound_before: set[str]) -> str:
        return with_results_kept(code)


# Methods that return a new frame and leave theirs as it was (without ``inplace=True``).
_RETURNS_NEW = frozenset(
    {
        "to_crs",
        "set_crs",
        "set_geometry",
        "rename_geometry",
        "make_valid",
        "explode",
        "dissolve",
        "drop_duplicates",
        "dropna",
        "reset_index",
        "sort_values",
        "rename",
        "astype",
        "fillna",
    }
)


def with_results_kept(code: str) -> str:
    """``code`` with each statement ``name.method(...)`` of a method that returns a new frame
    (``_RETURNS_NEW``, no ``inplace=True``) written ``name = name.method(...)``: as a statement its
    result is dropped and ``name`` is left as it was. Not the last statement, whose value a cell
    shows."""
    tree = codeinfo.parse(code)
    body = tree.body[:-1] if tree is not None else []
    dropped = [
        stmt
        for stmt in body
        if isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Call)
        and isinstance(stmt.value.func, ast.Attribute)
        and isinstance(stmt.value.func.value, ast.Name)
        and stmt.value.func.attr in _RETURNS_NEW
        and not any(k.arg == "inplace" for k in stmt.value.keywords)
    ]
    return codeinfo.replaced(
        code,
        [(stmt.value, f"{_frame_of(stmt)} = {ast.get_source_segment(code, stmt.value)}") for stmt in dropped],
    )


def _frame_of(stmt: ast.stmt) -> str:
    """The frame a ``frame.method(...)`` statement calls on (the statements ``with_results_kept`` picks)."""
    call = cast(ast.Call, cast(ast.Expr, stmt).value)
    return cast(ast.Name, cast(ast.Attribute, call.func).value).id
