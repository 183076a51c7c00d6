"""A call written for another geopandas API, or a frame ``json.dump``-ed into a GeoJSON."""

from __future__ import annotations

import ast
import re
from typing import Any

from .. import codeinfo
from .base import Diagnosis, Failure, Rule
from .drop_keyword import refused_keyword

# Calls written for another geopandas API: (function, keyword) -> the call as the API has it now.
_NEAREST: dict[str, Any] = {"method": "sjoin_nearest", "drop": {"how": "nearest", "predicate": None, "op": None}}
_CALL_FIXES: dict[tuple[str, str], dict[str, Any]] = {
    ("sjoin", "distance_col"): _NEAREST,
    ("sjoin", "max_distance"): _NEAREST,
    ("sjoin", "how"): _NEAREST,
    ("sjoin", "op"): {"rename": {"op": "predicate"}},
}
_HOW_NEAREST = re.compile(r'`how` was "nearest"')
# ``set_crs(X)`` on data that has another CRS: geopandas refuses and suggests allow_override=True,
# which would relabel the coordinates without moving them. Data with a CRS is put in another by
# reprojecting it: ``to_crs(X)``.
_CRS_ALREADY = re.compile(r"already has a CRS which is not equal to the passed CRS")


class FixCall(Rule):
    """A geopandas call renamed or split (``sjoin(how='nearest', distance_col=...)`` is
    ``sjoin_nearest``; ``sjoin(op=...)`` is ``predicate=``), ``set_crs`` on data in another CRS
    (``to_crs``), or shapes ``json.dump``-ed into a GeoJSON (``to_file(..., driver='GeoJSON')``):
    rewritten as the library has it now."""

    strategy = "fix_call"
    order = 145

    def diagnose(self, failure: Failure) -> Diagnosis | None:
        code, ename, evalue, lineno = failure.code, failure.ename, failure.evalue or "", failure.lineno
        refused = refused_keyword(ename, evalue)
        if ename == "TypeError" and "is not JSON serializable" in evalue:
            written = with_geojson_written(code)
            return self.diagnosis(failure, name="to_file", fixed_code=written) if written else None
        if refused is None and ename == "ValueError" and _CRS_ALREADY.search(evalue):
            moved = with_call_edited(code, "set_crs", lineno, method="to_crs", drop={"allow_override": None})
            return self.diagnosis(failure, name="set_crs", fixed_code=moved) if moved else None
        if refused is None and ename == "ValueError" and _HOW_NEAREST.search(evalue):
            # Already sjoin_nearest, given how='nearest': only the keyword is wrong (a repair that
            # goes back to sjoin(distance=...) loses the distance column).
            nearest = with_call_edited(code, "sjoin_nearest", lineno, drop={"how": "nearest"})
            if nearest:
                return self.diagnosis(failure, name="sjoin_nearest", fixed_code=nearest)
            refused = ("sjoin", "how")
        fix = _CALL_FIXES.get(refused) if refused else None
        if refused is None or fix is None:
            return None
        fixed = with_call_edited(code, refused[0], lineno, **fix)
        return self.diagnosis(failure, name=refused[0], fixed_code=fixed) if fixed else None

    def said(self, diagnosis: Diagnosis) -> str:
        if diagnosis.name == "to_file":
            return "wrote the GeoJSON with `to_file(path, driver='GeoJSON')`: `json.dump` cannot write shapes"
        if diagnosis.name == "set_crs":
            return "the data has a CRS already: reprojected it with `to_crs` (`set_crs` would relabel it)"
        return f"rewrote the call to `{diagnosis.name}` as the library has it now"


def with_geojson_written(code: str) -> str | None:
    """``code`` where each ``with open('x.geojson', 'w') as f: json.dump(frame.to_dict(...), f)`` (or
    of the frame itself) writes the frame with ``frame.to_file('x.geojson', driver='GeoJSON')``:
    json cannot write shapes ("Object of type Polygon is not JSON serializable"), and records are
    not GeoJSON's features anyway. None when the code has no such block."""
    tree = codeinfo.parse(code)
    if tree is None:
        return None
    edits: list[tuple[ast.expr | ast.stmt, str]] = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.With) and len(node.items) == 1 and len(node.body) == 1):
            continue
        opened, handle = node.items[0].context_expr, node.items[0].optional_vars
        path = (
            opened.args[0]
            if isinstance(opened, ast.Call) and codeinfo.call_name(opened.func) == "open" and opened.args
            else None
        )
        if not (
            isinstance(path, ast.Constant)
            and isinstance(path.value, str)
            and path.value.lower().endswith(".geojson")
            and isinstance(handle, ast.Name)
        ):
            continue
        dump = node.body[0].value if isinstance(node.body[0], ast.Expr) else None
        if not (
            isinstance(dump, ast.Call)
            and codeinfo.call_name(dump.func) == "json.dump"
            and len(dump.args) >= 2
            and isinstance(dump.args[1], ast.Name)
            and dump.args[1].id == handle.id
        ):
            continue
        data = dump.args[0]
        if isinstance(data, ast.Call) and isinstance(data.func, ast.Attribute) and data.func.attr == "to_dict":
            data = data.func.value
        if isinstance(data, ast.Name):
            edits.append((node, f"{data.id}.to_file({path.value!r}, driver='GeoJSON')"))
    return codeinfo.replaced(code, edits) if edits else None


def with_call_edited(
    code: str,
    func_name: str,
    lineno: int | None = None,
    *,
    method: str | None = None,
    drop: dict[str, object | None] | None = None,
    rename: dict[str, str] | None = None,
) -> str | None:
    """``code`` with the call named ``func_name`` (the one on ``lineno`` first) changed to the API
    meant: called as ``method`` instead (``gdf.sjoin`` -> ``gdf.sjoin_nearest``), without the keywords
    in ``drop`` (each only when passed the constant given, or any value for None) and with the keywords
    in ``rename`` renamed; the rest of the text as written. None when no such call or nothing changed."""
    tree = codeinfo.parse(code)
    if tree is None:
        return None
    calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call) and codeinfo.method_of(node) == func_name]
    if not calls:
        return None
    call = codeinfo.on_line_first(calls, lineno)
    drop, rename = drop or {}, rename or {}
    edited = ast.Call(func=call.func, args=call.args, keywords=[])
    for kw in call.keywords:
        dropped = kw.arg in drop and (
            drop[kw.arg] is None or (isinstance(kw.value, ast.Constant) and kw.value.value == drop[kw.arg])
        )
        if not dropped:
            edited.keywords.append(ast.keyword(arg=rename.get(kw.arg, kw.arg) if kw.arg else None, value=kw.value))
    if method and not isinstance(call.func, ast.Attribute):
        return None  # a bare ``sjoin(...)``: the method meant may not be imported
    if method:
        edited.func = ast.Attribute(value=call.func.value, attr=method, ctx=ast.Load())
    text = ast.unparse(edited)
    if text == ast.unparse(call):
        return None
    fixed = codeinfo.replaced(code, [(call, text)])
    return fixed if codeinfo.parse(fixed) is not None else None
