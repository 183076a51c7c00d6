"""Text (a layer's name) used as the frame it names."""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from typing import cast

from .. import codeinfo
from ..gis_hints import GEO_MEMBERS
from .base import Diagnosis, Failure, Rule

_ATTR_ERROR = re.compile(r"'?([\w.]+)'? (?:object|module) has no attribute '([^']+)'")


class TextNotFrame(Rule):
    """A geo member asked of text (``layer.crs`` in a loop over ``list_layers``), or a layer looked up
    by name in a frame that holds one layer (``len(gdf[name])``): in a loop over a file's layers the
    body first reads the layer; elsewhere the model is told to read the frame the name stands for,
    not shown str's members."""

    strategy = "text_not_frame"
    order = 170

    def diagnose(self, failure: Failure) -> Diagnosis | None:
        code, lineno = failure.code, failure.lineno
        if failure.ename == "KeyError":
            looked_up = with_layer_looked_up(code, lineno)
            return (
                self.diagnosis(
                    failure, name=failure.evalue.strip("'\""), expression=looked_up[1], fixed_code=looked_up[0]
                )
                if looked_up
                else None
            )
        match = _ATTR_ERROR.search(failure.evalue) if failure.ename == "AttributeError" else None
        if not match or match.group(1) != "str" or match.group(2) not in GEO_MEMBERS:
            return None
        owner = codeinfo.attribute_owner(code, match.group(2), lineno)
        read = with_layer_read(code, owner, lineno) if owner else None
        return self.diagnosis(failure, name=match.group(2), expression=owner, fixed_code=read)

    def said(self, diagnosis: Diagnosis) -> str:
        found = (
            "looked the layer up in a frame that holds one layer"
            if "[" in (diagnosis.expression or "")
            else "is the layer's name (or geometry type), not its frame"
        )
        read = "read each layer with `gpd.read_file(path, layer=...)` at the top of the loop"
        return f"{read}: `{diagnosis.expression}` {found}"


_LAYER_LISTS = ("list_layers", "listlayers")  # pyogrio (rows: name, geometry type), fiona (names)


def _layer_list_path(node: ast.expr, tree: ast.Module, code: str) -> str | None:
    """The path's source when ``node`` lists a file's layers (the call, or a name bound to it)."""
    if isinstance(node, ast.Name):  # layers = fiona.listlayers(path); for layer in layers:
        bound = [
            a.value
            for a in ast.walk(tree)
            if isinstance(a, ast.Assign)
            and len(a.targets) == 1
            and isinstance(a.targets[0], ast.Name)
            and a.targets[0].id == node.id
        ]
        node = bound[0] if len(bound) == 1 else node
    if isinstance(node, ast.Subscript):  # list_layers(path)[:, 0]: the names
        node = node.value
    if (
        isinstance(node, ast.Call)
        and codeinfo.method_of(node) in _LAYER_LISTS
        and node.args
        and codeinfo.call_name(node.func) not in ("gpd.list_layers", "geopandas.list_layers")
    ):  # a DataFrame: rows are not met so
        return ast.get_source_segment(code, node.args[0])
    return None


def _layer_loops(code: str, lineno: int | None):
    """(tree, loop, the path's source, the loop's target names) of each ``for`` over a file's layers
    whose body holds line ``lineno``, the innermost first (targets: one name, or name + geometry type)."""
    tree = codeinfo.parse(code)
    if tree is None or lineno is None:
        return
    loops = [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.For) and n.body and n.body[0].lineno <= lineno <= (n.end_lineno or n.lineno)
    ]
    for loop in sorted(loops, key=lambda n: -n.lineno):
        path = _layer_list_path(loop.iter, tree, code)
        targets = [loop.target] if isinstance(loop.target, ast.Name) else list(getattr(loop.target, "elts", []))
        names = [t.id for t in targets if isinstance(t, ast.Name)]
        if path is not None and names and len(names) == len(targets) <= 2:
            yield tree, loop, path, names


