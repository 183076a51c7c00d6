"""JSON document comparison: same keys, then each top-level value within tolerance.

Numbers compare with the attribute tolerance, except under GeoJSON-vocabulary keys (bbox,
coordinates, ...) where they are coordinates and compare absolutely (see tolerances).
Integers in the reference must match exactly (counts)."""

from __future__ import annotations

import math

from . import tolerances as tol

COORDINATE_KEYS = {"bbox", "bounds", "extent", "coordinates", "center", "centre", "centroid", "total_bounds"}


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _coordinate_tol(values: list) -> float:
    numbers = [abs(v) for v in values if _is_number(v)]
    return tol.JSON_COORD_TOL_DEGREES if numbers and max(numbers) <= 360 else tol.JSON_COORD_TOL_METRES


def _flat_numbers(value) -> list:
    if isinstance(value, list):
        return [n for item in value for n in _flat_numbers(item)]
    return [value] if _is_number(value) else []


def difference(expected, got, path: str = "", coord_tol: float | None = None) -> str | None:
    """None if equal within tolerance, else a short description of the first difference."""
    where = path or "value"
    if isinstance(expected, dict):
        if not isinstance(got, dict):
            return f"{where}: expected an object, got {type(got).__name__}"
        missing = [k for k in expected if k not in got]
        extra = [k for k in got if k not in expected]
        if missing or extra:
            bits = ([f"missing {missing[:3]}"] if missing else []) + ([f"unexpected {extra[:3]}"] if extra else [])
            return f"{where}: keys differ: {', '.join(bits)}"
        for key in expected:
            sub_tol = coord_tol
            if key in COORDINATE_KEYS:
                sub_tol = _coordinate_tol(_flat_numbers(expected[key]))
            problem = difference(expected[key], got[key], f"{path}.{key}" if path else str(key), sub_tol)
            if problem:
                return problem
        return None
    if isinstance(expected, list):
        if not isinstance(got, list):
            return f"{where}: expected a list, got {type(got).__name__}"
        if len(expected) != len(got):
            return f"{where}: expected {len(expected)} items, got {len(got)}"
        for i, (a, b) in enumerate(zip(expected, got)):
            problem = difference(a, b, f"{path}[{i}]", coord_tol)
            if problem:
                return problem
        return None
    if _is_number(expected):
        if not _is_number(got):
            return f"{where}: expected {expected!r}, got {got!r}"
        if isinstance(expected, float) and math.isnan(expected):
            return None if isinstance(got, float) and math.isnan(got) else f"{where}: expected NaN, got {got!r}"
        if coord_tol is not None:
            ok = abs(got - expected) <= coord_tol
        elif isinstance(expected, int):
            ok = got == expected
        else:
            ok = math.isclose(got, expected, rel_tol=tol.NUMERIC_RTOL, abs_tol=tol.NUMERIC_ATOL)
        return None if ok else f"{where}: expected {expected!r}, got {got!r}"
    if expected != got:
        return f"{where}: expected {expected!r}, got {got!r}"
    return None
