"""A frame's columns walked as if they were its file's layers."""

from __future__ import annotations

import ast

from .. import codeinfo
from .base import Rule

_READERS = ("gpd.read_file", "geopandas.read_file")
# what each layer's frame has and a plain column of values has not
_FRAME_MEMBERS = {"crs", "geometry", "geom_type", "to_crs", "total_bounds", "columns"}


class ColumnsNotLayers(Rule):
    """``data = gpd.read_file(path)`` then ``for name, layer in data.items():``: ``read_file`` reads
    one layer, and ``.items()`` walks its columns, so ``layer.crs`` fails on the first plain column
    (or a "layer" is a column of values). When the loop's own names say it walks layers, or its body
    reads a frame's member (``.crs``, ``.geometry``) of each value untested, before the code runs the
    loop is given the file's layers instead: ``(name, gpd.read_file(path, layer=name))`` for each
    name ``gpd.list_layers(path)`` lists. The frame may be read in the loop's header, or by an
    earlier step as long as neither that code nor this one binds its name to anything else. A loop
    over a frame read with a ``layer=``, or one that reads its values as columns, is left as written."""

    order = 111

    def before_run(self, code: str, bound_before: set[str]) -> str:
        return with_layers_walked(code)

    def before_run_reading(self, code: str, bound_before: set[str], earlier: str) -> str:
        return with_layers_walked(code, earlier)


def _read_paths(tree: ast.Module, code: str) -> dict[str, str]:
    """name -> the path's source, for each name ``tree`` binds once to ``read_file(path)`` of a whole file."""
    bound: dict[str, list[str | None]] = {}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
            continue
        value = node.value
        bound.setdefault(node.targets[0].id, []).append(_whole_file(value, code))
    return {name: paths[0] for name, paths in bound.items() if len(paths) == 1 and paths[0] is not None}


def _whole_file(value: ast.expr, code: str) -> str | None:
    """The path's source of ``read_file(path)`` reading a whole file (no ``layer=``, or ``layer=None``),
    else None."""
    if not (isinstance(value, ast.Call) and codeinfo.call_name(value.func) in _READERS and len(value.args) == 1):
        return None
    layers = [kw.value for kw in value.keywords if kw.arg == "layer"]
    if layers and not (isinstance(layers[0], ast.Constant) and layers[0].value is None):
        return None
    return ast.get_source_segment(code, value.args[0])


def _walks_layers(loop: ast.For, names: list[str]) -> bool:
    """Whether the loop's names say layer, or its body reads a frame's member (``.crs``,
    ``.geometry``, ...) of each value outside a block that tests the value: a plain column has none."""
    if any("layer" in name.lower() for name in names):
        return True
    value = names[1]
    guarded = {
        id(inner)
        for node in ast.walk(loop)
        if isinstance(node, (ast.If, ast.IfExp, ast.While))
        and any(isinstance(n, ast.Name) and n.id == value for n in ast.walk(node.test))
        for branch in ([node.body, node.orelse] if isinstance(node, ast.IfExp) else [*node.body, *node.orelse])
        for inner in ast.walk(branch)
    }
    return any(
        isinstance(node, ast.Attribute)
        and node.attr in _FRAME_MEMBERS
        and isinstance(node.value, ast.Name)
        and node.value.id == value
        and id(node) not in guarded
        for node in ast.walk(loop)
    )


def with_layers_walked(code: str, earlier: str = "") -> str:
    """``code`` with each ``for <name>, <layer> in <frame>.items()`` over a frame read from a whole
    file (here, or by ``earlier`` steps' code), whose target names say layer, walking the file's
    layers; as it was when there is none."""
    tree = codeinfo.parse(code)
    if tree is None or ".items()" not in code:
        return code
    before = codeinfo.parse(earlier) if earlier else None
    paths = _read_paths(before, earlier) if before is not None else {}
    bound_here = codeinfo.bound_names(code)
    paths = {name: path for name, path in paths.items() if name not in bound_here} | _read_paths(tree, code)
    edits: list[tuple[ast.expr | ast.stmt, str]] = []
    for loop in ast.walk(tree):
        if not (
            isinstance(loop, ast.For)
            and isinstance(loop.iter, ast.Call)
            and isinstance(loop.iter.func, ast.Attribute)
            and loop.iter.func.attr == "items"
            and not loop.iter.args
            and isinstance(loop.target, ast.Tuple)
            and len(loop.target.elts) == 2
            and all(isinstance(t, ast.Name) for t in loop.target.elts)
        ):
            continue
        walked_frame = loop.iter.func.value
        if isinstance(walked_frame, ast.Name):
            path = paths.get(walked_frame.id)
        else:  # read in the loop's own header
            path = _whole_file(walked_frame, code)
        names = [t.id for t in loop.target.elts if isinstance(t, ast.Name)]
        if path is None or not _walks_layers(loop, names):
            continue
        walked = f"((_name, gpd.read_file({path}, layer=_name)) for _name in gpd.list_layers({path})['name'])"
        edits.append((loop.iter, walked))
    if not edits:
        return code
    fixed = codeinfo.replaced(code, edits)
    if "gpd" not in codeinfo.bound_names(code):
        fixed = "import geopandas as gpd\n" + fixed
    return fixed if codeinfo.parse(fixed) is not None else code
