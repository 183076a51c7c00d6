"""An undefined name given to ``to_crs`` whose name says it is a metric CRS."""

from __future__ import annotations

import ast
import re
from typing import cast

from .. import codeinfo
from .base import UNDEFINED_NAME, Diagnosis, Failure, Rule

# What a name of a CRS says when it stands for "a CRS in metres for this data" (an example's
# ``metric = houses.estimate_utm_crs()`` copied without its definition)
_METRIC_NAME = re.compile(r"metric|utm|metre|meter|projected|local_crs|equal_area", re.IGNORECASE)


class MetricCrs(Rule):
    """``a.to_crs(metric)`` where nothing binds ``metric``: the name is read only as the CRS to
    reproject to and says it is one in metres, so it is bound first to the UTM zone of the first
    frame reprojected to it (``metric = a.estimate_utm_crs()``), one CRS for every frame of the code."""

    strategy = "metric_crs"
    order = 154  # after frame_meant

    def diagnose(self, failure: Failure) -> Diagnosis | None:
        undefined = UNDEFINED_NAME.search(failure.evalue) if failure.ename == "NameError" else None
        if undefined is None or undefined.group(1) in failure.defined_before:
            return None
        found = with_metric_crs_bound(failure.code, undefined.group(1), failure.defined_before)
        return (
            self.diagnosis(failure, name=undefined.group(1), expression=found[1], fixed_code=found[0])
            if found
            else None
        )

    def said(self, diagnosis: Diagnosis) -> str:
        return f"bound `{diagnosis.name}`, a CRS in metres by its name, to `{diagnosis.expression}.estimate_utm_crs()`"


def with_metric_crs_bound(code: str, name: str, bound_before: set[str]) -> tuple[str, str] | None:
    """(``code`` with ``name = <frame>.estimate_utm_crs()`` before the first statement that reads
    ``name``, the frame), when ``name`` says it is a metric CRS, every read of it before the code binds
    it is the CRS of a ``<frame>.to_crs(...)``, and the first such frame is bound before; else None."""
    tree = codeinfo.parse(code)
    if tree is None or not _METRIC_NAME.search(name):
        return None
    reads = codeinfo.unbound_reads(tree, name)
    reprojections = {
        id(argument): call
        for call in ast.walk(tree)
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "to_crs"
        for argument in [*call.args[:1], *(k.value for k in call.keywords if k.arg == "crs")]
    }
    if not reads or any(id(read) not in reprojections for read in reads):
        return None
    first = min(reads, key=lambda n: (n.lineno, n.col_offset))
    receiver = cast(ast.Attribute, reprojections[id(first)].func).value
    frame = receiver.id if isinstance(receiver, ast.Name) else None
    if frame is None or frame == name or not codeinfo.bound_at(tree, frame, first.lineno, bound_before):
        return None
    statement = next(s for s in tree.body if s.lineno <= first.lineno <= (s.end_lineno or s.lineno))
    lines = code.splitlines()
    bound = f"{name} = {frame}.estimate_utm_crs()"
    return "\n".join(lines[: statement.lineno - 1] + [bound] + lines[statement.lineno - 1 :]), frame
