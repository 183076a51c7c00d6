"""A geometry property called as if it were a method."""

from __future__ import annotations

import ast
import copy
import re
from typing import TypeGuard, cast

from .. import codeinfo
from .base import Diagnosis, Failure, Rule

# Properties of geopandas' frames and series and of shapely's geometries (the same names in both)
_PROPERTIES = frozenset(
    {
        "area",
        "length",
        "centroid",
        "bounds",
        "total_bounds",
        "geom_type",
        "is_valid",
        "is_empty",
        "envelope",
        "convex_hull",
        "boundary",
        "exterior",
        "unary_union",
    }
)
# A property geopandas replaced by a method: read as that method's call
_METHOD_FOR = {"unary_union": "union_all"}
# Python's words for calling a value: the value's type (a geometry, an array, a number, a Series)
_NOT_CALLABLE = re.compile(r"'[\w.]+' object is not callable")


class PropertyCalled(Rule):
    """``gdf.unary_union()``, ``gdf.area()``, ``geom.centroid()``: the name is a property, so
    calling it calls its value and fails ("'MultiPolygon' object is not callable"). The failing
    line's calls of those names, without arguments, become the property read (``unary_union``
    becomes ``union_all()``, the method geopandas has for it)."""

    strategy = "property_called"
    order = 147

    def diagnose(self, failure: Failure) -> Diagnosis | None:
        if failure.ename != "TypeError" or not _NOT_CALLABLE.search(failure.evalue or ""):
            return None
        found = with_properties_read(failure.code, failure.lineno)
        return self.diagnosis(failure, name=found[1], fixed_code=found[0]) if found else None

    def said(self, diagnosis: Diagnosis) -> str:
        return f"read `{diagnosis.name}` as the property it is instead of calling it"


def with_properties_read(code: str, lineno: int | None) -> tuple[str, str] | None:
    """(``code`` with each argument-less ``X.<property>()`` on line ``lineno`` read as the property,
    the first such name), or None when that line has none (a module's function, ``shapely.ops.
    unary_union(parts)``, has arguments and stays)."""
    tree = codeinfo.parse(code)
    if tree is None or lineno is None:
        return None
    calls = [
        node
        for node in ast.walk(tree)
        if _calls_property(node) and node.lineno <= lineno <= (node.end_lineno or node.lineno)
    ]
    inner = {id(n) for call in calls for n in ast.walk(cast(ast.Attribute, call.func).value)}
    outer = sorted((c for c in calls if id(c) not in inner), key=lambda c: (c.lineno, c.col_offset))
    if not outer:
        return None
    # each outermost call rewritten from its tree, so property calls inside it are read too
    edits: list[tuple[ast.expr | ast.stmt, str]] = [(c, ast.unparse(_Reader().visit(copy.deepcopy(c)))) for c in outer]
    fixed = codeinfo.replaced(code, edits)
    return (fixed, cast(ast.Attribute, outer[0].func).attr) if codeinfo.parse(fixed) is not None else None


class _Reader(ast.NodeTransformer):
    """Reads every argument-less call of a property name as the property."""

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        if not _calls_property(node):
            return node
        func = cast(ast.Attribute, node.func)
        if func.attr in _METHOD_FOR:
            return ast.Call(ast.Attribute(func.value, _METHOD_FOR[func.attr], ast.Load()), [], [])
        return ast.Attribute(func.value, func.attr, ast.Load())


def _calls_property(node: ast.AST) -> TypeGuard[ast.Call]:
    """Whether ``node`` is ``X.<property>()``: one of the names, called without arguments."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in _PROPERTIES
        and not node.args
        and not node.keywords
    )
