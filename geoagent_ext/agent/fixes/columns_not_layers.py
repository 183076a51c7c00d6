"""A frame's columns walked as if they were its file's layers."""

from __future__ import annotations

import ast

from .. import codeinfo
from .base import Rule

_READERS = ("gpd.read_file", "geopandas.read_file")


class ColumnsNotLayers(Rule):
    """``data = gpd.read_file(path)`` then ``for name, layer in data.items():``: ``read_file`` reads
    one layer, and ``.items()`` walks its columns, so ``layer.crs`` fails on the first plain column
    (or a "layer" is a column of values). When the loop's own names say it walks layers, before the
    code runs the loop is given the file's layers instead: ``(name, gpd.read_file(path, layer=name))``
    for each name ``gpd.list_layers(path)`` lists. A loop over a frame read with ``layer=``, or one
    whose names do not say layer, is left as written. The frame may be read by an earlier step, as
    long as neither that code nor this one binds its name to anything else."""

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
        path = None
        if (
            isinstance(value, ast.Call)
            and codeinfo.call_name(value.func) in _READERS
            and len(value.args) == 1
            and not any(kw.arg == "layer" for kw in value.keywords)
        ):
            path = ast.get_source_segment(code, value.args[0])
        bound.setdefault(node.targets[0].id, []).append(path)
    return {name: paths[0] for name, paths in bound.items() if len(paths) == 1 and paths[0] is not None}


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
            and isinstance(loop.iter.func.value, ast.Name)
            and loop.iter.func.value.id in paths
            and isinstance(loop.target, ast.Tuple)
            and len(loop.target.elts) == 2
            and all(isinstance(t, ast.Name) for t in loop.target.elts)
        ):
            continue
        names = [t.id for t in loop.target.elts if isinstance(t, ast.Name)]
        if not any("layer" in name.lower() for name in names):
            continue
        path = paths[loop.iter.func.value.id]
        walked = f"((_name, gpd.read_file({path}, layer=_name)) for _name in gpd.list_layers({path})['name'])"
        edits.append((loop.iter, walked))
    if not edits:
        return code
    fixed = codeinfo.replaced(code, edits)
    if "gpd" not in codeinfo.bound_names(code):
        fixed = "import geopandas as gpd\n" + fixed
    return fixed if codeinfo.parse(fixed) is not None else code
