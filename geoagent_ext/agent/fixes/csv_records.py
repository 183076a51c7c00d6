"""Records (dicts) handed to a ``csv.writer``, which writes a dict's keys, not its values."""

from __future__ import annotations

import ast

from .. import codeinfo
from .base import Rule

_WRITERS = ("csv.writer",)


class CsvRecords(Rule):
    """``w = csv.writer(f)`` then ``for record in records: w.writerow(record)`` runs without an error,
    but a dict iterates over its keys, so every data row repeats the header and the values are lost.
    Before the code runs, each row the loop writes is its record's values when it is a dict: in the
    order of the header the same writer wrote as a list of names, else in the record's own order. A
    row that is not a dict is written as before, so the rewrite changes nothing else."""

    order = 109

    def before_run(self, code: str, bound_before: set[str]) -> str:
        return with_records_as_rows(code)


def _csv_writers(tree: ast.Module) -> set[str]:
    """The names ``tree`` binds to a ``csv.writer(...)``."""
    return {
        target.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
        if codeinfo.call_name(node.value.func) in _WRITERS
        for target in node.targets
        if isinstance(target, ast.Name)
    }


def _row_written(node: ast.AST, writers: set[str]) -> tuple[str, str, ast.expr] | None:
    """(writer, method, argument) when ``node`` is ``<writer>.writerow(x)`` or ``<writer>.writerows(x)``."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and len(node.args) == 1):
        return None
    owner = node.func.value
    if node.func.attr in ("writerow", "writerows") and isinstance(owner, ast.Name) and owner.id in writers:
        return owner.id, node.func.attr, node.args[0]
    return None


def _header(code: str, tree: ast.Module, writer: str, before: int) -> str | None:
    """The source of the list of column names ``writer`` was given before line ``before``, if any."""
    for node in ast.walk(tree):
        written = _row_written(node, {writer})
        if written is None or written[1] != "writerow" or getattr(node, "lineno", before) >= before:
            continue
        names = written[2]
        if isinstance(names, (ast.List, ast.Tuple)) and names.elts:
            if all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in names.elts):
                return ast.get_source_segment(code, names)
    return None


def _as_row(record: str, header: str | None, spare: str) -> str:
    values = f"[{record}.get({spare}) for {spare} in {header}]" if header else f"list({record}.values())"
    return f"{values} if isinstance({record}, dict) else {record}"


def with_records_as_rows(code: str) -> str:
    """``code`` with each ``<csv writer>.writerow(x)`` in a ``for x in ...`` loop, and each
    ``<csv writer>.writerows(rows)``, writing a dict's values instead of its keys; the rest as written."""
    tree = codeinfo.parse(code)
    writers = _csv_writers(tree) if tree is not None else set()
    if tree is None or not writers:
        return code
    taken = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    spare = next(name for name in ("column", "_column", "_geoagent_column") if name not in taken)
    edits: list[tuple[ast.expr | ast.stmt, str]] = []
    for loop in (n for n in ast.walk(tree) if isinstance(n, ast.For)):
        if not isinstance(loop.target, ast.Name):
            continue
        record = loop.target.id
        for node in (n for stmt in loop.body for n in ast.walk(stmt)):
            written = _row_written(node, writers)
            if written is not None and written[1] == "writerow":
                argument = written[2]
                if isinstance(argument, ast.Name) and argument.id == record:
                    edits.append((argument, _as_row(record, _header(code, tree, written[0], loop.lineno), spare)))
    for node in ast.walk(tree):
        written = _row_written(node, writers)
        if written is not None and written[1] == "writerows" and isinstance(written[2], ast.Name):
            row = _as_row("_record", _header(code, tree, written[0], getattr(node, "lineno", 0)), spare)
            edits.append((written[2], f"[{row} for _record in {written[2].id}]"))
    fixed = codeinfo.replaced(code, codeinfo.outermost(edits)) if edits else code
    return fixed if codeinfo.parse(fixed) is not None else code
