"""Rows in the order of the input they come from ("in the same order as the input file")."""

from ..checker import _contract_input, _contract_key
from ._kind import Params, RequirementKind


class InputOrderParams(Params):
    input: str  # the input file whose order the rows keep
    key: str  # a column both carry that says which input row a row comes from


def _kind_input_order(params, data, sources):
    key = params["key"]
    src = _contract_input(params["input"], sources)
    if key not in getattr(data, "columns", []) or key not in getattr(src, "columns", []):
        return False, f"`{key}` is not in both the file and `{params['input']}`"
    positions = {}
    for i, value in enumerate(src[key].tolist()):
        positions.setdefault(_contract_key(value), []).append(i)
    last = -1  # the input row of the row above; parts of one input row (exploded) may follow each other
    for row, value in enumerate(data[key].tolist()):
        later = [p for p in positions.get(_contract_key(value), []) if p >= last]
        if not later:
            where = "is not in the input" if _contract_key(value) not in positions else "comes earlier in the input"
            return False, f"row {row}: `{key}` = {value!r} {where} (the rows are not in the input's order)"
        last = min(later)
    return True, f"{len(data)} rows in the order of `{params['input']}` by `{key}`"


INPUT_ORDER = RequirementKind(
    name="input_order",
    params=InputOrderParams,
    check=_kind_input_order,
    advice=(
        "keep the input's row order: no sort_values; after a merge or sjoin that reorders rows, put them "
        "back in the input's order (out = out.set_index(KEY).loc[src[KEY]].reset_index())"
    ),
)
