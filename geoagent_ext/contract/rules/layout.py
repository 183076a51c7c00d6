"""How a deliverable is laid out: an order said in words ("largest district first", "in
district-code order") read against the output's columns, a sort by a name that is a word rather
than a column, and a JSON document's top level (a list or an object).
"""

from __future__ import annotations

import re

from .builder import _Builder
from .column_names import _BULLET_NAME
from .words import _COUNT_NAME, _affirmed, _format

# "largest district first", "closest station first", "most hectares first": an order by the measure
# the word is about, read against the columns the output has (one of them, or none is read)
_FIRST = re.compile(
    r"\b(?P<word>largest|biggest|smallest|longest|shortest|highest|lowest|most|fewest|least|busiest|"
    r"closest|nearest|farthest|furthest|newest|latest|oldest|earliest)\s+(?P<noun>[\w-]+\s+){0,3}?first\b",
    re.IGNORECASE,
)
_IN_ORDER = re.compile(r"\bin\s+`?(?P<name>[A-Za-z_][\w-]*)`?\s+order\b", re.IGNORECASE)
_FIRST_DESCENDING = {
    "largest",
    "biggest",
    "longest",
    "highest",
    "most",
    "busiest",
    "farthest",
    "furthest",
    "newest",
    "latest",
}
_FIRST_MEASURES = (
    ({"largest", "biggest", "smallest"}, re.compile(r"area|hectare|(^|_)(ha|km2|m2|sqkm|sqm|size)($|_)", re.I)),
    ({"longest", "shortest"}, re.compile(r"length|(^|_)(len|km|m)($|_)", re.I)),
    ({"closest", "nearest", "farthest", "furthest"}, re.compile(r"dist", re.I)),
    ({"newest", "latest", "oldest", "earliest"}, re.compile(r"date|time|(^|_)(at|on|year|day)($|_)", re.I)),
    ({"most", "fewest", "least", "busiest", "highest", "lowest"}, _COUNT_NAME),
)


def _order_column(word: str, noun: str, names: list[str]) -> str | None:
    """The one column of ``names`` an order word is about: the measure it names after a word of
    quantity ("most hectares" -> `hectares`), else the one column of its family ("largest district"
    -> the area, "busiest vessel" -> the count)."""
    for n in noun.lower().replace("-", "_").split() if word in ("most", "fewest", "least", "highest", "lowest") else []:
        if n in names or n.rstrip("s") in names:
            return n if n in names else n.rstrip("s")
    family = next(pattern for words, pattern in _FIRST_MEASURES if word in words)
    found = [n for n in names if family.search(n)]
    return found[0] if len(found) == 1 else None


def _order_words(b: _Builder, attributed: list[tuple[str, list[str], bool]], request: str) -> None:
    """Orders said in words ("largest district first", "in district-code order") of a table whose
    columns the request lists: sorted by the column the words are about."""
    for sentence, outs, sure in attributed:
        for out in outs:
            names = b.columns_of(out)
            m, listed = _FIRST.search(sentence), _IN_ORDER.search(sentence)
            said = m or listed
            if said is None:
                continue
            b.reading(sentence, sure)
            if m:
                column = _order_column(m.group("word").lower(), m.group("noun") or "", names)
                descending = m.group("word").lower() in _FIRST_DESCENDING
            else:
                column = said.group("name").replace("-", "_")
                column, descending = (column if column in names else None), False
            if column:
                # A JSON document's nested lists are ordered within their parent; a top-level list of records
                # is a table, unless the request draws the column inside a record's nested list or object.
                table = _format(out) != "json" or (_top_level_list(b, out) and not _drawn_nested(request, column))
                b.reading(sentence, sure and table)
                b.add(
                    out,
                    "sorted",
                    f'rows are sorted by `{column}` {"descending" if descending else "ascending"} ("{said.group(0)}")',
                    name=column,
                    descending=descending,
                )


