"""A name imported from (or looked up in) a module that lacks it, while another module has it."""

from __future__ import annotations

import ast
import re
from typing import Any

from .. import codeinfo
from .base import Diagnosis, Rule

_IMPORT_NAME = re.compile(r"cannot import name '([^']+)' from '([\w.]+)'")
_MODULE_ATTR = re.compile(r"module '([\w.]+)' has no attribute '([^']+)'")


class MoveImport(Rule):
    """``from M import X`` (or ``m.X``) when M lacks X: the live kernel says where X is (one of M's
    package, else a module the session uses; the installed versions decide) and the import or the
    attribute is taken from there. Only the kernel can tell, so this rule answers after the others,
    of a failure they left to the model's ``members``."""

    strategy = "move_import"
    order = 800

    async def diagnose_live(self, diagnosis: Diagnosis, code: str, lineno: int | None, kernel: Any) -> Diagnosis | None:
        imported = _IMPORT_NAME.search(diagnosis.message) if diagnosis.strategy == "members" else None
        attribute = _MODULE_ATTR.search(diagnosis.message) if diagnosis.strategy == "members" and not imported else None
        if imported is None and attribute is None:
            return None
        found = imported or attribute
        assert found is not None  # one of them matched: checked above
        name, module = found.groups() if imported else found.groups()[::-1]
        try:
            homes = await kernel.probe("home_of", module, name, probe_timeout=30)
            guessed = None if homes or imported else name_after(code, lineno, name)
            if guessed:  # ``gpd.io.crs.CRS``: a guessed submodule; the name after it has a home
                name, homes = guessed, await kernel.probe("home_of", module, guessed, probe_timeout=30)
        except Exception:  # introspection is advice; the model's repair still follows
            return None
        if not homes:
            return None
        home, alias = homes[0]["module"], homes[0]["alias"]
        if imported:
            fixed = with_import_moved(code, lineno, name, home)
        else:
            fixed = with_attribute_moved(code, lineno, name, alias or home)
            fixed = fixed if fixed is None or alias else f"import {home}\n{fixed}"
        return Diagnosis(self.strategy, diagnosis.message, name=f"{home}.{name}", fixed_code=fixed) if fixed else None

    def said(self, diagnosis: Diagnosis) -> str:
        return f"took `{diagnosis.name}` from where the installed libraries have it"


def with_import_moved(code: str, lineno: int | None, name: str, home: str) -> str | None:
    """``code`` with ``name`` of the ``from ... import`` on ``lineno`` imported from ``home``
    instead (its alias kept, the other names left where they were); None when no such import is there."""
    tree = codeinfo.parse(code)
    if tree is None or not lineno:
        return None
    node = next(
        (
            n
            for n in ast.walk(tree)
            if isinstance(n, ast.ImportFrom)
            and n.lineno <= lineno <= (n.end_lineno or n.lineno)
            and any(a.name == name for a in n.names)
        ),
        None,
    )
    if node is None:
        return None
    said = lambda aliases: ", ".join(a.name + (f" as {a.asname}" if a.asname else "") for a in aliases)  # noqa: E731
    moved = [a for a in node.names if a.name == name]
    kept = [a for a in node.names if a.name != name]
    text = f"from {home} import {said(moved)}"
    if kept:
        text = f"from {'.' * node.level}{node.module or ''} import {said(kept)}\n{' ' * node.col_offset}{text}"
    return codeinfo.replaced(code, [(node, text)])


def name_after(code: str, lineno: int | None, missing: str) -> str | None:
    """The name looked up right after the missing attribute ``missing`` in a dotted chain on
    ``lineno`` (``gpd.io.crs.CRS(...)``, ``crs`` missing: ``CRS``), or None when ``missing`` ends
    every chain there."""
    tree = codeinfo.parse(code)
    if tree is None or not lineno:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.lineno == lineno and isinstance(node.value, ast.Attribute):
            if node.value.attr == missing and _dotted(node.value.value):
                return node.attr
    return None


def _dotted(node: ast.AST) -> bool:
    return isinstance(node, ast.Name) or (isinstance(node, ast.Attribute) and _dotted(node.value))


def with_attribute_moved(code: str, lineno: int | None, name: str, home: str) -> str | None:
    """``code`` with each ``<dotted name>.name`` on ``lineno`` written ``home.name``; None when there is none."""
    tree = codeinfo.parse(code)
    if tree is None or not lineno:
        return None

    edits = [
        (n, f"{home}.{name}")
        for n in ast.walk(tree)
        if isinstance(n, ast.Attribute)
        and n.attr == name
        and n.lineno == lineno
        and _dotted(n.value)
        and ast.unparse(n.value) != home
    ]
    return codeinfo.replaced(code, edits) if edits else None
