"""A column or key holds numbers: integers, any numbers, or finite numbers >= 0."""

from ..checker import _contract_column_values, _contract_numbers, _contract_short
from ._kind import ColumnParams, RequirementKind


class NonNegativeParams(ColumnParams):
    missing_ok: bool = False  # the request lets some rows leave it blank ("otherwise leave it blank")


def _kind_integer(params, data, value, sources):
    name = params["name"]
    if not isinstance(data, dict):
        dtype = str(value.dtype)
        ok = value.dtype.kind in "iu" or dtype.startswith(("Int", "UInt"))
        return ok, f"`{name}` dtype {dtype}, first values {_contract_short(value.head(3).tolist())}"
    values = _contract_numbers(value)  # a dict's values too
    bad = [v for v in values if isinstance(v, bool) or not isinstance(v, int)]
    return not bad, f"`{name}` = {_contract_short(value)}" + (f": not integers {bad[:3]}" if bad else "")


def _kind_numeric(params, data, value, sources):
    name = params["name"]
    if isinstance(data, dict):
        values = _contract_numbers(value)
        bad = [v for v in values if isinstance(v, bool) or not isinstance(v, (int, float))]
        return not bad, f"`{name}` = {_contract_short(value)}" + (f": not numbers {bad[:3]}" if bad else "")
    ok = value.dtype.kind in "iuf" or str(value.dtype).startswith(("Int", "UInt", "Float"))
    return ok, f"`{name}` dtype {value.dtype}, first values {_contract_short(value.head(3).tolist())}"


def _kind_non_negative(params, data, value, sources):
    import math

    name = params["name"]
    values = _contract_column_values(data, value)
    try:
        nums = [float(v) for v in (values.tolist() if hasattr(values, "tolist") else values)]
    except (TypeError, ValueError) as exc:
        return False, f"`{name}` is not numeric: {exc}"
    if params.get("missing_ok"):
        nums = [v for v in nums if not math.isnan(v)]
    bad = [v for v in nums if not (math.isfinite(v) and v >= 0)]
    return not bad, f"`{name}` min {min(nums) if nums else 'n/a'}, {len(bad)} value(s) negative or not finite"


INTEGER = RequirementKind(
    name="integer",
    params=ColumnParams,
    check=_kind_integer,
    reads="column",
    advice=(
        "cast with pd.to_numeric(...).astype(int) (fill missing counts with 0 first, or use 'Int64' to keep "
        "nulls); in JSON use int(...)"
    ),
)
NUMERIC = RequirementKind(
    name="numeric",
    params=ColumnParams,
    check=_kind_numeric,
    reads="column",
    advise_up_front=True,
    advice="convert with pd.to_numeric(gdf[COLUMN], errors='coerce') (placeholders become NaN) before writing",
)
NON_NEGATIVE = RequirementKind(
    name="non_negative",
    params=NonNegativeParams,
    check=_kind_non_negative,
    reads="column",
    advice="compute the measure in a metric CRS; drop nothing, and check for NaN/inf",
)
