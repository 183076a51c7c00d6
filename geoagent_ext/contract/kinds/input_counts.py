"""A summary value that counts an input's features: all of them ("buildings: number of
buildings"), or those with a value in one column ("how many have a name", a blank one not counted).
Only a single value is checked this way; a count per row is a different thing."""

from ..checker import _contract_input
from ._kind import ColumnParams, RequirementKind


class CountOfInputParams(ColumnParams):
    input: str
    non_empty: str | None = None  # count only the features with a value (not null, not blank) here


def _kind_count_of_input(params, data, value, sources):
    name, non_empty = params["name"], params.get("non_empty")
    if not isinstance(data, dict) or isinstance(value, (list, dict)):
        return False, f"`{name}` is not one summary value"
    source = _contract_input(params["input"], sources)
    if non_empty:
        if non_empty not in source.columns:
            return False, f"`{params['input']}` has no column `{non_empty}`"
        present = source[non_empty].notna() & (source[non_empty].astype(str).str.strip() != "")
        want, what = int(present.sum()), f"features with a `{non_empty}`"
    else:
        want, what = len(source), "features"
    ok = not isinstance(value, bool) and isinstance(value, (int, float)) and value == want
    return ok, f"`{name}` = {value!r}; `{params['input']}` has {want} {what}"


COUNT_OF_INPUT = RequirementKind(
    name="count_of_input",
    params=CountOfInputParams,
    check=_kind_count_of_input,
    reads="column",
    advice=(
        "COLUMN counts the input's features as the request says (a blank or null value is not a value): "
        "int(len(gdf)) or int(gdf[col].fillna('').astype(str).str.strip().ne('').sum())"
    ),
)


class CountedOnceParams(ColumnParams):
    input: str
    column: str  # the input's category column
    values: list[str]  # the categories counted


def _kind_counted_once(params, data, value, sources):
    import pandas as pd

    source = _contract_input(params["input"], sources)
    if params["column"] not in source.columns:
        return False, f"`{params['input']}` has no column `{params['column']}`"
    there = int(source[params["column"]].astype(str).isin(params["values"]).sum())
    total = pd.to_numeric(pd.Series(value), errors="coerce").sum()
    return total <= there, f"`{params['name']}` sums to {total:g}; `{params['input']}` has {there} to count"


COUNTED_ONCE = RequirementKind(
    name="counted_once",
    params=CountedOnceParams,
    check=_kind_counted_once,
    reads="column",
    advice=(
        "count each feature in one place only: join by one point per feature "
        "(geometry.representative_point()) with predicate='within', not by intersects on the shapes"
    ),
)
