"""Attribute-side comparisons: required columns, id detection, row matching, values, types, order."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from . import tolerances as tol
from .readers import Table, type_family

ID_NAMES = {"id", "fid", "gid", "uid", "uuid", "objectid", "osmid"}
SIZED_TYPE = re.compile(r"^(u?int\d+|float(16|32)|timestamp\[\w+\]|date)$")


def looks_like_id(name: str) -> bool:
    low = name.lower()
    return low in ID_NAMES or low.endswith("_id") or re.search(r"[a-z0-9](Id|ID)$", name) is not None


def split_columns(ref: Table, spec) -> tuple[list[str], list[str]]:
    """(required, optional) reference columns.

    Required: named in the instruction, or carried through from an input file. The others
    are extras of the reference that nobody asked for (a cluster number, a part index): the
    task does not define them, so they are neither demanded nor compared."""
    required, optional = [], []
    for col in ref.frame.columns:
        (required if spec.mentions(col) or col in spec.input_columns else optional).append(col)
    return required, optional


def detect_key(ref: Table, required: list[str], spec) -> str | None:
    """The row identity column: a required, unique, non-null int/string column.

    Id-like names (``id``, ``*_id``) first, preferring one the instruction names, then ``id``;
    without an id-like column, a unique column the instruction names (e.g. ``district_code``)."""
    candidates = []
    for col in required:
        series = ref.frame[col]
        if type_family(ref.types.get(col, "")) in ("int", "string") and series.notna().all() and series.is_unique:
            candidates.append(col)
    idlike = [c for c in candidates if looks_like_id(c)]
    if idlike:
        return sorted(idlike, key=lambda c: (not spec.mentions(c), c.lower() != "id"))[0]
    named = [c for c in candidates if spec.mentions(c)]
    return named[0] if named else None


def norm_key(value) -> str | None:
    """Comparable text of a scalar: None for nulls, integral floats without '.0' (1.0 -> '1')."""
    try:
        if pd.isna(value):
            return None
    except (TypeError, ValueError):  # lists, arrays: not a scalar null
        pass
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return str(int(value))
    if isinstance(value, (np.integer,)):
        return str(int(value))
    return str(value)


def key_pairs(ref: Table, got: Table, key: str) -> tuple[list[tuple[int, int]], dict]:
    """Pairs (ref row, got row) by key value, and the id-set differences."""
    ref_keys = [norm_key(v) for v in ref.frame[key]]
    got_keys = [norm_key(v) for v in got.frame[key]]
    position: dict[str, int] = {}
    duplicated = []
    for j, k in enumerate(got_keys):
        if k in position:
            duplicated.append(k)
        else:
            position[k] = j
    pairs = [(i, position[k]) for i, k in enumerate(ref_keys) if k in position]
    ref_set, got_set = set(ref_keys), set(got_keys) - {None}
    info = {
        "missing": sorted(ref_set - got_set),
        "extra": sorted(got_set - ref_set),
        "duplicated": sorted(set(duplicated)),
        "null": sum(k is None for k in got_keys),
    }
    return pairs, info


def describe_ids(info: dict, key: str) -> str:
    parts = []
    for label in ("missing", "extra", "duplicated"):
        values = info[label]
        if values:
            word = "unexpected" if label == "extra" else label
            parts.append(f"{len(values)} {word} (e.g. {values[0]!r})")
    if info["null"]:
        parts.append(f"{info['null']} null")
    return f"{key}: " + ", ".join(parts) if parts else f"{key}: same set"


# --- values -------------------------------------------------------------------------------


def _to_utc(series: pd.Series) -> pd.Series:
    if pd.api.types.is_datetime64_any_dtype(series.dtype):
        out = series if isinstance(series.dtype, pd.DatetimeTZDtype) else series.dt.tz_localize("UTC")
        return out.dt.tz_convert("UTC")
    return pd.to_datetime(series.astype(object), utc=True, errors="coerce", format="mixed")


def equal_values(ref: pd.Series, got: pd.Series, ref_type: str) -> np.ndarray:
    """Element-wise equality within tolerance, judged by the reference column's type family."""
    ref = ref.reset_index(drop=True)
    got = got.reset_index(drop=True)
    both_null = ref.isna().to_numpy() & got.isna().to_numpy()
    family = type_family(ref_type)
    if family == "datetime":
        r, g = _to_utc(ref), _to_utc(got)
        close = ((r - g).abs() <= pd.Timedelta(seconds=tol.DATETIME_TOL_SECONDS)).fillna(False).to_numpy(dtype=bool)
        return close | (r.isna().to_numpy() & g.isna().to_numpy())
    if family in ("int", "float"):
        r = pd.to_numeric(ref, errors="coerce").astype(float).to_numpy()
        g = pd.to_numeric(got.astype(object) if got.dtype == bool else got, errors="coerce").astype(float).to_numpy()
        if family == "int":
            eq = r == g
        else:
            eq = np.isclose(g, r, rtol=tol.NUMERIC_RTOL, atol=tol.NUMERIC_ATOL)
        return eq | (np.isnan(r) & np.isnan(g))
    if family == "bool":
        norm = lambda v: None if pd.isna(v) else str(v).strip().lower() in ("true", "1", "yes")  # noqa: E731
        return np.array([norm(a) == norm(b) for a, b in zip(ref, got)]) | both_null
    return np.array([_text(a) == _text(b) for a, b in zip(ref, got)]) | both_null


