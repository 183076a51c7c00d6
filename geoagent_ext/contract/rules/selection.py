"""The rows the request selects: by a value there or one category ("whose `name` is not
empty", "the counties, not the localities", "(kind = night)"), and which of the duplicates stays
("keep the record with the earliest `record_seq`").
"""

from __future__ import annotations

import re

from .builder import _Builder
from .words import _SENTENCE, _category_of, _format, _sentence_at, _singular

_KEEP = re.compile(
    r"\bkeep(?:ing)?\s+(?:only\s+)?the\s+(?:record|row|feature|entry|one|version|copy)\s+with\s+the\s+"
    r"(?P<which>earliest|oldest|first|lowest|smallest|minimum|latest|newest|most\s+recent|last|highest|"
    r"largest|biggest|maximum)\s+`?(?P<column>[A-Za-z_]\w*)`?",
    re.IGNORECASE,
)
# "keep the most complete record", "retain the copy with the larger area": a rule for which stays
_KEEP_SAID = re.compile(
    r"\b(keep|keeping|retain|retaining|prefer|preferring)\b[^.;]{0,80}\bduplicat|"
    r"\bduplicat[^.;]{0,80}\b(keep|keeping|retain|retaining|prefer|preferring)\b",
    re.IGNORECASE,
)
# "keeping one copy", "keep the first occurrence": any one of them (the mend's first in the file)
_KEEP_ANY = re.compile(
    r"\b(keep|keeping|retain|retaining)\s+(only\s+)?(one|a\s+single|the\s+first)(\s+(copy|record|row|"
    r"feature|occurrence|entry))?(\s+of\s+each)?\b(?!\s+(with|whose|that|which|having))",
    re.IGNORECASE,
)
_KEEP_MIN = ("earliest", "oldest", "first", "lowest", "smallest", "minimum")
# "keep one row per street + number: the earliest by recorded_at"
_KEEP_BY = re.compile(
    r"\b(?P<which>earliest|oldest|lowest|smallest|minimum|latest|newest|most\s+recent|highest|largest|maximum)\s+"
    r"(?:one\s+|record\s+|row\s+|entry\s+)?(?:by|according\s+to)\s+`?(?P<column>[A-Za-z_]\w*)`?",
    re.IGNORECASE,
)


def _kept_of_duplicates(b: _Builder, uniqueness: list, m: re.Match, keep: str, inputs: dict[str, dict]) -> None:
    """The row a unique key keeps is checked against the one input holding the key and the column."""
    for req in [r for r in uniqueness if r.kind == "unique"]:
        key = [req.params["name"], *req.params.get("together", [])]
        holders = [p for p, f in inputs.items() if set(key + [m.group("column")]) <= set(f.get("columns") or [])]
        if len(holders) == 1:
            b.reading(_sentence_at(m.string, m.start()), True)
            b.add(
                req.output,
                "kept_of_duplicates",
                f"of each {' + '.join(key)}, the row with the {m.group('which').lower()} `{m.group('column')}`",
                input=holders[0],
                key=key,
                by=m.group("column"),
                keep=keep,
            )


def _keep_rule(b: _Builder, request: str, inputs: dict[str, dict]) -> None:
    """ "When duplicates exist, keep the record with the earliest `record_seq`": which of the
    duplicates stays, for the mend of a uniqueness requirement (``keep_by``, ``keep``: min | max).
    The check is the same (the values or geometries are unique); the mend keeps that row, not the
    first in the file. A rule stated in other words ("keep the most complete record") is shown as a
    note and leaves the duplicates to the model: a mend keeping the first would pass a wrong file."""
    uniqueness = [r for r in b.requirements if r.kind in ("geometries_unique", "unique")]
    m = _KEEP.search(request) or _KEEP_BY.search(request)
    if m:
        keep = "min" if m.group("which").lower() in _KEEP_MIN else "max"
        for req in uniqueness:
            req.params.update(keep_by=m.group("column"), keep=keep)
        _kept_of_duplicates(b, uniqueness, m, keep, inputs)
        return
    said = next((s for s in _SENTENCE.split(request) if _KEEP_SAID.search(s) and not _KEEP_ANY.search(s)), None)
    if said and uniqueness:  # a rule the request states but these rules cannot read: the model's, and shown
        b.reading(said)
        for req in uniqueness:
            req.params["keep"] = "as_requested"
        b.add(
            uniqueness[0].output,
            "note",
            f'of each set of duplicates, the one kept is the one the request says: "{said.strip()[:200]}"',
        )


