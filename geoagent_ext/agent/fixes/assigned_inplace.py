"""``inplace=True`` in a call whose result is assigned: the name becomes None."""

from __future__ import annotations

import ast

from .. import codeinfo
from .base import Rule


class AssignedInplace(Rule):
    """``gdf = gdf.drop_duplicates(inplace=True)`` binds None and the next line fails: the keyword
    goes before the code runs."""

    order = 100

    def before_run(self, code: str, bound_before: set[str]) -> str:
        return without_assigned_inplace(code)


def without_assigned_inplace(code: str) -> str:
    """``code`` without ``inplace=True`` in calls whose result is assigned (``gdf = gdf.drop_duplicates(...,
    inplace=True)`` makes ``gdf`` None: the next line fails with "'NoneType' object has no attribute")."""
    while True:
        tree = codeinfo.parse(code)
        if tree is None:
            return code
        kw = next(
            (
                k
                for node in ast.walk(tree)
                if isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.Call)
                for k in node.value.keywords
                if k.arg == "inplace" and isinstance(k.value, ast.Constant) and k.value.value is True
            ),
            None,
        )
        fixed = codeinfo.cut_keyword(code, kw) if kw is not None else None
        if fixed is None:
            return code
        code = fixed
