"""Rows selected by a threshold on an input's numeric column: the request keeps only the features
whose named column is above, at least, at most or below a number ("only the ones with 5 or more
units (unit_count)", "where population exceeds 10000", "elevation_m under 200"), so the output holds
exactly those rows of the input: every row's value passes the threshold, and as many rows as the
input has that pass it."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Literal

from ..checker import _contract_input, _contract_key
from ..formats import SPATIAL, file_format
from ._kind import Builder, ColumnParams, Params, RequestView, RequirementKind
from .measure_stats import _DEFINED, _contract_group_column, _selects_rows
from .measure_totals import _group_of, _names_a_value


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


class GroupSizeRowsParams(Params):
    name: str | None = None  # a JSON output's key of the group: its records are the rows
    input: str  # the input whose rows are grouped and counted
    group: str  # the input's column the rows are grouped by
    op: Literal[">=", ">", "<=", "<"]
    value: float


def _kind_group_size_rows(params, data, sources):
    """(passed, observed): the file's rows are exactly the input's groups whose number of rows passes
    the threshold, one row each (groups found by the group column, or the one column of group values)."""
    src = _contract_input(params["input"], sources)
    group, op, limit = params["group"], params["op"], float(params["value"])
    if group not in src.columns:
        return False, f"`{group}` is not a column of `{params['input']}`"
    if isinstance(data, dict):
        return False, "the file is not a table"
    sizes = {}
    for k in src[group].tolist():
        if k is not None and k == k and str(k).strip() != "":
            sizes[_contract_key(k)] = sizes.get(_contract_key(k), 0) + 1
    passing = {k for k, n in sizes.items() if {">=": n >= limit, ">": n > limit, "<=": n <= limit, "<": n < limit}[op]}
    own = _contract_group_column(data, group, set(sizes), None)
    if own is None:
        return False, f"no column says each row's `{group}`"
    keys = [_contract_key(k) for k in data[own].tolist()]
    seen = f"{len(set(keys))} groups; `{params['input']}` has {len(passing)} whose row count {op} {limit:g}"
    extra = sorted(set(keys) - passing, key=str)
    missing = sorted(passing - set(keys), key=str)
    if extra:
        return False, seen + f"; {extra[0]!r} has {sizes.get(extra[0], 0)} rows and is not one of them"
    if missing:
        return False, seen + f"; {missing[0]!r} ({sizes[missing[0]]} rows) is missing"
    if len(keys) != len(set(keys)):
        return False, seen + "; a group is here more than once"
    return True, seen


# the members a group's size counts: the input's features or rows, by a general name
_MEMBER_NOUNS = {
    "feature", "row", "record", "polygon", "point", "line", "entry", "member", "item", "geometry", "shape",
    "observation", "sample", "site", "location", "outline", "area", "parcel", "segment", "multipolygon",
}  # fmt: skip


def _group_size_said(text: str, group: str, nouns: set[str]) -> set[tuple[str, float]]:
    """(comparison, number) of "only the <groups> with at least 30 polygons" / "<groups> having 5 or
    more features" / "one row per <group> that has 20 polygons or more": the groups kept by how many
    members they have."""
    return {(op, value) for op, value, _ in _group_size_spans(text, group, nouns)}


def _group_size_spans(text: str, group: str, nouns: set[str]) -> list[tuple[str, float, tuple[int, int]]]:
    """(comparison, number, where in ``text``) of each selection of groups by their size."""
    last = re.escape(group.split("_")[-1])
    words = rf"`?(?:{re.escape(group)}|{re.escape(group.replace('_', ' '))}|{last})(?:e?s)?`?"
    having = r"\s+(?:with|having|that\s+ha(?:ve|s)|which\s+ha(?:ve|s)|containing)\s+"
    leads = [
        rf"\b(?:only|just|keep(?:ing)?)\s+(?:the\s+|those\s+)?{words}" + having,
        rf"\b(?:one|a|an)\s+(?:row|object|record|entry|item|feature|line|element)\s+(?:per|for\s+each|for\s+every)\s+"
        rf"(?:[\w-]+\s+){{0,2}}?{words}" + having,
    ]
    said = []
    for before, after, op in _COMPARISONS:
        core = (r"(?<!\w)" + before if before else "") + _NUM + (f"(?:{after})" if after else "")
        tails = [core + r"\s+(?P<noun>[A-Za-z]+)\b"]
        if after:  # "20 polygons or more"
            tails.append(_NUM + r"\s+(?P<noun>[A-Za-z]+)" + f"(?:{after})")
        for lead in leads:
            for tail in tails:
                for m in re.finditer(lead + tail, text, re.I):
                    if _UNIT_AFTER.match(text, m.end("number")):
                        continue
                    noun = m.group("noun").lower()
                    noun = noun[:-3] + "y" if noun.endswith("ies") else noun[:-1] if noun.endswith("s") else noun
                    if noun not in nouns:
                        continue
                    number = m.group("number").lower()
                    value = float(_WORD_NUMBERS[number]) if number in _WORD_NUMBERS else float(number.replace(",", ""))
                    said.append((op, value, m.span()))
    return said


# words by which rows may be chosen before they are counted (the structural "=", "with two members"
# of a document's sketch are not)
_ROW_SELECTING = re.compile(
    r"\b(?:only|just|except\w*|exclud\w*|without|leav(?:e|ing)\s+out|left\s+out|drop\w*|remov\w*|ignor\w*|"
    r"skip\w*|omit\w*|discard\w*|filter\w*|select\w*|subset|where|whose|unless|if|at\s+least|at\s+most|"
    r"more\s+than|less\s+than|fewer\s+than|above|below|over|under|exceed\w*|between|within|inside|outside|"
    r"clip\w*|intersect\w*|overlap\w*|touch\w*|near\w*|valid|invalid|duplicat\w*|dedup\w*|distinct|unique|"
    r"not|n't|but|other\s+than|apart\s+from|larger|smaller|bigger|greater|longer|shorter|empty|null|missing|"
    r"since|before|after|from\s+\d|dated?|year|month)\b|[<>≤≥]\s*\d",
    re.I,
)


def read_group_size_rows(request: RequestView, b: Builder) -> None:
    """A grouped output that keeps only the groups with at least (more than, at most, fewer than) a
    number of the input's features ("only the classes with at least 30 polygons"), the group one
    column of the one input the request groups by: the output's rows are exactly those groups. Sure
    when no other word may select the rows counted and no input value is named."""
    if len(request.outputs) != 1:
        return
    out = request.outputs[0]
    json_out = file_format(out) == "json"
    if file_format(out) not in ("csv", "parquet", "xlsx") and file_format(out) not in SPATIAL and not json_out:
        return
    text = " ".join(request.text.split())
    tabular = [p for p in request.inputs if file_format(p) != "json" and request.inputs[p].get("columns")]
    if len(tabular) != 1:
        return
    source = tabular[0]
    source_columns = request.inputs[source]["columns"]
    stem = re.split(r"[^a-z]+", source.rsplit("/", 1)[-1].rsplit(".", 1)[0].lower())
    nouns = _MEMBER_NOUNS | {w[:-1] if w.endswith("s") else w for w in stem if len(w) > 2}
    group = _group_of(text, "", source_columns, source_columns)
    if group is None:  # the one column the kept groups are said of ("one row per land-use `class` that has ...")
        saying = [c for c in source_columns if _group_size_said(text, c, nouns)]
        group = saying[0] if len(saying) == 1 else None
    if group is None:
        return
    said = _group_size_said(text, group, nouns)
    if len(said) != 1:
        return
    op, value = said.pop()
    defined = {m.group("name") for m in _DEFINED.finditer(request.text)}
    # the words that select the groups are not a selection of the rows counted: read the rest
    rest = []
    for sentence, outs, surely in request.sentences:
        flat = " ".join(sentence.split())
        cut_at = len(flat) + 1
        for start, end in sorted({span for _, _, span in _group_size_spans(flat, group, nouns)}, reverse=True):
            if end > cut_at:
                continue  # within a span already cut
            lead = re.search(r"(?:\b(?:with|of|holding|containing)\s+)?$", flat[:start])
            cut_at = lead.start() if lead else start
            flat = flat[:cut_at] + " " + flat[end:]
        rest.append((flat, outs, surely))
    sure = not _selects_rows(replace(request, sentences=rest), defined, group) or not any(
        _ROW_SELECTING.search(re.sub(r"[\w./-]+\.\w+", " ", flat)) for flat, _, _ in rest
    )
    sure = sure and not _names_a_value(request, source, group)
    if json_out and group not in b.columns_of(out):
        return  # the records of a JSON document are found by the group's own key
    sentence = next((s for s, _, _ in request.sentences if _group_size_said(" ".join(s.split()), group, nouns)), text)
    b.reading(sentence, sure).add(
        out,
        "group_size_rows",
        f"one row for each `{group}` of `{source}` with {op} {value:g} features, and no other",
        input=source,
        group=group,
        op=op,
        value=value,
        **({"name": group} if json_out else {}),
    )


GROUP_SIZE_ROWS = RequirementKind(
    name="group_size_rows",
    params=GroupSizeRowsParams,
    check=_kind_group_size_rows,
    helpers=(_contract_group_column,),
    reads="table",
    advice=(
        "count each group's input features (groupby(GROUP).size()) and keep exactly the groups whose count passes "
        "the threshold the request says (>= for 'at least' / 'or more', > for 'more than')"
    ),
    read=read_group_size_rows,
)
