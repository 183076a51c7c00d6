"""An undefined name standing for the frame the expression is about (``hexes[gdf.area > 100]``)."""

from __future__ import annotations

import ast

from .. import codeinfo
from ..gis_hints import GEO_MEMBERS
from .base import UNDEFINED_NAME, Diagnosis, Failure, Rule


class FrameMeant(Rule):
    """``hexes = hexes.to_crs(gdf.estimate_utm_crs())`` or ``hexes[gdf.area > 100]`` where nothing is
    named ``gdf`` (a placeholder copied from a hint or an example): the undefined name can only be
    the frame the expression is about, the frame reprojected to its own UTM zone or the frame whose
    rows the mask selects, so it becomes that frame's name. A name read anywhere else, or bound by
    an earlier step, or not used as a frame (a member of a GeoDataFrame, a column), is left to the other
    repairs (an import or a step may be missing that makes it)."""

    strategy = "frame_meant"
    order = 153  # after the imports a NameError may lack

    def diagnose(self, failure: Failure) -> Diagnosis | None:
        undefined = UNDEFINED_NAME.search(failure.evalue) if failure.ename == "NameError" else None
        if undefined is None or undefined.group(1) in failure.defined_before:
            return None
        fixed = with_frame_meant(failure.code, undefined.group(1), failure.defined_before)
        return self.diagnosis(failure, name=undefined.group(1), fixed_code=fixed) if fixed else None

    def said(self, diagnosis: Diagnosis) -> str:
        return f"read the undefined `{diagnosis.name}` as the frame its expression is about"


def _owners(tree: ast.Module) -> dict[ast.AST, str]:
    """Each node inside a mask of a named frame (``frame[...]``, ``frame.loc[...]``) or inside
    ``frame.to_crs(<x>.estimate_utm_crs())``'s ``<x>`` -> that frame's name."""
    owners: dict[ast.AST, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript):
            target = node.value
            if isinstance(target, ast.Attribute) and target.attr == "loc":
                target = target.value
            if isinstance(target, ast.Name):
                owners.update((inner, target.id) for inner in ast.walk(node.slice))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "to_crs"
            and isinstance(node.func.value, ast.Name)
        ):
            for argument in [*node.args, *(k.value for k in node.keywords)]:
                if (
                    isinstance(argument, ast.Call)
                    and isinstance(argument.func, ast.Attribute)
                    and argument.func.attr == "estimate_utm_crs"
                ):
                    owners[argument.func.value] = node.func.value.id
    return owners


def with_frame_meant(code: str, name: str, bound_before: set[str]) -> str | None:
    """``code`` with each read of the unbound ``name`` (those before the code binds it) written as
    the frame its mask or reprojection is about; None unless every such read has one, bound by an
    earlier step or earlier in ``code``, and differing from ``name``."""
    tree = codeinfo.parse(code)
    if tree is None:
        return None
    reads = codeinfo.unbound_reads(tree, name)
    owners, parents = _owners(tree), codeinfo.parents(tree)
    edits: list[tuple[ast.expr | ast.stmt, str]] = []
    for read in reads:
        frame = owners.get(read)
        if frame is None or frame == name or not codeinfo.bound_at(tree, frame, read.lineno, bound_before):
            return None
        if not _used_as_frame(read, parents.get(read)):
            return None
        edits.append((read, frame))
    if not edits:
        return None
    fixed = codeinfo.replaced(code, edits)
    return fixed if codeinfo.parse(fixed) is not None else None


def _used_as_frame(read: ast.Name, parent: ast.AST | None) -> bool:
    """``read`` is used as a GeoDataFrame: a geometry member of it (``gdf.area``, ``gdf.geometry``)
    or one of its columns (``gdf['name']``), not a module's function (``np.isfinite``)."""
    if isinstance(parent, ast.Attribute) and parent.value is read:
        return parent.attr in GEO_MEMBERS
    return isinstance(parent, ast.Subscript) and parent.value is read and codeinfo.column_of(parent) is not None
