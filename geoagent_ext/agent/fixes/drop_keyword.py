"""A keyword the called function or the library behind it refuses."""

from __future__ import annotations

import ast
import re

from .. import codeinfo
from .base import Diagnosis, Failure, Rule

CALL_ERROR = re.compile(
    r"(\w+)\(\) (?:got an unexpected keyword argument|missing \d+ required|takes \d+|got multiple values)"
)
_BAD_KEYWORD = re.compile(r"(?:unexpected keyword argument|multiple values for (?:keyword )?argument) '(\w+)'")
# A keyword a library refuses after taking it through **kwargs, in geopandas/pyogrio's words ("Passing
# 'crs' is not supported with the 'pyogrio' engine"; an unknown keyword becomes a GDAL option:
# "unrecognized option 'COLUMNS'"): it can never run with it, in any call of that method.
_REFUSED_KEYWORD = re.compile(r"Passing '(\w+)' is not supported|unrecognized option '(\w+)'")
# Keywords of a sibling method passed to one that has no such parameter and no use for it:
# ``to_crs(epsg=..., allow_override=True)`` (set_crs's keyword; geopandas' own error for set_crs
# suggests it) converts the same without it; merge's join keys passed to ``sjoin``, which joins on
# the geometries (its attribute condition, ``on_attribute``, needs the column in both frames).
_SIBLING_KEYWORDS = {"to_crs": ("allow_override",), "sjoin": ("on", "left_on", "right_on")}
# An engine asked for by name that the kernel does not have, in pandas' words ("`Import fastparquet`
# failed. fastparquet is required for parquet support", "Missing optional dependency 'fastparquet'"):
# without ``engine=`` the library takes the one it has (pyarrow, which geopandas needs anyway).
_MISSING_ENGINE = re.compile(r"`Import (\w+)` failed|Missing optional dependency '(\w+)'")


def refused_keyword(ename: str, evalue: str) -> tuple[str, str] | None:
    """(function, keyword) when the called function itself refused a keyword."""
    call, keyword = CALL_ERROR.search(evalue or ""), _BAD_KEYWORD.search(evalue or "")
    return (call.group(1), keyword.group(1)) if ename == "TypeError" and call and keyword else None


class DropKeyword(Rule):
    """A keyword the library refuses is taken out of every call of that method; a keyword the called
    function rejects is taken out when it is a sibling method's, when the function refused it before
    in this subtask (its signature was shown), or when the call that passed it is not on the failing
    line (raised inside the library). Otherwise the function's real signature goes to the model:
    it may name the keyword meant (sjoin's ``op`` is now ``predicate``; dropping it would change the
    join)."""

    strategy = "drop_keyword"
    order = 155

    def diagnose(self, failure: Failure) -> Diagnosis | None:
        refused = _REFUSED_KEYWORD.search(failure.evalue)
        dropped = refused and self._dropping(failure, next(g for g in refused.groups() if g), same_method=True)
        if dropped:
            return dropped
        engine = _MISSING_ENGINE.search(failure.evalue) if failure.ename == "ImportError" else None
        if engine and _passes_engine(failure.code, next(g for g in engine.groups() if g)):
            return self._dropping(failure, "engine", same_method=True)
        match = CALL_ERROR.search(failure.evalue) if failure.ename == "TypeError" else None
        if match is None:
            return None
        code, func, lineno = failure.code, match.group(1), failure.lineno
        keyword = _BAD_KEYWORD.search(failure.evalue)
        sibling = (
            keyword
            and keyword.group(1) in _SIBLING_KEYWORDS.get(func, ())
            and self._dropping(failure, keyword.group(1))
        )
        if sibling:
            return sibling
        callee = codeinfo.callee_of(code, func, lineno)
        again = (
            keyword and (func, keyword.group(1)) in failure.refused_before and self._dropping(failure, keyword.group(1))
        )
        if callee and again:  # its signature was shown and the model passed it again
            return again
        if callee:
            return Diagnosis("members", failure.message, name=func, expression=callee)
        callee = codeinfo.call_passing(code, keyword.group(1), lineno) if keyword else None
        if (
            keyword and callee
        ):  # raised inside the library: the call on the line that passed the keyword is the one to fix
            return self._dropping(failure, keyword.group(1)) or Diagnosis(
                "members", failure.message, name=callee.rsplit(".", 1)[-1], expression=callee
            )
        return None

    def _dropping(self, failure: Failure, keyword: str, same_method: bool = False) -> Diagnosis | None:
        """The call (or every call of its method) without ``keyword``."""
        fixed = without_keyword(failure.code, keyword, failure.lineno, same_method=same_method)
        return self.diagnosis(failure, name=keyword, fixed_code=fixed) if fixed and fixed.strip() else None

    def said(self, diagnosis: Diagnosis) -> str:
        return f"took `{diagnosis.name}=` out of the call: the library does not take it"


def _passes_engine(code: str, engine: str) -> bool:
    """Whether a call of ``code`` passes ``engine='<engine>'`` (the missing one, by name)."""
    tree = codeinfo.parse(code)
    return tree is not None and any(
        k.arg == "engine" and isinstance(k.value, ast.Constant) and k.value.value == engine
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        for k in node.keywords
    )


def without_keyword(code: str, keyword: str, lineno: int | None = None, *, same_method: bool = False) -> str | None:
    """``code`` with ``keyword=...`` taken out of the call that passes it (the one on ``lineno``
    first; the name matched case-insensitively, as GDAL options come back upper case), the rest of
    the text as written; None when no call passes it. ``same_method``: also out of every other call
    of that method (each would otherwise cost a trial of its own)."""
    tree = codeinfo.parse(code)
    if tree is None:
        return None
    found = [
        (node, k)
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        for k in node.keywords
        if k.arg and k.arg.lower() == keyword.lower()
    ]
    if not found:
        return None
    call = codeinfo.on_line_first([n for n, _ in found], lineno)
    kw = next(k for n, k in found if n is call)
    fixed = codeinfo.cut_keyword(code, kw)
    method = codeinfo.method_of(call)
    while fixed is not None and same_method:
        tree = codeinfo.parse(fixed)
        if tree is None:
            break
        more = [
            k
            for node in ast.walk(tree)
            if isinstance(node, ast.Call) and codeinfo.method_of(node) == method
            for k in node.keywords
            if k.arg and k.arg.lower() == keyword.lower()
        ]
        if not more:
            break
        fixed = codeinfo.cut_keyword(fixed, more[0])
    return fixed
