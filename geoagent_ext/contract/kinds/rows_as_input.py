"""As many rows as an input file has features."""

from ._kind import Params, RequirementKind


class RowsAsInputParams(Params):
    input: str
    rows: int  # the input's features, counted when the contract is derived


def _kind_rows_as_input(params, data, sources):
    n = len(data)
    return n == params["rows"], f"{n} rows (the input has {params['rows']})"


ROWS_AS_INPUT = RequirementKind(
    name="rows_as_input",
    params=RowsAsInputParams,
    check=_kind_rows_as_input,
    advice=(
        "one row per input feature: do not filter, explode or inner-join away rows "
        "(use how='left' and keep every input row)"
    ),
)
