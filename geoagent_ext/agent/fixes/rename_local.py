"""A function that assigns a name it also calls: the name is local to the whole function."""

from __future__ import annotations

import ast
import re

from .. import codeinfo
from .base import Diagnosis, Failure, Rule

_UNBOUND_LOCAL = re.compile(r"local variable '(\w+)'")


class RenameLocal(Rule):
    """``buffer = buffer(centroid, 10)`` after ``from shapely import buffer`` fails with an
    UnboundLocalError: the function's own variable is renamed, its calls keep the import."""

    strategy = "rename_local"
    order = 140

    def diagnose(self, failure: Failure) -> Diagnosis | None:
        shadowed = _UNBOUND_LOCAL.search(failure.evalue) if failure.ename == "UnboundLocalError" else None
        if shadowed is None:
            return None
        renamed = with_local_renamed(failure.code, shadowed.group(1))
        return self.diagnosis(failure, name=shadowed.group(1), fixed_code=renamed) if renamed else None

    def said(self, diagnosis: Diagnosis) -> str:
        return (
            f"renamed the function's own `{diagnosis.name}`: assigning it hid the `{diagnosis.name}` the function calls"
        )


def _own_nodes(fn: ast.AST):
    """The nodes of a function's body, not those of functions, lambdas or classes defined in it."""
    for child in ast.iter_child_nodes(fn):
        yield child
        if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            yield from _own_nodes(child)


def with_local_renamed(code: str, name: str) -> str | None:
    """``code`` with the local ``name`` of each function that both assigns it and calls it renamed
    (``buffer = buffer(c, 1)`` makes ``buffer`` local to the whole function, so the call cannot
    reach the imported one: UnboundLocalError); the calls keep the module's ``name``. None when no
    function does both (or declares it global, or takes it as a parameter)."""
    tree = codeinfo.parse(code)
    if tree is None:
        return None
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    local = next(f"{name}_{suffix}" for suffix in ("value", "result", "local", "v2") if f"{name}_{suffix}" not in used)
    edits: list[tuple[ast.expr | ast.stmt, str]] = []
    for fn in (n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))):
        own = list(_own_nodes(fn))
        params = {a.arg for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs} | {
            a.arg for a in (fn.args.vararg, fn.args.kwarg) if a
        }
        declared = {n for d in own if isinstance(d, (ast.Global, ast.Nonlocal)) for n in d.names}
        names = [n for n in own if isinstance(n, ast.Name) and n.id == name]
        callees = {
            id(c.func) for c in own if isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id == name
        }
        if name in params | declared or not callees or not any(isinstance(n.ctx, ast.Store) for n in names):
            continue
        edits += [(n, local) for n in names if id(n) not in callees]
    fixed = codeinfo.replaced(code, edits) if edits else None
    return fixed if fixed is not None and codeinfo.parse(fixed) is not None else None
