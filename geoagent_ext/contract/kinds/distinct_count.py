"""A count of distinct values per group: the request asks how many different values of an input
column each group has ("on how many different dates each vessel sailed", "the number of distinct
species per plot"), so each row's count is the number of distinct values of that column among the
input rows of the row's group (not the number of rows)."""

from __future__ import annotations

import dataclasses
import re

from ..checker import _contract_input, _contract_key
from ._kind import Builder, ColumnParams, RequestView, RequirementKind
from .measure_totals import _clauses, _group_of, _selects


class DistinctCountParams(ColumnParams):
    input: str  # the input whose values are counted
    column: str  # the input column whose distinct values are counted
    group: str  # the key column the rows and the input share


def _kind_distinct_count(params, data, value, sources):
    """(passed, observed): each row's value is the number of distinct non-blank values of the
    input's column among the input rows of the row's group (dates written with a time of day may
    also count as their day)."""
    import re as _re

    import pandas as pd

    name, column, group = params["name"], params["column"], params["group"]
    src = _contract_input(params["input"], sources)
    if isinstance(data, dict) or group not in data.columns:
        return False, f"`{name}` has no `{group}` beside it to say whose values it counts"
    if column not in src.columns or group not in src.columns:
        return False, f"`{column}` or `{group}` is not a column of `{params['input']}`"
    counted = {}
    for k, v in zip(src[group].tolist(), src[column].tolist()):
        if k is None or k != k or v is None or (not isinstance(v, str) and pd.isna(v)) or str(v).strip() == "":
            continue
        text = str(v).strip()
        counted.setdefault(_contract_key(k), (set(), set()))
        counted[_contract_key(k)][0].add(text)
        counted[_contract_key(k)][1].add(text[:10] if _re.match(r"\d{4}-\d\d-\d\d", text) else text)
    wrong = []
    for k, v in zip(data[group].tolist(), pd.to_numeric(data[name], errors="coerce").tolist()):
        values, days = counted.get(_contract_key(k), (set(), set()))
        if v != v or v not in (len(values), len(days)):
            wrong.append((k, v, len(values)))
    seen = f"{len(data) - len(wrong)} of {len(data)} rows count the distinct `{column}` of their `{group}`"
    if not wrong:
        return True, seen
    k, v, n = wrong[0]
    return False, seen + f"; e.g. {group} {k!r} has {v!r} where it has {n} distinct `{column}` values"


_DISTINCT = re.compile(
    r"\b(?:how\s+many|number\s+of|count\s+(?:of\s+)?(?:the\s+)?|counts?\s+of)\s*(?:different|distinct|unique|separate)\s+"
    r"(?:values?\s+(?:of|in)\s+(?:the\s+)?(?:column\s+)?)?`?(?P<noun>[A-Za-z_]\w*)`?(?:\s+(?P<noun2>[a-z]\w*))?",
    re.I,
)


def _singular(word: str) -> str:
    word = word.lower()
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("ses", "xes", "ches", "shes")):
        return word[:-2]
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word


def _counted_column(noun: str, request: RequestView) -> tuple[str, str] | None:
    """(input, column) the noun names: the one column of one input whose name is the noun or has it
    as a word ("dates" -> survey_date, "species" -> species)."""
    noun = _singular(noun)
    found = [
        (p, c)
        for p, facts in request.inputs.items()
        for c in facts.get("columns") or []
        if noun in [_singular(t) for t in c.lower().split("_")] or c.lower() == noun
    ]
    return found[0] if len(found) == 1 else None


def _input_words(request: RequestView) -> set[str]:
    """Every word of the inputs' column names ("bus" of bus_line)."""
    return {t for f in request.inputs.values() for c in f.get("columns") or [] for t in c.lower().split("_")}