def _drawn_nested(text: str, name: str) -> bool:
    """Whether the request draws ``name`` as a key only inside a record's nested list or object: an
    object within an object (``{"id": 1, "near": [{"id": 2, "distance_m": 8.1}]}``, also as an element
    of a list of records), so `distance_m` orders within each record's list, not across the records."""
    nested = []
    for m in re.finditer(r"[\"']" + re.escape(name) + r"[\"']\s*:", text):
        stack: list[str] = []
        for ch in text[: m.start()]:
            if ch in "{[":
                stack.append(ch)
            elif ch in "}]" and stack:
                stack.pop()
        nested.append(stack.count("{") >= 2)
    return bool(nested) and all(nested)


def _top_level_list(b: _Builder, out: str) -> bool:
    return any(r.output == out and r.kind == "json_shape" and r.params.get("shape") == "list" for r in b.requirements)


def _sort_by_named_column(b: _Builder) -> None:
    """Sorted by (or counts in) a name not among the columns the request lists for the output
    ("sorted by county name" of a table of `id`, `name`, `localities`) is a word, not a column: the
    reading is unsure."""
    has = {(r.output, n) for r in b.requirements if r.kind == "columns" for n in r.params["names"]}
    listed = {out for out, _ in has}
    for r in b.requirements:
        name = r.params.get("name")
        if r.kind == "sorted" and r.output in listed and (r.output, name) not in has:
            # "sorted by county name" of a table with a `name` column: the words name it
            after = re.search(rf"\bby\s+`?{re.escape(str(name))}`?\s+([A-Za-z_]\w*)", r.said, re.IGNORECASE)
            column = (
                next((c for c in (f"{name}_{after.group(1)}", after.group(1)) if (r.output, c) in has), None)
                if after
                else None
            )
            if column:
                r.params["name"] = column
                r.text = r.text.replace(f"`{name}`", f"`{column}`")
        about_a_word = r.kind == "sorted" or (
            r.kind == "integer" and r.text.startswith(f"`{r.params.get('name')}` holds whole")
        )
        if about_a_word and (r.output in listed or r.kind == "integer") and (r.output, r.params.get("name")) not in has:
            r.sure = False


# "a JSON array of the names", "a plain JSON list of records", "a single JSON object": the document's top level
_JSON_LIST = re.compile(
    r"\b(?:json\s+(?:array|list)|(?:array|list)\s+of\s+(?:records|objects|rows|the\s+\w+|\w+\s+names))\b", re.IGNORECASE
)
_JSON_OBJECT = re.compile(
    r"\b(?:single|one)\s+json\s+object\b|\bjson\s+object\s+(?:mapping|keyed|with\s+keys)\b|"
    r"\ban\s+object\s+(?:mapping|keyed\s+by)\b",
    re.IGNORECASE,
)


# "key: a JSON array", "`classes` = a list of", '"rows" is an array of': the value of a key, not the document
_KEY_BEFORE = re.compile(
    r"(?:[\"'`]?[A-Za-z_]\w*[\"'`]?\s*[:=]|[\"'`][A-Za-z_]\w*[\"'`]\s+(?:is|holds?|contains?|(?:should|must|will)\s+be))"
    r"\s*(?:(?:just|only|simply)\s+)?(?:an?\s+|the\s+)?$"
)


def _json_shape_rules(b: _Builder, out: str, sentence: str) -> None:
    """ "Just a JSON array of the names" / "a single JSON object": the document's top level, read in
    the clauses that negate nothing ("a list, not an object keyed by id" asks for the list)."""
    said = _affirmed(sentence)
    listed = _JSON_LIST.search(said)
    if listed and (_BULLET_NAME.match(sentence) or _KEY_BEFORE.search(said[: listed.start()])):
        listed = None  # "- transects: a JSON array of ...": the value of a key, not the document
    is_list, is_object = bool(listed), bool(_JSON_OBJECT.search(said))
    if is_list != is_object:
        shape = "list" if is_list else "object"
        b.add(
            out,
            "json_shape",
            f"the document is a JSON {'list (an array)' if is_list else 'object'} at its top level",
            shape=shape,
        )
