"""A failing ``print(...)`` that changes no data, in a step that asks to print nothing."""

from __future__ import annotations

import ast
import re

from .. import codeinfo
from .base import Diagnosis, Failure, Rule

_ASKS_TO_SHOW = re.compile(r"\b(print|display|show|report)", re.IGNORECASE)


class DropPrint(Rule):
    """A report that fails (``print(f"{df.crs}")`` on a plain DataFrame, after the file was written)
    would cost repairs of a line the step does not need: when nothing else fixes the failure for
    certain, the statement is taken out (the step's checks stay)."""

    strategy = "drop_print"
    order = 900
    unfixed_only = True

    def diagnose(self, failure: Failure) -> Diagnosis | None:
        if _ASKS_TO_SHOW.search(failure.subtask):
            return None
        fixed = without_failing_print(failure.code, failure.lineno)
        return self.diagnosis(failure, name="print", fixed_code=fixed) if fixed else None

    def said(self, diagnosis: Diagnosis) -> str:
        return "took out the failing `print(...)`: a report that changes no data (the step's checks stay)"


# Calls that change data or write a file: a ``print`` whose arguments make one is not only a report.
_CHANGING_CALLS = frozenset(
    {
        "pop",
        "update",
        "append",
        "extend",
        "insert",
        "remove",
        "clear",
        "setdefault",
        "add",
        "write",
        "writelines",
        "savefig",
        "save",
        "close",
        "exec",
        "eval",
    }
)


def without_failing_print(code: str, lineno: int | None) -> str | None:
    """``code`` without the ``print(...)`` statement spanning ``lineno`` (``pass`` where it was a
    block's only statement); None when no print is there or its arguments write or change data
    (a call named in ``_CHANGING_CALLS``, a writer, ``inplace=True``)."""
    tree = codeinfo.parse(code)
    if tree is None or not lineno:
        return None
    node = next(
        (
            n
            for n in ast.walk(tree)
            if isinstance(n, ast.Expr)
            and isinstance(n.value, ast.Call)
            and codeinfo.call_name(n.value.func) == "print"
            and n.lineno <= lineno <= (n.end_lineno or n.lineno)
        ),
        None,
    )
    if node is None:
        return None
    for call in (c for c in ast.walk(node.value) if isinstance(c, ast.Call) and c is not node.value):
        if (
            codeinfo.method_of(call) in _CHANGING_CALLS | codeinfo.WRITE_METHODS
            or codeinfo.written_path(call)
            or any(
                kw.arg == "inplace" and not (isinstance(kw.value, ast.Constant) and kw.value.value is False)
                for kw in call.keywords
            )
        ):
            return None
    fixed = codeinfo.replaced(code, [(node, "")])
    if codeinfo.parse(fixed) is None:  # the print was a block's only statement
        fixed = codeinfo.replaced(code, [(node, "pass")])
    return fixed if codeinfo.parse(fixed) is not None else None
