"""Geometries emptied by ``buffer(0)``, or invalid features dropped where the contract keeps them repaired."""

from __future__ import annotations

import ast
from typing import Any, cast

from .. import codeinfo
from ..probes import run_probe
from .base import Diagnosis, Failure, Rule, TrialFacts, for_each


class MakeValid(Rule):
    """``buffer(0)`` (the old polygon repair) turns points and lines into empty polygons, and
    ``gdf = gdf[gdf.is_valid]`` drops the features a contract keeps repaired: the trial fails a step
    that emptied or dropped them, and the buffer or the filter becomes ``make_valid``. Any other row
    filter that drops them (``gdf[gdf.area >= 1]``: a self-intersecting polygon's lobes cancel, so its
    area is near 0) runs after the repair instead."""

    strategy = "make_valid"
    order = 20

    async def guard(self, kernel: Any, code: str, facts: TrialFacts) -> str:
        buffered = zero_buffers(code)
        present = await run_probe(kernel, "geo_present", buffered) if buffered else None
        filtered = row_filters(code) if facts.keeps_invalid else []
        invalid = await run_probe(kernel, "geo_invalid", filtered) if filtered else None
        return self._emptied_guard(present or {}) + self._dropped_guard(invalid or {})

    def _emptied_guard(self, present: dict[str, list[int]]) -> str:
        """Fails a step that emptied geometries of a name it buffers by 0 (``present``: each name's
        rows and geometries before the trial): the same rows, fewer geometries."""
        return for_each(
            present,
            "_geoagent_name, (_geoagent_rows, _geoagent_had)",
            [
                "_geoagent_g = globals().get(_geoagent_name)",
                "_geoagent_g = getattr(_geoagent_g, 'geometry', _geoagent_g)",
                "if hasattr(_geoagent_g, 'is_empty') and hasattr(_geoagent_g, '__len__') "
                "and len(_geoagent_g) == _geoagent_rows:",
                "    _geoagent_now = int((~(_geoagent_g.isna() | _geoagent_g.is_empty)).sum())",
                "    if _geoagent_now < _geoagent_had:",
                "        " + self.trip({"name": "_geoagent_name", "kind": "'emptied'"}),
                "        raise ValueError(f'`{_geoagent_name}`: {_geoagent_had - _geoagent_now} '",
                "            f'of its {_geoagent_had} '",
                "        'geometries became empty in this step (`buffer(0)` turns points and lines '",
                "        'into empty polygons). Repair geometries with `.make_valid()`, which leaves '",
                "        'points and lines as they are.')",
            ],
        )

    def _dropped_guard(self, invalid: dict[str, list]) -> str:
        """Fails a step that dropped invalid features the contract keeps repaired (``invalid``: the
        index labels of each name's invalid geometries before the trial)."""
        return for_each(
            {name: labels for name, labels in invalid.items() if labels},
            "_geoagent_name, _geoagent_invalid",
            [
                "_geoagent_g = globals().get(_geoagent_name)",
                "_geoagent_gone = [i for i in _geoagent_invalid "
                "if hasattr(_geoagent_g, 'index') and i not in _geoagent_g.index]",
                "if _geoagent_gone:",
                "    " + self.trip({"name": "_geoagent_name", "kind": "'dropped'"}),
                "    raise ValueError(f'`{_geoagent_name}`: this step dropped {len(_geoagent_gone)} of its '",
                "        f'{len(_geoagent_invalid)} features with invalid geometries; the contract keeps '",
                "        'every feature, its geometry repaired: '",
                "        f'{_geoagent_name} = {_geoagent_name}.set_geometry({_geoagent_name}.geometry.make_valid())')",
            ],
        )

    def diagnose(self, failure: Failure) -> Diagnosis | None:
        seen = self.tripped(failure)
        if seen is None:
            return None
        if seen.get("kind") == "emptied":
            valid = with_make_valid(failure.code, seen["name"])
        else:  # the filter on validity becomes the repair; any other filter runs on repaired geometries
            valid = with_validity_repaired(failure.code, seen["name"]) or with_repair_first(failure.code, seen["name"])
        return self.diagnosis(failure, name=seen["name"], fixed_code=valid) if valid else None

    def said(self, diagnosis: Diagnosis) -> str:
        return (
            f"kept `{diagnosis.name}`'s features and repaired their geometries with `make_valid()` "
            "(the step emptied or dropped them)"
        )


