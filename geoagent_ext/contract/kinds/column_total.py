"""A column the request says adds up to a number ("share_pct, each district's share as a percentage,
so the column adds up to 100", "weight: the weights sum to 1"): the sum of its values is that
number, within the rounding its values show. A share written as a fraction where a percentage was
asked (or the other way) sums to 1 (100) and fails it."""

from __future__ import annotations

import re

from ..checker import _contract_rounding_step
from ._kind import Builder, ColumnParams, RequestView, RequirementKind


class ColumnTotalParams(ColumnParams):
    total: float  # what the column's values add up to


def _kind_column_total(params, data, value, sources):
    """(passed, observed): the column's numeric values add up to the total, within 0.1 % or half the
    rounding step of each value."""
    import pandas as pd

    name, total = params["name"], float(params["total"])
    items = value.tolist() if hasattr(value, "tolist") else value if isinstance(value, list) else None
    if items is None:
        return False, f"`{name}` is not a column of values"
    numbers = [v for v in pd.to_numeric(pd.Series(items, dtype=object), errors="coerce").tolist() if v == v]
    if not numbers:
        return False, f"`{name}` holds no numbers"
    got = sum(numbers)
    slack = 0.001 * abs(total) + _contract_rounding_step(numbers) / 2 * len(numbers) + 1e-9
    seen = f"`{name}` adds up to {got:.6g} (the request: {total:g})"
    return abs(got - total) <= slack, seen


_NUMBER = r"(?P<number>\d+(?:\.\d+)?)"
_ADDS_UP = re.compile(
    r"\b(?:add(?:s|ing)?\s+up\s+to|sum(?:s|ming)?\s+(?:up\s+)?to|totals(?:\s+to)?|total\s+to)\s+"
    + r"(?:exactly\s+)?" + _NUMBER
    + r"(?:\s*%|\s+percent)?(?![\w.]*\d)",
    re.I,
)  # fmt: skip
# a value's name: in backticks, or of words joined by underscores
_NAMED = re.compile(r"`([A-Za-z_]\w*)`|(?<![\w.`-])([a-z][a-z0-9]*(?:_[a-z0-9]+)+)(?![\w.`-])")
# Words between the column and "adds up to" that make the sum a group's or a loose one
_NOT_THE_COLUMN = re.compile(
    r"\b(?:per|each|every|within|group\w*|roughly|about|approximately|around|nearly|almost|close\s+to|"
    r"about|may|might|not|n't|never|unless|if|except|rows?|records?|features?)\b|[;]",
    re.I,
)


def _defined(before: str, places: list[tuple[int, str]]) -> tuple[int, str] | None:
    """The column whose definition the words are in: "share_pct (its share of all visits, adding
    up to 100)" or "share_pct – its share of all visits, adding up to 100" speaks of `share_pct`,
    not of `visits` named inside the definition. None when the words are not in a definition."""
    opened = [i for i, ch in enumerate(before) if ch == "("]
    closed = before.count(")")
    starts = [opened[closed]] if len(opened) > closed else []  # the parenthesis still open
    starts += [m.start() for m in re.finditer(r"\s[–—-]\s", before)]
    for start in sorted(starts, reverse=True):
        owner = [(end, name) for end, name in places if end <= start and not before[end:start].strip(" `*\"'")]
        if owner:
            return owner[0]
    return None


def _places(text: str, names: set[str]) -> list[tuple[int, str]]:
    """(where it ends, name) of every whole-word mention of the names in the text."""
    return [(hit.end(), c) for c in names for hit in re.finditer(rf"(?<![\w-]){re.escape(c)}(?![\w-])", text)]


def read_column_total(request: RequestView, b: Builder) -> None:
    """ "<column> ... adds up to 100" in one sentence: the output column (or a value's name) whose
    definition holds the words, else the last named before them, with no word between that makes it
    a group's sum or a loose one, adds up to that number."""
    for sentence, outs, _ in request.sentences:
        said = request.affirmed(sentence)
        hits, raw_hits = list(_ADDS_UP.finditer(said)), list(_ADDS_UP.finditer(sentence))
        for i, m in enumerate(hits):
            raw = raw_hits[i] if len(raw_hits) == len(hits) else None  # the same words, punctuation kept
            for out in outs or (list(request.outputs) if len(request.outputs) == 1 else []):
                before = said[: m.start()]
                names = set(b.columns_of(out)) | {n.group(1) or n.group(2) for n in _NAMED.finditer(before)}
                places = _places(before, names)
                if not places:
                    continue
                owner = _defined(sentence[: raw.start()], _places(sentence[: raw.start()], names)) if raw else None
                end, name = owner or max(places)
                gap = sentence[end : raw.start()] if owner and raw else before[end:]
                if _NOT_THE_COLUMN.search(gap) or len(gap) > 120:
                    continue
                total = float(m.group("number"))
                b.reading(sentence, True).add(
                    out, "column_total", f"`{name}` adds up to {total:g}", name=name, total=total
                )


COLUMN_TOTAL = RequirementKind(
    name="column_total",
    params=ColumnTotalParams,
    check=_kind_column_total,
    reads="column",
    advice=(
        "make the column add up to the number the request says: a percentage share is count / total * 100 "
        "(not the fraction), taken over the same rows the table lists"
    ),
    read=read_column_total,
)
