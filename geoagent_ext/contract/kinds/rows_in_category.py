"""Rows selected by an input's category the output does not carry: "only the reservoirs, not the
ponds" keeps features whose `kind` is "reservoir"; when the output lists other columns of the
input, each row's input feature (found by a key column the two share) has one of those values."""

from __future__ import annotations

from ..checker import _contract_input, _contract_key, _contract_key_match
from ._kind import Params, RequirementKind


class RowsInCategoryParams(Params):
    input: str  # the input whose features the rows are
    column: str  # its category column the request selects by
    allowed: list[str]  # the values the selected features have


def _kind_rows_in_category(params, data, sources):
    """(passed, observed): every row matched to its input feature by a key column has an allowed
    value in the input's column; rows no key matches leave nothing to check (it passes)."""
    column, allowed = params["column"], [_contract_key(v) for v in params["allowed"]]
    if isinstance(data, dict):
        return True, "a JSON object: no rows to match (nothing to check)"
    src = _contract_input(params["input"], sources)
    if column not in src.columns:
        return False, f"`{column}` is not a column of `{params['input']}`"
    match = _contract_key_match(data, src, column)
    if not match:
        return True, f"no column matches the rows to `{params['input']}`'s features (nothing to check)"
    key, rows, _ = match
    values = src[column].tolist()
    other = [values[i] for i in rows if _contract_key(values[i]) not in allowed]
    seen = f"{len(rows) - len(other)} of {len(rows)} rows (by `{key}`) are features whose `{column}` is allowed"
    if other:
        return False, seen + f"; e.g. one whose `{column}` is {other[0]!r} (the request keeps {params['allowed']})"
    return True, seen


ROWS_IN_CATEGORY = RequirementKind(
    name="rows_in_category",
    params=RowsInCategoryParams,
    check=_kind_rows_in_category,
    advice=(
        "keep only the input features of the category the request selects: filter on that column of the "
        "input before writing"
    ),
)
