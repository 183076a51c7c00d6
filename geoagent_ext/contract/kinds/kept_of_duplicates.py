"""Of each set of duplicates, the row the request keeps: the one with the smallest (earliest) or
largest (latest) value of a column, compared with the input's rows of the same key.

Values order as numbers when every one is a number, else as text (ISO dates and times order as
text). A file without the ordering column has nothing to compare: the requirement then holds.
"""

from typing import Literal

from ..checker import _contract_input
from ._kind import Params, RequirementKind


class KeptOfDuplicatesParams(Params):
    input: str  # the file with the duplicates
    key: list[str]  # the columns that make a duplicate
    by: str  # the column whose smallest or largest value is kept
    keep: Literal["min", "max"]


def _contract_ordered(values):
    import pandas as pd

    numbers = pd.to_numeric(values, errors="coerce")
    return numbers if numbers.notna().all() else values.astype(str)


def _kind_kept_of_duplicates(params, data, sources):
    key, by, keep = params["key"], params["by"], params["keep"]
    if by not in data.columns:
        return True, f"`{by}` is not in the file (nothing to compare)"
    source = _contract_input(params["input"], sources)
    missing = [c for c in key + [by] if c not in source.columns] + [c for c in key if c not in data.columns]
    if missing:
        return False, f"`{missing[0]}` is missing, so the kept rows cannot be told"
    want = source.assign(_v=_contract_ordered(source[by])).groupby([source[c].astype(str) for c in key])["_v"]
    best = (want.min() if keep == "min" else want.max()).to_dict()
    mine = _contract_ordered(data[by])
    wrong = []
    for i in range(len(data)):
        k = tuple(str(data[c].iloc[i]) for c in key)
        k = k[0] if len(key) == 1 else k
        if k in best and mine.iloc[i] != best[k]:
            wrong.append((k, data[by].iloc[i], best[k]))
    word = "smallest" if keep == "min" else "largest"
    return not wrong, (
        f"{len(wrong)} kept row(s) are not the {word} `{by}` of their duplicates, e.g. {wrong[:2]} (kept, {word})"
        if wrong
        else f"each kept row has the {word} `{by}` of its duplicates"
    )


KEPT_OF_DUPLICATES = RequirementKind(
    helpers=(_contract_ordered,),
    name="kept_of_duplicates",
    params=KeptOfDuplicatesParams,
    check=_kind_kept_of_duplicates,
    advice=(
        "keep the row the request names of each set of duplicates: sort by its column (ascending for the "
        "earliest/smallest) and then drop_duplicates(key, keep='first')"
    ),
)
