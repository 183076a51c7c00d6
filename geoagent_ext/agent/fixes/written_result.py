"""A file write's result assigned to a name (``out = gdf.to_file(path)``): the name holds None."""

from __future__ import annotations

import ast

from .. import codeinfo
from .base import Rule

# Writers that return None when they are given a file: ``to_file`` always; the others only with a
# path (without one ``to_csv`` and ``to_json`` return text, ``to_parquet`` bytes).
_ALWAYS_NONE = frozenset({"to_file"})
_NONE_WITH_PATH = {"to_csv": "path_or_buf", "to_parquet": "path", "to_feather": "path", "to_json": "path_or_buf"}


class WrittenResult(Rule):
    """``typed = gdf.to_file("typed.geojson")`` writes the file and binds None, so every later use
    of ``typed`` fails ("'NoneType' object has no attribute ..."): the name is bound to the frame
    and the frame written from it, ``typed = gdf`` then ``typed.to_file("typed.geojson")``, before
    the code runs. The file written is the same."""

    order = 102

    def before_run(self, code: str, bound_before: set[str]) -> str:
        return with_written_frames_kept(code)


def _bound_write(stmt: ast.AST) -> tuple[str, ast.Call, ast.Attribute] | None:
    """(name, the call, its writer) of ``name = <frame>.<writer>(<a file>)`` for a writer that then
    returns None; None for any other statement."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
        return None
    call = stmt.value
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)):
        return None
    writer = call.func.attr
    path_keyword = _NONE_WITH_PATH.get(writer)
    returns_none = writer in _ALWAYS_NONE or (
        path_keyword is not None
        and (
            bool(call.args)
            and not _is_none(call.args[0])
            or any(k.arg == path_keyword and not _is_none(k.value) for k in call.keywords)
        )
    )
    return (stmt.targets[0].id, call, call.func) if returns_none else None


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def with_written_frames_kept(code: str) -> str:
    """``code`` with each ``name = <frame>.<writer>(<file>)`` written ``name = <frame>`` then
    ``name.<writer>(<file>)``; ``code`` as written when it has none."""
    tree = codeinfo.parse(code)
    if tree is None:
        return code
    edits: list[tuple[ast.expr | ast.stmt, str]] = []
    for stmt in ast.walk(tree):
        found = _bound_write(stmt)
        if found is None:
            continue
        name, call, writer = found
        frame = ast.get_source_segment(code, writer.value)
        written = ast.get_source_segment(code, call)
        func = ast.get_source_segment(code, writer)
        if frame is None or written is None or func is None or "\n" in frame:
            continue
        assert isinstance(stmt, ast.stmt)  # an Assign: _bound_write
        arguments = written[len(func) :]
        indent = " " * stmt.col_offset
        edits.append((stmt, f"{name} = {frame}\n{indent}{name}.{writer.attr}{arguments}"))
    fixed = codeinfo.replaced(code, edits) if edits else code
    return fixed if codeinfo.parse(fixed) is not None else code
