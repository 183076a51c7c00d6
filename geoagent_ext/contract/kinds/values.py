"""What a column's (or a JSON key's) values are: none empty, none repeated, in order, one of a set,
written one way, or taken from an input's column."""

from typing import Literal

from ..checker import _contract_column_values, _contract_input, _contract_key, _contract_short, _contract_strings
from ._kind import TABLE_MENDS, ColumnParams, RequirementKind
from ._mending import kept_first


class UniqueParams(ColumnParams):
    keep_by: str | None = None  # with ``keep``: the row of duplicates the request keeps (its min or max)
    keep: Literal["min", "max", "as_requested"] | None = None  # as_requested: a rule only the model can follow
    together: list[str] = []  # the key is ``name`` with these columns ("one row per street + number")


class SortedParams(ColumnParams):
    descending: bool = False


class ValuesInParams(ColumnParams):
    allowed: list[str]


class PatternParams(ColumnParams):
    regex: str  # every value matches it whole


class ValuesFromInputParams(ColumnParams):
    input: str
    as_type: str | None = None  # converted to that type: the same instants or numbers, none lost
    as_key: bool = False  # compared as keys are ("01", 1 and 1.0 alike): a format may write a code either way
    missing_ok: bool = False  # the request lets rows stay blank ("otherwise leave `station_id` empty")
    placeholders: list[str] = []  # values the request names for rows without one ("`station_id` = none")
    none_lost: bool = True  # with ``as_type``: no value of the input may go missing (a placeholder may)


def _contract_converted_values(name, params, mine, theirs):
    """(passed, observed) of a column converted to another type: it holds the input's values in
    that type — the same instants (a naive time read as UTC; numbers are not instants: epoch
    milliseconds read as nanoseconds are 1970 dates) or the same numbers —
    and loses none of them (unless ``none_lost`` is off: a sentinel may become missing)."""
    import bisect

    import pandas as pd

    dtype = str(params["as_type"]).lower()
    if dtype.startswith(("timestamp", "datetime", "date")):
        if pd.api.types.is_numeric_dtype(mine):
            return False, f"`{name}` holds numbers ({str(mine.dtype)}), not the times of {params['input']}"
        got = pd.to_datetime(mine, utc=True, errors="coerce")
        want = (
            pd.to_datetime(theirs, utc=True, errors="coerce", format="mixed")
            if not pd.api.types.is_numeric_dtype(theirs)
            else pd.Series([], dtype="datetime64[ns, UTC]")
        )
        show = lambda v: v.isoformat()  # noqa: E731
    else:
        got, want = pd.to_numeric(mine, errors="coerce"), pd.to_numeric(theirs, errors="coerce")
        show = lambda v: f"{v:g}"  # noqa: E731
    known = set(want.dropna().tolist())
    ordered = sorted(known)

    def theirs_too(v):  # an instant exactly; a number stored in any width (float32's 12.7 is 12.69999981)
        if v in known or isinstance(v, pd.Timestamp):
            return v in known
        i = bisect.bisect_left(ordered, v)
        return any(abs(w - v) <= 1e-6 * max(1.0, abs(v)) for w in ordered[max(0, i - 1) : i + 1])

    foreign = [v for v in got.dropna().tolist() if not theirs_too(v)]
    lost = int(got.isna().sum()) - int(want.isna().sum()) if params.get("none_lost", True) else 0
    said = []
    if foreign:
        said.append(
            f"{len(foreign)} of {len(got)} values are none of {params['input']}'s, e.g. {show(foreign[0])}"
            + (f" (it has {show(min(known))} … {show(max(known))})" if known else "")
        )
    if lost > 0:
        said.append(f"{lost} value(s) more are missing than in {params['input']}")
    return not said, f"`{name}`: " + (
        "; ".join(said) if said else f"every value is one of {params['input']}'s, as {dtype}"
    )


def _kind_non_empty(params, data, value, sources):
    import math

    values = _contract_column_values(data, value)
    seq = values.tolist() if hasattr(values, "tolist") else list(values)
    bad = [
        v
        for v in seq
        if v is None or (isinstance(v, float) and math.isnan(v)) or (isinstance(v, str) and not v.strip())
    ]
    return not bad, f"`{params['name']}`: {len(bad)} null or empty value(s)"


def _kind_unique(params, data, value, sources):
    together = params.get("together") or []
    if together:
        missing = [c for c in together if isinstance(data, dict) or c not in data.columns]
        if missing:
            return False, f"`{missing[0]}` is not in the file"
        seq = list(zip(*(_contract_strings(data[c]) for c in [params["name"], *together])))
    else:
        seq = _contract_strings(_contract_column_values(data, value))
    dups = len(seq) - len(set(seq))
    key = " + ".join(f"`{c}`" for c in [params["name"], *together])
    return dups == 0, f"{key}: {dups} duplicate value(s)"