def _zero_buffers(tree: ast.AST) -> list[tuple[ast.Call, str]]:
    """(call, name) of each ``<name or its geometry>.buffer(0)`` in ``tree``, in the code's order;
    not of a lambda's, function's or loop's own name (one geometry: shapely has no ``make_valid()`` method)."""
    local = {
        a.arg for node in ast.walk(tree) if isinstance(node, (ast.Lambda, ast.FunctionDef)) for a in node.args.args
    } | {
        n.id
        for node in ast.walk(tree)
        if isinstance(node, (ast.For, ast.comprehension))
        for n in ast.walk(node.target)
        if isinstance(n, ast.Name)
    }
    found = []
    for node in sorted((n for n in ast.walk(tree) if isinstance(n, ast.Call)), key=lambda n: (n.lineno, n.col_offset)):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "buffer"
            and len(node.args) <= 1
        ):
            continue
        distance = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "distance"), None)
        root = _geometry_root(node.func.value)
        if (
            root
            and root not in local
            and isinstance(distance, ast.Constant)
            and type(distance.value) in (int, float)
            and distance.value == 0
        ):
            found.append((node, root))
    return found


def _geometry_root(node: ast.expr) -> str | None:
    """``name`` of ``name``, ``name.geometry`` or ``name['geometry']``, else None."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and node.attr == "geometry" and isinstance(node.value, ast.Name):
        return node.value.id
    column = codeinfo.column_of(node)
    return column[0] if column and column[1] == "geometry" else None


def zero_buffers(code: str) -> list[str]:
    """Names whose geometry ``code`` buffers by 0 (``gdf.geometry.buffer(0)``, the old way to repair
    polygons): their points and lines become empty polygons while the step still runs."""
    tree = codeinfo.parse(code)
    return list(dict.fromkeys(root for _, root in _zero_buffers(tree))) if tree is not None else []


def with_make_valid(code: str, name: str) -> str | None:
    """``code`` with each ``<name or its geometry>.buffer(0)`` written ``....make_valid()``: polygons
    are repaired, points and lines stay as they are. None when ``code`` has none for ``name``."""
    tree = codeinfo.parse(code)
    calls = [call for call, root in _zero_buffers(tree) if root == name] if tree is not None else []
    return (
        codeinfo.replaced(
            code,
            [
                (call, f"{ast.get_source_segment(code, cast(ast.Attribute, call.func).value)}.make_valid()")
                for call in calls
            ],
        )
        if calls
        else None
    )


def _is_validity_mask(mask: ast.expr, name: str) -> bool:
    """Whether ``mask`` is ``name``'s geometries' validity, as models write it: ``name.is_valid``
    (of the frame, its ``geometry`` or ``['geometry']``), ``....is_valid == True``, or a per-geometry
    ``....apply(lambda g: g.is_valid)`` / ``.map(...)`` / ``.apply(shapely.is_valid)``."""
    if isinstance(mask, ast.Compare) and len(mask.ops) == 1 and isinstance(mask.ops[0], (ast.Eq, ast.Is)):
        other = mask.comparators[0]
        return isinstance(other, ast.Constant) and other.value is True and _is_validity_mask(mask.left, name)
    if isinstance(mask, ast.Attribute) and mask.attr == "is_valid":
        return _geometry_root(mask.value) == name
    if (
        isinstance(mask, ast.Call)
        and isinstance(mask.func, ast.Attribute)
        and mask.func.attr in ("apply", "map")
        and len(mask.args) == 1
        and _geometry_root(mask.func.value) == name
    ):
        test = mask.args[0]
        if isinstance(test, ast.Lambda) and len(test.args.args) == 1:
            body, arg = test.body, test.args.args[0].arg
            return (
                isinstance(body, ast.Attribute)
                and body.attr == "is_valid"
                and isinstance(body.value, ast.Name)
                and (body.value.id == arg)
            )
        return isinstance(test, ast.Attribute) and test.attr == "is_valid"  # shapely.is_valid
    return False


def _validity_filters(tree: ast.Module) -> list[tuple[str, ast.Subscript]]:
    """(name, ``name[<validity of name>]`` or ``name.loc[...]``) in each top-level ``name = ...`` of ``tree``."""
    found = []
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            name = stmt.targets[0].id
            found += [
                (name, node)
                for node in ast.walk(stmt.value)
                if isinstance(node, ast.Subscript)
                and _rows_of(node.value) == name
                and _is_validity_mask(node.slice, name)
            ]
    return found


def _rows_of(node: ast.expr) -> str | None:
    """``name`` of ``name`` or ``name.loc`` (what a row filter subscripts), else None."""
    if isinstance(node, ast.Attribute) and node.attr == "loc":
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def with_validity_repaired(code: str, name: str) -> str | None:
    """``code`` with each ``name[name.is_valid]`` written ``name.set_geometry(name.geometry.make_valid(...))``
    (as the contract's mend repairs: polygons stay polygons). None when ``code`` has none for ``name``."""
    tree = codeinfo.parse(code)
    nodes = [node for root, node in _validity_filters(tree) if root == name] if tree is not None else []
    return codeinfo.replaced(code, [(node, _repaired(name)) for node in nodes]) if nodes else None


def _repaired(name: str) -> str:
    """``name`` with its geometries repaired as the contract's mend repairs them (polygons stay polygons)."""
    return f"{name}.set_geometry({name}.geometry.make_valid(method='structure', keep_collapsed=False))"


def _measure_filters(tree: ast.Module) -> list[tuple[str, ast.stmt]]:
    """(name, statement) of each top-level ``name = name[<mask>]`` or ``name = name.loc[<mask>]``
    of ``tree`` whose mask measures the geometries (``.area``, ``.length``): what an invalid geometry
    falsifies (a self-intersecting polygon's lobes cancel). A filter on attributes is the step's own."""
    found: list[tuple[str, ast.stmt]] = []
    for stmt in tree.body:
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
            continue
        name, value = stmt.targets[0].id, stmt.value
        while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):  # name[...].copy()
            value = value.func.value
        if (
            isinstance(value, ast.Subscript)
            and _rows_of(value.value) == name
            and any(isinstance(n, ast.Attribute) and n.attr in ("area", "length") for n in ast.walk(value.slice))
        ):
            found.append((name, stmt))
    return found


def row_filters(code: str) -> list[str]:
    """Names ``code`` filters by their geometries' validity (``gdf = gdf[gdf.is_valid]``) or measures
    (``gdf = gdf[gdf.area >= 1]``): either drops the invalid features a cleaning keeps repaired."""
    tree = codeinfo.parse(code)
    if tree is None:
        return []
    return list(dict.fromkeys(name for name, _ in [*_validity_filters(tree), *_measure_filters(tree)]))


def with_repair_first(code: str, name: str) -> str | None:
    """``code`` with ``name``'s geometries repaired (as the contract's mend repairs them) just before
    its first filter on a measure, so the filter reads repaired shapes. None when ``code`` has none for ``name``."""
    tree = codeinfo.parse(code)
    first = next((stmt for root, stmt in _measure_filters(tree) if root == name), None) if tree is not None else None
    if first is None:
        return None
    lines = code.splitlines()
    indent = lines[first.lineno - 1][: first.col_offset]
    repair = f"{indent}{name} = {_repaired(name)}"
    return "\n".join(lines[: first.lineno - 1] + [repair] + lines[first.lineno - 1 :])
