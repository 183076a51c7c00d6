"""An accumulator the code appends to but never starts."""

from __future__ import annotations

import ast

from .. import codeinfo
from .base import UNDEFINED_NAME, Diagnosis, Failure, Rule


class StartList(Rule):
    """``records.append(row)`` in a loop, ``records`` bound nowhere: ``records = []`` goes before its
    first use (a step inserted to create the variable would build the wrong thing)."""

    strategy = "start_list"
    order = 152

    def diagnose(self, failure: Failure) -> Diagnosis | None:
        undefined = (
            UNDEFINED_NAME.search(failure.evalue) if failure.ename in ("NameError", "UnboundLocalError") else None
        )
        name = undefined.group(1) if undefined else None
        started = with_list_started(failure.code, name) if name and name not in failure.defined_before else None
        return self.diagnosis(failure, name=name, fixed_code=started) if started else None

    def said(self, diagnosis: Diagnosis) -> str:
        return f"started `{diagnosis.name} = []` before the code appends to it"


def with_list_started(code: str, name: str) -> str | None:
    """``code`` with ``name = []`` before the first top-level statement that uses ``name``, when the
    code appends to it (``records.append(...)`` in a loop) and never binds it: an accumulator the
    model forgot to start (a step inserted to create it would build the wrong thing). None otherwise."""
    tree = codeinfo.parse(code)
    if tree is None:
        return None
    uses = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == name]
    appended = any(
        isinstance(c, ast.Call)
        and isinstance(c.func, ast.Attribute)
        and c.func.attr in ("append", "extend")
        and isinstance(c.func.value, ast.Name)
        and c.func.value.id == name
        for c in ast.walk(tree)
    )
    if not appended or any(not isinstance(n.ctx, ast.Load) for n in uses) or name in codeinfo.bound_names(code):
        return None
    first = next(stmt for stmt in tree.body if any(n in uses for n in ast.walk(stmt)))
    lines = code.splitlines()
    indent = " " * first.col_offset
    return "\n".join(lines[: first.lineno - 1] + [f"{indent}{name} = []"] + lines[first.lineno - 1 :])
