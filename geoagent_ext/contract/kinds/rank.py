"""A rank column said to count from 1 ("rank (1 = closest)", "position, 1 for the largest", "ranked
1..10"): its values are whole numbers from 1 (the first is 1, none below it, none above the number
of rows, nor above the last rank the request names), so a rank counted from 0 or left as a row
index is seen."""

from __future__ import annotations

import re

from ._kind import Builder, ColumnParams, RequestView, RequirementKind


class RankParams(ColumnParams):
    top: int | None = None  # the last rank the request names ("1..10", "1 = closest, then 2, 3")


def _kind_rank_from_one(params, data, value, sources):
    """(passed, observed): the values are whole numbers, the smallest is 1, and none is above the
    number of rows (nor above ``top``)."""
    import pandas as pd

    name = params["name"]
    values = pd.to_numeric(
        pd.Series(list(value) if not isinstance(value, (str, int, float)) else [value]), errors="coerce"
    )
    numbers = values.dropna()
    if numbers.empty:
        return False, f"`{name}` holds no numbers"
    whole = (numbers == numbers.round()).all()
    low, high = numbers.min(), numbers.max()
    seen = f"`{name}` runs from {low:g} to {high:g} over {len(values)} rows"
    if not whole:
        return False, seen + "; not all whole numbers"
    if low != 1:
        return False, seen + "; the first rank is 1"
    limit = min(len(values), params.get("top") or len(values))
    if high > limit:
        return False, seen + f"; no rank can be above {limit}"
    return True, seen


# a column's name said of ranks: "rank", "ranking", "position", "place", "order"
_RANK_NAME = re.compile(r"(?:^|_)(?:rank\w*|position|pos|place|order|ordinal|standing)(?:$|_)", re.I)
# what names the first rank: "1 = closest", "1 for the largest", "1 is the biggest", "1 means nearest"
_FIRST_IS = re.compile(r"1\s*(?:=|:|is\b|for\b|means\b|being\b|->|→)\s*(?:the\s+)?(?P<what>[\w-]+)", re.I)
# a range from 1: "1..10", "1-10", "1 to 10", "1 through 10"
_FROM_ONE_TO = re.compile(r"1\s*(?:\.\.\.?|…|-|–|—|to\b|through\b)\s*(?P<top>\d+|n)\b", re.I)
_STARTING_AT_ONE = re.compile(r"(?:start\w*|begin\w*|counting|numbered|from)\s+(?:at\s+|with\s+|from\s+)?1\b", re.I)
_FIRST_WORDS = re.compile(r"(?:\w+est|most|first|top|best|greatest|nearest|closest)$", re.I)


def _said_from_one(text: str, name: str) -> tuple[bool, int | None] | None:
    """(whether the name is a rank's, the last rank named) when the words right after ``name`` say
    its values count from 1; None when they do not."""
    col = r"(?<![\w`'\"])[`'\"]?" + re.escape(name) + r"[`'\"]?(?![\w`'\"])"
    for m in re.finditer(col, text):
        tail = text[m.end() : m.end() + 120]
        head = re.match(
            r"\s*(?:\(|,|:|=|-|–|—)?\s*(?:(?:is|are|as|a|an|the|column|field|value|values|rank|ranked)\s+){0,3}", tail
        )
        rest = tail[head.end() :] if head else tail
        rank_name = bool(_RANK_NAME.search(name))
        first = _FIRST_IS.match(rest)
        if first and (rank_name or _FIRST_WORDS.search(first.group("what"))):
            clause = re.split(r"\)|;|\n|\.\s", rest)[0]
            numbers = [int(x) for x in re.findall(r"(?<![\w.])\d+(?![\w.])", clause)]
            listed = numbers == list(range(1, len(numbers) + 1)) and len(numbers) > 1
            open_ended = re.search(r"\.\.|…|\betc\b|so\s+on|and\s+on|=.*=|:.*:", clause)
            top = numbers[-1] if listed and not open_ended else None
            return rank_name, top
        to = _FROM_ONE_TO.match(rest)
        if rank_name and to:
            return True, int(to.group("top")) if to.group("top").isdigit() else None
        if rank_name and _STARTING_AT_ONE.match(rest):
            return True, None
    return None


def read_rank_from_one(request: RequestView, b: Builder) -> None:
    """A column the output lists whose words right after its name say its values count from 1
    ("rank (1 = closest, then 2, 3)", "position, 1 for the largest", "rank 1..10", "rank starting at
    1"): whole numbers from 1. A name that is not a rank's needs a superlative after "1 =" ("1 =
    biggest"), so a code table ("class (1 = forest, 2 = water)") is not read as a rank."""
    for out in request.outputs:
        about = [s for s, outs, _ in request.sentences if out in outs or not outs] or [request.text]
        for name in b.columns_of(out):
            for sentence in about:
                said = _said_from_one(" ".join(sentence.split()), name)
                if said is None:
                    continue
                _, top = said
                b.reading(sentence, True).add(
                    out,
                    "rank_from_one",
                    f"`{name}` ranks from 1 (whole numbers, the first 1"
                    + (f", the last at most {top})" if top else ")"),
                    name=name,
                    **({"top": top} if top else {}),
                )
                break


RANK_FROM_ONE = RequirementKind(
    name="rank_from_one",
    params=RankParams,
    check=_kind_rank_from_one,
    reads="column",
    advice="number the ranks from 1 (the first is 1, not 0): rank = position + 1, or .rank(method='first').astype(int)",
    read=read_rank_from_one,
)
