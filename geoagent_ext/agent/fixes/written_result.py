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


def _binds_a_write(stmt: ast.stmt) -> bool:
    """``stmt`` is ``name = <frame>.<writer>(<a file>)`` of a writer that then returns None."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
        return False
    call = stmt.value
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)):
        return False
    writer = call.func.attr
    if writer in _ALWAYS_NONE:
        return True
    path_keyword = _NONE_WITH_PATH.get(writer)
    return path_keyword is not None and (
        bool(call.args)
        and not _is_none(call.args[0])
        or any(k.arg == path_keyword and not _is_none(k.value) for k in call.keywords)
    )


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
        if not isinstance(stmt, ast.Assign) or not _binds_a_write(stmt):
            continue
        call = stmt.value
        assert isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)  # _binds_a_write
        name = stmt.targets[0]
        assert isinstance(name, ast.Name)
        frame = ast.get_source_segment(code, call.func.value)
        written = ast.get_source_segment(code, call)
        func = ast.get_source_segment(code, call.func)
        if frame is None or written is None or func is None or "\n" in frame:
            continue
        arguments = written[len(func) :]
        indent = " " * stmt.col_offset
        edits.append((stmt, f"{name.id} = {frame}\n{indent}{name.id}.{call.func.attr}{arguments}"))
    fixed = codeinfo.replaced(code, edits) if edits else code
    return fixed if codeinfo.parse(fixed) is not None else code