# "whose name_primary is not empty", "where `name` is not null": the kept rows have a value there.
_NOT_EMPTY = re.compile(
    r"\b(?:whose|where|with)\s+(?:the\s+|a\s+)?`?(?P<name>[A-Za-z_]\w*)`?\s+(?:is|are)\s+(?:not|never)\s+"
    r"(?:empty|null|missing|blank|none)\b|\bnon-?(?:empty|null|blank)\s+`?(?P<name2>[A-Za-z_]\w*)`?",
    re.IGNORECASE,
)
# "(kind = night)", "where `kind` is 'night'": rows of one category value.
_EQUALS = re.compile(
    r"`?(?P<column>[A-Za-z_]\w*)`?\s*(?:==?|\bis\b|\bequals\b)\s*"
    r"[\"'`]?(?P<value>[\w -]{1,40}?)[\"'`]?(?=\s*[),.;]|\s*$)"
)
_NOT_THE = re.compile(
    r"\b(?:not|rather\s+than|excluding|except(?:\s+for)?|without)\s+(?:the\s+|any\s+)?([a-z]+)\b", re.IGNORECASE
)
_ONLY_THE = re.compile(
    r"\bonly\s+(?:the\s+)?([a-z]+)\b|\b(?:export|keep|take|list|write)\s+(?:the\s+|all\s+)?([a-z]+)\b", re.IGNORECASE
)


def _row_selection(b: _Builder, attributed: list[tuple[str, list[str], bool]], inputs: dict[str, dict]) -> None:
    """Rows the request selects, checked where the output carries the column they are selected by:
    a value there ("whose `name` is not empty"), or one category ("the counties, not the localities",
    "(kind = night)": every row's `subtype` is "county", every `kind` is "night")."""
    for sentence, outs, sure in attributed:
        if not sure:
            continue
        b.reading(sentence, True)
        for out in outs:
            carried = set(b.columns_of(out))
            for m in _NOT_EMPTY.finditer(sentence):
                name = m.group("name") or m.group("name2")
                if name in carried:
                    b.add(out, "non_empty", f'`{name}` has a value in every row ("{m.group(0)}")', name=name)
            chosen: dict[str, set[str]] = {}
            refused: dict[str, set[str]] = {}
            every: dict[str, list[str]] = {}  # each category column's values, as its lookup found them
            for m in _EQUALS.finditer(sentence):
                category = _category_of(m.group("value").strip(), inputs)
                if category and category[0] == m.group("column"):
                    chosen.setdefault(category[0], set()).add(m.group("value").strip())
                    every[category[0]] = category[1]
            for m in _NOT_THE.finditer(sentence):
                category = _category_of(_singular(m.group(1)), inputs)
                if category:
                    refused.setdefault(category[0], set()).add(_singular(m.group(1)))
                    every[category[0]] = category[1]
            for m in _ONLY_THE.finditer(sentence):
                word = m.group(1) or m.group(2)
                category = _category_of(_singular(word), inputs)
                if category and (m.group(1) or category[0] in refused):  # "only the X"; "export the X, not the Y"
                    chosen.setdefault(category[0], set()).add(_singular(word))
                    every[category[0]] = category[1]
            for column in every:
                allowed = sorted(chosen.get(column) or set(every[column]) - refused[column])
                if column in carried and allowed and not set(allowed) & refused.get(column, set()):
                    b.add(
                        out,
                        "values_in",
                        f"`{column}` is one of {', '.join(allowed)} (the rows the request selects)",
                        name=column,
                        allowed=allowed,
                    )
                holders = [p for p, f in inputs.items() if column in (f.get("categories") or {})]
                shared = [c for c in carried if len(holders) == 1 and c in (inputs[holders[0]].get("columns") or [])]
                if column not in carried and allowed and shared and len(holders) == 1 and _format(out) != "json":
                    b.add(  # the column is not carried: each row's input feature, found by a key, is of them
                        out,
                        "rows_in_category",
                        f"every row is a feature of `{holders[0]}` whose `{column}` is {' or '.join(allowed)} "
                        "(the rows the request selects)",
                        input=holders[0],
                        column=column,
                        allowed=allowed,
                    )
