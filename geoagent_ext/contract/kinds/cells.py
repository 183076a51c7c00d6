"""Every cell of a table holds one value, not a printed pandas object: ``str(series)`` written into a
cell ("0    Polygon\\n1    Polygon\\n...\\nLength: 1000, dtype: str") is a column where a single value
was meant. No request asks for that, so every table the contract checks has this requirement."""

from ._kind import Params, RequirementKind


class OneValuePerCellParams(Params):
    pass


def _kind_one_value_per_cell(params, path, fmt, layers):
    import re as _re

    tables = [data for data in layers.values() if hasattr(data, "columns")]
    if not tables:
        return True, "no table in the file (a JSON document's values are checked by name)"
    printed = _re.compile(r"(?:^|\n)(?:Name: [^\n]*, )?(?:Length: \d+, )?dtype: \w+\s*$|\[\d+ rows x \d+ columns\]")
    for data in tables:
        for column in data.columns:
            if str(column) == "geometry" or getattr(data[column].dtype, "kind", "O") in "biufcmM":
                continue
            for value in data[column].dropna().tolist():
                if isinstance(value, str) and "\n" in value and printed.search(value):
                    first = value.splitlines()[0][:40]
                    return False, f"`{column}` holds a printed pandas object ({first!r}...), not one value per cell"
    return True, "one value per cell"


ONE_VALUE_PER_CELL = RequirementKind(
    name="one_value_per_cell",
    params=OneValuePerCellParams,
    check=_kind_one_value_per_cell,
    reads="file",
    advice=(
        "write one value per cell: take the scalar (series.iloc[0], series.unique()[0], len(frame)), "
        "never str(series) or a whole column"
    ),
)
