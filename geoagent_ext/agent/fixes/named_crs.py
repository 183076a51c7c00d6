"""A ``to_crs`` whose argument pyproj cannot read, in a step whose words name the CRS to use."""

from __future__ import annotations

import ast
import functools

from ...contract.rules.words import _EPSG
from .. import codeinfo
from .base import Diagnosis, Failure, Rule


class NamedCrs(Rule):
    """``gdf.to_crs(CRS.from_cf({...}))`` fails with a ``CRSError`` where the step says "to JGD2011 /
    Japan Plane Rectangular CS IX" (or "EPSG:6677"): the model wrote a definition of its own for the
    CRS the step names. The argument becomes that CRS's EPSG code, when the step's words (else the
    request's and the step's together) name exactly one projected CRS of pyproj's database."""

    strategy = "named_crs"
    order = 153  # before metric_crs

    def diagnose(self, failure: Failure) -> Diagnosis | None:
        if failure.ename != "CRSError":
            return None
        epsg = projected_crs_named(failure.subtask) or projected_crs_named(failure.own_words)
        fixed = with_crs_of_to_crs(failure.code, failure.lineno, epsg) if epsg else None
        return self.diagnosis(failure, name=f"EPSG:{epsg}", fixed_code=fixed) if fixed else None

    def said(self, diagnosis: Diagnosis) -> str:
        return f"reprojected to `{diagnosis.name}`, the CRS the step names, in place of a definition pyproj cannot read"


@functools.lru_cache(maxsize=1)
def _projected_names() -> dict[str, int]:
    """{lower-case name: EPSG code} of every projected CRS in pyproj's database whose name has the
    "<datum> / <projection>" form (a name that plain prose does not contain by chance)."""
    from pyproj.database import query_crs_info
    from pyproj.enums import PJType

    return {
        info.name.lower(): int(info.code)
        for info in query_crs_info(auth_name="EPSG", pj_types=PJType.PROJECTED_CRS)
        if " / " in info.name and not info.deprecated
    }


def projected_crs_named(words: str) -> int | None:
    """The EPSG code of the one projected CRS ``words`` name by code or by its full name, else None
    (none, or several)."""
    names = _projected_names()
    codes = set(names.values())
    named = {int(m.group(1)) for m in _EPSG.finditer(words) if int(m.group(1)) in codes}
    lowered = words.lower()
    found = [name for name in names if name in lowered]
    # "… / UTM zone 33N" is inside "… / UTM zone 33N (N-zE)": the longest name found is the one meant
    named |= {names[n] for n in found if not any(n != other and n in other for other in found)}
    return named.pop() if len(named) == 1 else None


def with_crs_of_to_crs(code: str, lineno: int | None, epsg: int) -> str | None:
    """``code`` with the CRS argument of the ``to_crs`` call on ``lineno`` (the first when the line is
    not known) replaced by ``'EPSG:<epsg>'``; None when there is no such call or it already passes that."""
    tree = codeinfo.parse(code)
    if tree is None:
        return None
    calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call) and codeinfo.method_of(node) == "to_crs"]
    call = next((c for c in calls if lineno is None or c.lineno <= lineno <= (c.end_lineno or c.lineno)), None)
    if call is None:
        return None
    keyword = next((k for k in call.keywords if k.arg in ("crs", "epsg")), None)
    argument = call.args[0] if call.args else keyword.value if keyword else None
    if argument is None or (
        isinstance(argument, ast.Constant) and str(argument.value).upper() in (f"EPSG:{epsg}", str(epsg))
    ):
        return None
    by_number = not call.args and keyword is not None and keyword.arg == "epsg"
    return codeinfo.replaced(code, [(argument, str(epsg) if by_number else repr(f"EPSG:{epsg}"))])
