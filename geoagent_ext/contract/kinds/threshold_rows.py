"""Rows selected by a threshold on an input's numeric column: the request keeps only the features
whose named column is above, at least, at most or below a number ("only the ones with 5 or more
units (unit_count)", "where population exceeds 10000", "elevation_m under 200"), so the output holds
exactly those rows of the input: every row's value passes the threshold, and as many rows as the
input has that pass it."""

from __future__ import annotations

import re
from typing import Literal

from ..checker import _contract_input
from ..formats import file_format
from ._kind import Builder, ColumnParams, RequestView, RequirementKind


class ThresholdRowsParams(ColumnParams):
    op: Literal[">=", ">", "<=", "<"]
    value: float
    input: str  # the input whose rows are selected; it has the column


def _kind_threshold_rows(params, data, sources):
    """(passed, observed): every output row's column value passes the threshold and the output has
    as many rows as the input has values that pass it."""
    import pandas as pd

    from_input = _contract_input(params["input"], sources)
    name, op, limit = params["name"], params["op"], float(params["value"])
    if isinstance(data, dict) or name not in data.columns:
        return False, f"`{name}` is not a column of the file"
    if name not in from_input.columns:
        return False, f"`{name}` is not a column of `{params['input']}`"

    def passing(values):
        numbers = pd.to_numeric(values, errors="coerce")
        return {
            ">=": numbers >= limit,
            ">": numbers > limit,
            "<=": numbers <= limit,
            "<": numbers < limit,
        }[op]

    want = int(passing(from_input[name]).sum())
    mine = passing(data[name])
    failing = data[name][~mine.to_numpy()].tolist()
    seen = f"{len(data)} rows; `{params['input']}` has {want} whose `{name}` {op} {limit:g}"
    if failing:
        return False, seen + f"; {len(failing)} rows here do not pass it (e.g. {failing[0]!r})"
    if len(data) != want:
        return False, seen + (" (some are missing)" if len(data) < want else " (more rows than pass)")
    return True, seen


_WORD_NUMBERS = {
    w: i
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
        "sixteen seventeen eighteen nineteen twenty".split()
    )
}
_NUM = r"(?<![\w.,])(?P<number>\d[\d,]*(?:\.\d+)?(?![\d.,]*\d)|" + "|".join(_WORD_NUMBERS) + r")\b"
# A number followed by a unit: a measure's threshold, which the column may hold in another unit.
_UNIT_AFTER = re.compile(
    r"\s*(?:%|percent|km|m|ha|hectares?|acres?|ft|feet|miles?|mi|met(?:re|er)s?|kilomet(?:re|er)s?|m2|km2|"
    r"m²|km²|sq\w*|square|degrees?|°)(?![\w])",
    re.I,
)
# (words before the number, words after it, the comparison)
_COMPARISONS = [
    (
        r"(?:>=|≥|at\s+least|no\s+(?:fewer|less)\s+than|not\s+(?:fewer|less)\s+than|a\s+minimum\s+of|min(?:imum)?)\s*",
        "",
        ">=",
    ),
    ("", r"(?:\s*(?:or|and)\s+(?:more|above|over|higher|greater|up(?:wards)?)\b|\+)", ">="),
    (
        r"(?:>|more\s+than|over|above|(?:greater|higher|bigger|larger)\s+than|exceed(?:s|ing)?|in\s+excess\s+of)\s*",
        "",
        ">",
    ),
    (r"(?:<=|≤|at\s+most|no\s+more\s+than|not\s+more\s+than|a\s+maximum\s+of|max(?:imum)?|up\s+to)\s*", "", "<="),
    ("", r"\s*or\s+(?:fewer|less|below|under|lower)\b", "<="),
    (r"(?:<|fewer\s+than|less\s+than|under|below|(?:lower|smaller)\s+than)\s*", "", "<"),
]
# Words that make the output not the input's selected rows one for one (grouped, counted, joined,
# deduplicated or cut, or every row kept with a flag), or the threshold not the only selection.
_NOT_A_SELECTION = re.compile(
    r"\b(?:per|each|every|group\w*|count\w*|how\s+many|number\s+of|total\w*|sum\w*|average|mean|median|"
    r"dissolv\w*|aggregat\w*|nearest|closest|join\w*|merg\w*|duplicat\w*|dedup\w*|unique|distinct|first|top|"
    r"sample|limit|largest|smallest|highest|lowest|within|inside|outside|intersect\w*|clip\w*|overlap\w*|"
    r"except|exclud\w*|without|not|n't|also|and\s+(?:also|whose|with|where)|or\s+(?:whose|with|where)|"
    r"between|range|invalid|empty|missing|blank|null|flag\w*|mark(?:ed|ing|s)?|whether|true|false|label\w*|"
    r"tag\w*|classif\w*|categor\w*)\b",
    re.I,
)
_SELECTING = re.compile(r"\b(?:only|just|keep|filter\w*|select\w*|subset|those|the\s+ones|where|whose|with)\b", re.I)