def _text(value) -> str | None:
    text = norm_key(value)
    if tol.EMPTY_STRING_IS_NULL and text is not None and not text.strip():
        return None
    return text


def short(value) -> str:
    if isinstance(value, float):
        return f"{value:.6g}"
    text = repr(value) if isinstance(value, str) else str(value)
    return text if len(text) <= 40 else text[:37] + "..."


def dtype_problem(col: str, ref_type: str, got_type: str, spec) -> str | None:
    """Why the deliverable's column type is wrong, or None.

    Families must match (a float column may arrive as int); the exact width/unit is demanded
    only when the instruction names the reference's type (e.g. ``int32``, ``timestamp[us]``)."""
    ref_family, got_family = type_family(ref_type), type_family(got_type)
    if ref_family == "other":
        return None
    if ref_family != got_family and not (ref_family == "float" and got_family == "int"):
        return f"{col}: expected {ref_family} ({ref_type}), got {got_type}"
    if SIZED_TYPE.match(ref_type) and re.search(rf"(?<![\w\[]){re.escape(ref_type)}(?![\w\]])", spec.instruction):
        if got_type != ref_type:
            return f"{col}: expected {ref_type} as requested, got {got_type}"
    return None


# --- order --------------------------------------------------------------------------------


def monotonic_direction(values: pd.Series) -> int:
    """+1 non-decreasing, -1 non-increasing, 0 neither (or constant / unorderable)."""
    values = values.dropna()
    if values.nunique() < 2:
        return 0
    try:
        if values.is_monotonic_increasing:
            return 1
        if values.is_monotonic_decreasing:
            return -1
    except TypeError:
        return 0
    return 0


def order_problem(ref: Table, got: Table, pairs: list[tuple[int, int]] | None, columns: list[str], label) -> str | None:
    """None if the deliverable's rows are in the reference's order.

    ``pairs`` (ref row, got row) come from ids or geometry; None when rows could only be
    paired by position, in which case only the sort columns can tell. A column on which the
    reference is monotonic is a sort column: when the deliverable is monotonic on it in the
    same direction, a different order can only differ among ties, which is accepted."""
    if pairs:
        order = [i for i, _ in sorted(pairs, key=lambda p: p[1])]
        if order == sorted(order):
            return None
    got_rows = sorted(j for _, j in pairs) if pairs else list(range(len(got)))
    sort_columns = []
    for col in columns:
        direction = monotonic_direction(ref.frame[col])
        if not direction or col not in got.frame.columns:
            continue
        sort_columns.append(col)
        values = got.frame[col].iloc[got_rows]
        if type_family(ref.types.get(col, "")) in ("int", "float"):
            values = pd.to_numeric(values, errors="coerce")
        if monotonic_direction(values) == direction:
            return None
    if pairs is None:
        if not sort_columns:
            return None  # nothing in the reference shows a sort key; order cannot be judged
        return f"rows are not sorted by {', '.join(sort_columns)} as in the reference"
    if not pairs:
        return "no rows could be matched to judge the order"
    order = [i for i, _ in sorted(pairs, key=lambda p: p[1])]
    first = next(k for k, (a, b) in enumerate(zip(order, sorted(order))) if a != b)
    hint = f"; reference is sorted by {', '.join(sort_columns)}" if sort_columns else ""
    return f"row {first + 1}: expected {label(sorted(order)[first])}, got {label(order[first])}{hint}"


# --- ranks with ties ----------------------------------------------------------------------


def rank_basis(ref: Table, col: str, candidates: list[str]) -> str | None:
    """The numeric column that ``col`` ranks, if ``col`` is a unique integer rank of one.

    ``col`` ranks ``other`` when ordering the reference by ``col`` leaves ``other`` monotonic.
    Rows tied on ``other`` may then carry their ranks in any order."""
    if type_family(ref.types.get(col, "")) != "int" or not ref.frame[col].is_unique or len(ref.frame) < 3:
        return None
    ordered = ref.frame.sort_values(col)
    for other in candidates:
        if other != col and type_family(ref.types.get(other, "")) in ("int", "float"):
            if monotonic_direction(pd.to_numeric(ordered[other], errors="coerce")):
                return other
    return None


def rank_equal(ref_rank: pd.Series, got_rank: pd.Series, ref_basis: pd.Series) -> np.ndarray:
    """Rank equality where rows whose basis values tie (within the numeric tolerance) may swap ranks."""
    r = pd.to_numeric(ref_rank, errors="coerce").to_numpy(dtype=float)
    g = pd.to_numeric(got_rank, errors="coerce").to_numpy(dtype=float)
    basis = pd.to_numeric(ref_basis, errors="coerce").to_numpy(dtype=float)
    eq = r == g
    order = np.argsort(r, kind="stable")
    start = 0
    for k in range(1, len(order) + 1):
        if k < len(order) and np.isclose(
            basis[order[k]], basis[order[k - 1]], rtol=tol.NUMERIC_RTOL, atol=tol.NUMERIC_ATOL
        ):
            continue
        group = order[start:k]
        if len(group) > 1 and sorted(r[group]) == sorted(g[group]):
            eq[group] = True
        start = k
    return eq