def _with_layer_frame(code: str, loop: ast.For, read: str, edits: Sequence[tuple[ast.expr | ast.stmt, str]]) -> str:
    """``code`` with ``edits`` made and ``read`` (the layer's read) first in the loop's body."""
    first = loop.body[0]
    lines = codeinfo.replaced(code, edits).splitlines()
    lines.insert(first.lineno - 1, " " * first.col_offset + read)
    fixed = "\n".join(lines)
    return fixed if "gpd" in codeinfo.bound_names(code) else "import geopandas as gpd\n" + fixed


def _unused(tree: ast.Module, name: str) -> str:
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    return next(
        f"{name}_{suffix}" for suffix in ("frame", "gdf", "data", "layer_frame") if f"{name}_{suffix}" not in used
    )


def with_layer_read(code: str, name: str, lineno: int | None) -> str | None:
    """``code`` where a loop over a file's layers uses the layer's text ``name`` as its frame
    (``for layer in fiona.listlayers(p): layer.crs``; ``for n, layer in pyogrio.list_layers(p)``,
    where ``layer`` is the geometry type's name): the loop's body first reads the layer with
    ``gpd.read_file(p, layer=...)``; frame uses (``x.attr`` not of str, ``x[...]``, ``len(x)``) of the
    name take the frame, its other uses stay the name. None when the failing line is in no such loop."""
    for tree, loop, path, names in _layer_loops(code, lineno):
        if name not in names:
            continue
        layer_name = names[0]
        if name != layer_name:  # (name, geometry type) rows: the type's variable becomes the frame
            return _with_layer_frame(code, loop, f"{name} = gpd.read_file({path}, layer={layer_name})", [])
        frame = _unused(tree, name)
        edits = [
            (n.value, frame)
            for stmt in loop.body
            for n in ast.walk(stmt)
            if isinstance(n, (ast.Attribute, ast.Subscript))
            and isinstance(n.value, ast.Name)
            and n.value.id == name
            and not (isinstance(n, ast.Attribute) and hasattr(str, n.attr))
        ]
        edits += [
            (n.args[0], frame)
            for stmt in loop.body
            for n in ast.walk(stmt)
            if isinstance(n, ast.Call)
            and isinstance(n.func, ast.Name)
            and n.func.id == "len"
            and len(n.args) == 1
            and isinstance(n.args[0], ast.Name)
            and n.args[0].id == name
        ]
        if edits:
            return _with_layer_frame(code, loop, f"{frame} = gpd.read_file({path}, layer={name})", edits)
    return None


def with_layer_looked_up(code: str, lineno: int | None) -> tuple[str, str] | None:
    """(the fixed code, the failing lookup) where a loop over a file's layers looks a layer up by its
    name in a variable the step does not build (``len(gdf[name])``: as if the file's frame held
    every layer; it holds one, and the name is no column of it: KeyError): the loop's body first
    reads the layer, and each such lookup in that variable takes it. A dict the step fills itself
    (``frames[name] = ...``) is left alone. None otherwise."""
    for tree, loop, path, names in _layer_loops(code, lineno):
        layer_name = names[0]
        built = codeinfo.bound_names(code) | {
            n.value.id
            for n in ast.walk(tree)
            if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and isinstance(n.ctx, ast.Store)
        }
        lookups = [
            n
            for stmt in loop.body
            for n in ast.walk(stmt)
            if isinstance(n, ast.Subscript)
            and isinstance(n.value, ast.Name)
            and n.value.id not in built
            and isinstance(n.slice, ast.Name)
            and n.slice.id == layer_name
            and isinstance(n.ctx, ast.Load)
        ]
        failing = {
            _frame_name(n) for n in lookups if lineno is not None and n.lineno <= lineno <= (n.end_lineno or n.lineno)
        }
        if len(failing) != 1:
            continue
        [owner] = failing
        frame = _unused(tree, layer_name)
        edits = [(n, frame) for n in lookups if _frame_name(n) == owner]
        return (
            _with_layer_frame(code, loop, f"{frame} = gpd.read_file({path}, layer={layer_name})", edits),
            f"{owner}[{layer_name}]",
        )
    return None


def _frame_name(lookup: ast.Subscript) -> str:
    """The frame a ``frame[layer_name]`` lookup reads (``with_layer_looked_up`` keeps those on a name)."""
    return cast(ast.Name, lookup.value).id