def _kind_sorted(params, data, value, sources):
    name = params["name"]
    if isinstance(data, dict):
        return False, f"`{name}` is a JSON key, not a column"
    ok = value.is_monotonic_decreasing if params.get("descending") else value.is_monotonic_increasing
    return bool(ok), f"`{name}` first values {_contract_short(value.head(5).tolist())}"


def _kind_pattern(params, data, value, sources):
    import re as _re

    name = params["name"]
    seq = _contract_strings(_contract_column_values(data, value))
    foreign = [v for v in seq if not _re.fullmatch(params["regex"], v)]
    return not foreign, (
        f"`{name}`: {len(foreign)} value(s) not written that way, e.g. {foreign[:3]}"
        if foreign
        else f"`{name}` values {seq[:3]}"
    )


def _kind_values_in(params, data, value, sources):
    seq = _contract_strings(_contract_column_values(data, value))
    foreign = sorted({v for v in seq if v not in params.get("allowed", [])})
    return not foreign, f"`{params['name']}` values {sorted(set(seq))[:6]}" + (
        f"; not allowed: {foreign[:4]}" if foreign else ""
    )


def _kind_values_from_input(params, data, value, sources):
    name = params["name"]
    src = _contract_input(params["input"], sources)
    if params["name"] not in getattr(src, "columns", []):
        return False, f"`{name}` is not in {params['input']}"
    if params.get("as_type") and not isinstance(data, dict):
        return _contract_converted_values(name, params, value, src[params["name"]])
    theirs = src[params["name"]]
    allowed = set(map(str, theirs.dropna().tolist()))
    seq = _contract_strings(value)
    if params.get("as_key"):
        allowed, seq = {_contract_key(v) for v in allowed}, [_contract_key(v) for v in seq]
    # a value the input lacks may stay missing; a placeholder said ("n/a", "null") may read back as missing
    if theirs.isna().any() or "" in allowed or params.get("missing_ok") or params.get("placeholders"):
        seq = [v for v in seq if v.strip() not in ("", "nan", "None", "<NA>")]
    said = {str(p).strip().lower() for p in params.get("placeholders") or []}
    seq = [v for v in seq if v.strip().lower() not in said]
    foreign = [v for v in seq if v not in allowed]
    return not foreign, (
        f"`{name}`: {len(foreign)} value(s) not in {params['input']}, e.g. {foreign[:3]}"
        if foreign
        else f"`{name}`: every value comes from {params['input']}"
    )


def _deduplicated(p, site):
    """One row per value, the one the request says to keep (never ours to choose)."""
    if not (p.get("name") and p.get("keep_by")):
        return []
    key = [str(p["name"]), *map(str, p.get("together") or [])]
    return [*kept_first(p), f"_mend = _mend.drop_duplicates({key if len(key) > 1 else key[0]!r})"]


def _sorted_rows(p, site):
    if not p.get("name"):
        return []
    name, ascending = str(p["name"]), not p.get("descending")
    numbers = "pd.to_numeric(s, errors='coerce')"
    return [
        f"_mend = _mend.sort_values({name!r}, ascending={ascending}, kind='stable', "
        f"key=lambda s: {numbers} if {numbers}.notna().all() else s)"
    ]


NON_EMPTY = RequirementKind(
    name="non_empty",
    params=ColumnParams,
    check=_kind_non_empty,
    reads="column",
    advice="fill every row: join or compute the value for all rows, not only some",
)
UNIQUE = RequirementKind(
    name="unique",
    params=UniqueParams,
    check=_kind_unique,
    reads="column",
    mend=_deduplicated,
    mend_order=TABLE_MENDS + 1,
    advice="make the values unique (drop duplicate rows, or rank with method='first')",
)
SORTED = RequirementKind(
    name="sorted",
    params=SortedParams,
    check=_kind_sorted,
    reads="column",
    mend=_sorted_rows,
    mend_order=TABLE_MENDS + 3,
    advice="sort with .sort_values(COLUMN) just before writing",
)
PATTERN = RequirementKind(
    name="pattern",
    params=PatternParams,
    check=_kind_pattern,
    reads="column",
    advice="format every value exactly like the template (e.g. f'EPSG:{crs.to_epsg()}'), no other text",
)
VALUES_IN = RequirementKind(
    name="values_in",
    params=ValuesInParams,
    check=_kind_values_in,
    reads="column",
    advice="use exactly the allowed strings as values",
)
VALUES_FROM_INPUT = RequirementKind(
    helpers=(_contract_converted_values,),
    name="values_from_input",
    params=ValuesFromInputParams,
    check=_kind_values_from_input,
    reads="column",
    advice=(
        "keep the input's original values of this column unchanged (do not renumber or rebuild it); numbers read "
        "from text: pd.to_numeric(df[COLUMN], errors='coerce'), without an astype(int) that cuts their decimals"
    ),
)