def _selecting_words(request: RequestView, name: str, group: str, columns: list[str]) -> RequestView:
    """The request without the words that select none of a group's rows: a clause that drops the rows
    with no group ("the one address without a postcode is left out"), a way of writing a number
    refused ("not 10013.0"), and the ``=`` that defines a value no input has ("- streets = ...")."""
    last = re.escape(group.split("_")[-1])
    words = rf"(?:{re.escape(group)}|{re.escape(group.replace('_', ' '))}|{last})"
    blank = re.compile(rf"\b(?:without|with\s+no|missing|lacking|no)\s+(?:an?\s+|any\s+)?{words}\b", re.I)
    refused_number = re.compile(r"^\s*not\s+[\d.,]+\s*$")
    have = {c for facts in request.inputs.values() for c in facts.get("columns") or []}
    own = re.compile(r"^(\s*(?:[-*\u2022]\s*|\d{1,2}[.)]\s*)?[`\"']?(\w+)[`\"']?\s*)==?")
    sentences = []
    for s, outs, sure in request.sentences:
        for clause in _clauses(s):
            defined = own.match(clause)
            if blank.search(clause) or refused_number.match(clause):
                s = s.replace(clause, " ", 1)
            elif defined and (defined.group(2) in {name, *columns} or defined.group(2) not in have):
                s = s.replace(clause, own.sub(r"\1 is", clause), 1)  # a value defined, not an input column compared
        sentences.append((s, outs, sure))
    return dataclasses.replace(request, sentences=sentences)


def read_distinct_count(request: RequestView, b: Builder) -> None:
    """ "how many different <noun>" in a sentence about one output value, the noun one input column
    and the request grouping the rows by another column of that input (one the output lists, or
    "one row per" it): the value is the distinct count per group. Sure when no word may select the
    rows counted (dropping the rows with no group selects none of a group's)."""
    text = " ".join(request.text.split())
    for sentence, outs, _ in request.sentences:
        for m in _DISTINCT.finditer(request.affirmed(sentence)):
            # "different bus lines": the two words as one column's name, else the second ("line"),
            # else the first
            noun, noun2 = m.group("noun"), m.group("noun2")
            counted = (_counted_column(f"{noun}_{noun2}", request) if noun2 else None) or _counted_column(noun, request)
            if counted is None and noun2 and noun.lower() not in _input_words(request):
                counted = _counted_column(noun2, request)
            if counted is None:
                continue
            source, column = counted
            source_columns = request.inputs[source].get("columns") or []
            for out in outs or (list(request.outputs) if len(request.outputs) == 1 else []):
                columns = b.columns_of(out)
                named = [
                    c
                    for c in columns
                    if c not in source_columns and re.search(rf"(?<![\w-]){re.escape(c)}(?![\w-])", sentence)
                ]
                # "- visit_days = number of distinct dates (two visits ...)": the name said right before
                if len(named) > 1:
                    said = request.affirmed(sentence)[: m.start()]
                    at = {c: [h.end() for h in re.finditer(rf"(?<![\w-]){re.escape(c)}(?![\w-])", said)] for c in named}
                    last = max(((ends[-1], c) for c, ends in at.items() if ends), default=None)
                    named = [last[1]] if last and len(said) - last[0] <= 40 else []
                if len(named) != 1:
                    continue
                name = named[0]
                group = _group_of(text, name, columns, source_columns)
                if group is None:
                    group = _group_of(text, name, [c for c in source_columns if c != column], source_columns)
                    if group is None or not _ONE_ROW_PER(group).search(text):
                        continue
                if group == column:
                    continue
                others = {c for c in columns if c not in (name, group)}
                sure = not _selects(_selecting_words(request, name, group, columns), name, others)
                b.reading(sentence, sure).add(
                    out,
                    "distinct_count",
                    f"`{name}` is the number of distinct `{column}` values of `{source}` per `{group}` "
                    "(not the number of rows)",
                    name=name,
                    input=source,
                    column=column,
                    group=group,
                )


def _ONE_ROW_PER(group: str) -> re.Pattern:
    """ "one row per <group>": the output holds the group column."""
    last = re.escape(group.split("_")[-1])
    return re.compile(
        rf"\bone\s+(?:row|record|line|entry)\s+(?:per|for\s+each|for\s+every)\s+(?:the\s+)?"
        rf"(?:{re.escape(group)}|{re.escape(group.replace('_', ' '))}|{last})\b",
        re.I,
    )


DISTINCT_COUNT = RequirementKind(
    name="distinct_count",
    params=DistinctCountParams,
    check=_kind_distinct_count,
    reads="column",
    advice="count the distinct values per group (groupby(GROUP)[column].nunique()), not the rows (size())",
    read=read_distinct_count,
)
