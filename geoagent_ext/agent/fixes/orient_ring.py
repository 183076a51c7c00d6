"""A polygon's exterior ring handed to a function that orients whole polygons."""

from __future__ import annotations

import ast

from .. import codeinfo
from .base import Rule

# shapely's orienting functions take polygons (a ring passes through unchanged, as a ring).
_ORIENTERS = ("orient", "orient_polygons")


class OrientRing(Rule):
    """``orient(p.exterior)`` runs without an error, but it returns the ring itself, not an oriented
    polygon: the step writes LineStrings and the polygon's holes are gone. ``orient`` (and
    ``shapely.orient_polygons``) orients a polygon's exterior and its holes together, so before the
    code runs the call is given the polygon whose exterior it was handed. Other arguments stay."""

    order = 110

    def before_run(self, code: str, bound_before: set[str]) -> str:
        return with_polygons_oriented(code)


def with_polygons_oriented(code: str) -> str:
    """``code`` with each ``orient(<x>.exterior, ...)`` written ``orient(<x>, ...)``; as it was when
    there is none (or it does not parse)."""
    tree = codeinfo.parse(code)
    if tree is None:
        return code
    edits: list[tuple[ast.expr | ast.stmt, str]] = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Attribute)):
            continue
        name = codeinfo.call_name(node.func) or ""
        ring = node.args[0]
        if name.rsplit(".", 1)[-1] in _ORIENTERS and ring.attr == "exterior":
            polygon = ast.get_source_segment(code, ring.value)
            if polygon is not None:
                edits.append((ring, polygon))
    if not edits:
        return code
    fixed = codeinfo.replaced(code, codeinfo.outermost(edits))
    return fixed if codeinfo.parse(fixed) is not None else code
