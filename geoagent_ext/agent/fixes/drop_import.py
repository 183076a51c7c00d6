"""A failing import that binds nothing the code uses."""

from __future__ import annotations

import ast
import re

from .. import codeinfo
from .base import Diagnosis, Failure, Rule

_IMPORT_NAME = re.compile(r"cannot import name '([^']+)' from '([\w.]+)'")
_NO_MODULE = re.compile(r"No module named '([\w.]+)'")


class DropImport(Rule):
    """An import that fails (no such module, no such name in it) above code that never uses what it
    binds is taken out; moving it to other modules is what a model tries, at a trial each."""

    strategy = "drop_import"
    order = 160

    def diagnose(self, failure: Failure) -> Diagnosis | None:
        if failure.ename not in ("ImportError", "ModuleNotFoundError"):
            return None
        imported = _IMPORT_NAME.search(failure.evalue)
        failed = imported.group(1) if imported else None
        fixed = without_unused_import(failure.code, failure.lineno, failed)
        if fixed is None:
            return None
        module = _NO_MODULE.search(failure.evalue)
        return self.diagnosis(failure, name=failed or (module.group(1) if module else "the module"), fixed_code=fixed)

    def said(self, diagnosis: Diagnosis) -> str:
        return f"took out the import of `{diagnosis.name}`: it fails and nothing uses it"


def without_unused_import(code: str, lineno: int | None, name: str | None = None) -> str | None:
    """``code`` without the import on ``lineno`` (only ``name`` of it, when the error names one)
    if nothing in the code uses what it binds; None when the code uses it, or no import is there."""
    tree = codeinfo.parse(code)
    if tree is None or not lineno:
        return None
    node = next(
        (
            n
            for n in ast.walk(tree)
            if isinstance(n, (ast.Import, ast.ImportFrom)) and n.lineno <= lineno <= (n.end_lineno or n.lineno)
        ),
        None,
    )
    if node is None:
        return None
    dropped = [a for a in node.names if name is None or a.name == name]
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    if not dropped or any((a.asname or a.name).split(".")[0] in used for a in dropped):
        return None
    kept = [a for a in node.names if a not in dropped]
    text = ""
    if kept:
        listed = ", ".join(a.name + (f" as {a.asname}" if a.asname else "") for a in kept)
        text = (
            f"from {'.' * node.level}{node.module or ''} import {listed}"
            if isinstance(node, ast.ImportFrom)
            else f"import {listed}"
        )
    fixed = codeinfo.replaced(code, [(node, text)])
    if codeinfo.parse(fixed) is None:  # the import was a block's only statement
        fixed = codeinfo.replaced(code, [(node, "pass")])
    return fixed