def _thresholds(text: str, column: str) -> list[tuple[str, float]]:
    """The (comparison, number) the text binds to ``column``: the column named just before the
    comparison ("unit_count of at least 5") or just after its number ("5 or more units (unit_count)")."""
    col = r"`?" + re.escape(column) + r"`?"
    found = []
    for before, after, op in _COMPARISONS:
        core = (r"(?<!\w)" + before if before else "") + _NUM + (f"(?:{after})" if after else "")
        patterns = [
            re.compile(r"(?<![\w`])" + col + r"(?![\w`])\W{0,3}(?:\s+\w+){0,3}?\s*(?:[:=]\s*)?" + core, re.I),
            re.compile(core + r"(?:\s+[A-Za-z]\w*){0,2}\s*\(?\s*" + col + r"(?![\w`])", re.I),
        ]
        for pattern in patterns:
            for m in pattern.finditer(text):
                unit_after = _UNIT_AFTER.match(text, m.end("number"))
                if unit_after:
                    unit = unit_after.group(0).strip().lower()
                    if unit not in column.lower().split("_"):
                        continue
                number = m.group("number").lower()
                value = float(_WORD_NUMBERS[number]) if number in _WORD_NUMBERS else float(number.replace(",", ""))
                found.append((op, value))
    return found


def read_threshold_rows(request: RequestView, b: Builder) -> None:
    """One threshold the request puts on one input column that the output carries, said with a
    selecting word ("only", "just", "keep", "those", "where", "with") and none of the words that make
    the output grouped, joined, deduplicated or otherwise selected: the output is exactly the input's
    rows that pass it."""
    text = " ".join(s for s, _, _ in request.sentences)
    if _NOT_A_SELECTION.search(re.sub(r"[\w./-]+\.\w+", " ", text)) or not _SELECTING.search(text):
        return
    tabular = [p for p in request.inputs if file_format(p) != "json"]
    for out in request.outputs:
        for column in b.columns_of(out):
            holders = [p for p in tabular if column in (request.inputs[p].get("columns") or [])]
            if len(holders) != 1:
                continue
            said = set(_thresholds(text, column))
            if len(said) != 1:
                continue
            op, value = said.pop()
            sentence = next((s for s, _, _ in request.sentences if column in s), request.text)
            b.reading(sentence, True).add(
                out,
                "threshold_rows",
                f"holds exactly the `{holders[0]}` rows whose `{column}` {op} {value:g}",
                name=column,
                op=op,
                value=value,
                input=holders[0],
            )


THRESHOLD_ROWS = RequirementKind(
    name="threshold_rows",
    params=ThresholdRowsParams,
    check=_kind_threshold_rows,
    reads="table",
    advice=(
        "keep exactly the input rows whose column passes the threshold the request says (>= for 'at least' / "
        "'or more', > for 'more than' / 'over', <= for 'at most' / 'or fewer', < for 'under' / 'below'), "
        "compared as numbers"
    ),
    read=read_threshold_rows,
)
