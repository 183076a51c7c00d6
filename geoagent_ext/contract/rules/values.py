"""What a sentence says of one column's values: whole counts, integers, never empty,
non-negative, unique, sorted by it; the pattern it is written in (an ISO date, `EPSG:NNNN`); the
type a typed format stores (and that a cast keeps the input's values); the blanks and placeholders
the request allows; and one value per cell in every table.
"""

from __future__ import annotations

import re

from .builder import _Builder, _output_words
from .column_names import _NOT_NAMES, _placeholder_patterns
from .words import _SENTENCE, _SNAKE, _STORED_TYPE, _TICKED, _format

_SORT = re.compile(
    r"\b(?:sort(?:ed)?|order(?:ed)?)\s+(?:the\s+)?(?:rows\s+|it\s+|them\s+|output\s+)?by\s+`?([A-Za-z_]\w*)`?"
    r"(?P<rest>[^.;]{0,40})",
    re.IGNORECASE,
)

_TYPED_COLUMN = re.compile(
    r"`([A-Za-z_]\w*)`\s+(?:as|to|stored\s+as|typed\s+as|of\s+type|with\s+type)\s+(?:an?\s+)?"
    rf"`?({_STORED_TYPE})`?(?![\w\[])",
    re.IGNORECASE,
)
_OTHER_COLUMNS = re.compile(
    r"\b(?:all|every|each)\s+(?:the\s+)?(?:other|remaining)\s+(?:columns?|fields?|attributes?)\s+"
    r"(?:as|to|stay|remain|are|kept\s+as|stored\s+as)\s+(?:an?\s+)?"
    rf"`?({_STORED_TYPE}|text|strings)`?(?![\w\[])",
    re.IGNORECASE,
)
TYPED_FORMATS = {"parquet", "geoparquet", "gpkg", "fgb"}  # formats that store a column's type

# "further than that leave station_id and distance blank", "otherwise empty": rows may lack a value
_BLANK_ALLOWED = re.compile(
    r"\b(?:leave|left|stays?|remains?|be|is|are)\s+(?:[\w`]+\s+){0,6}?(?:blank|empty|null|missing|nan)\b|"
    r"\b(?:otherwise|else)\s+(?:leave\s+)?(?:it\s+|them\s+)?(?:blank|empty|null|nan)\b|"
    r"\b(?:with|gets?|has|have)\s+(?:[\w`=]+\s+){0,6}?(?:an?|the)\s+(?:blank|empty|null|missing)\s+[A-Za-z_]",
    re.IGNORECASE,
)


def _blanks_allowed(b: _Builder, request: str) -> None:
    """A column a sentence lets stay blank ("leave `distance` blank") is not required to hold a
    number in every row, nor an input's value: its non-negative and carried-values requirements
    skip the blank ones. A value the request names for the rows without one ("`station_id` =
    none") is allowed beside the input's values."""
    for sentence in _SENTENCE.split(request):
        if not _BLANK_ALLOWED.search(sentence):
            continue
        words = {w.lower() for w in re.findall(r"[A-Za-z_]\w*", sentence)}
        for r in b.requirements:
            name = str(r.params.get("name") or "")
            if r.kind in ("non_negative", "values_from_input") and (
                name.lower() in words or name.lower().split("_")[0] in words
            ):
                if r.kind == "values_from_input" and not r.params.get("missing_ok"):
                    r.text += " (or blank)"
                r.params["missing_ok"] = True
    for r in [r for r in b.requirements if r.kind == "values_from_input" and not r.params.get("as_type")]:
        said = [
            m.group("value").strip("`'\"")
            for p in _placeholder_patterns(str(r.params["name"]))
            for m in p.finditer(request)
        ]
        if said:
            r.params["placeholders"] = sorted(set(said))
            r.text += f" (or {' / '.join(map(repr, r.params['placeholders']))} in rows without one)"


def _ticked_near(sentence: str, pattern: str) -> list[str]:
    """Names in backticks (or snake_case) within a few words before ``pattern``."""
    found = []
    for m in re.finditer(pattern, sentence, re.IGNORECASE):
        before = sentence[max(0, m.start() - 80) : m.start()]
        names = _TICKED.findall(before) or _SNAKE.findall(before)
        if names:
            found.append(names[-1])
    return found


# "parks (how many)", "segments (number of road segments)", "buildings: number of buildings"
_COUNT_DESCRIBED = re.compile(
    r"`?(?P<name>[A-Za-z_]\w*)`?\s*(?:\(\s*|:\s*|\s[-\u2014\u2013]\s*)(?:a\s+|the\s+)?"
    r"(?:how\s+many|number\s+of|count\s+of|whole\s+number)\b"
    r"(?![^.;,)]{0,40}(?:\bper\b|/|\bdensity\b|\brate\b|\bshare\b|\bpercent))",  # a rate is not a count
    re.IGNORECASE,
)


def _value_rules(b: _Builder, out: str, sentence: str) -> None:
    for m in _COUNT_DESCRIBED.finditer(sentence):
        if m.group("name").lower() not in _NOT_NAMES:
            b.add(
                out, "integer", f'`{m.group("name")}` holds whole counts ("{m.group(0).strip()}")', name=m.group("name")
            )
    for name in _ticked_near(sentence, r"\(?\bintegers?(?:-valued)?\b|\bint(?:32|64)\b"):
        b.add(out, "integer", f"`{name}` holds integers", name=name)
    for name in _ticked_near(sentence, r"\bnon-?empty\b"):
        b.add(out, "non_empty", f"`{name}` is never null or empty", name=name)
    for name in _ticked_near(sentence, r"\bnon-?negative\b"):
        b.add(out, "non_negative", f"`{name}` is a finite number >= 0", name=name)
    for name in _ticked_near(sentence, r"\bunique\b"):
        b.add(out, "unique", f"`{name}` has no duplicate values", name=name)
    sort = _SORT.search(sentence)
    if sort:
        descending = bool(re.search(r"\bdesc|\bZ\s*(?:to|-|\u2013)\s*A\b", sort.group("rest"), re.IGNORECASE))
        b.add(
            out,
            "sorted",
            f"rows are sorted by `{sort.group(1)}` {'descending' if descending else 'ascending'}",
            name=sort.group(1),
            descending=descending,
        )


_FORMATTED = re.compile(r"\b(?:formatted|written|given)\s+as\s+`([^`]{1,40})`", re.IGNORECASE)


def _pattern(template: str) -> str | None:
    """`EPSG:NNNN`, `YYYY-MM-DD` -> a regular expression (a run of N or X: a number; of Y, M or D:
    that many digits);
    None for a template with no placeholder."""
    runs = list(re.finditer(r"([NXYMD])\1+", template))
    if not runs:
        return None
    parts, at = [], 0
    for r in runs:
        digits = (
            r"\d+" if r.group(1) in "NX" else rf"\d{{{len(r.group(0))}}}"
        )  # a code's length varies; a date's does not
        parts += [re.escape(template[at : r.start()]), digits]
        at = r.end()
    return "".join(parts + [re.escape(template[at:])])


# "last_survey (ISO date, YYYY-MM-DD)", "`day` as an ISO 8601 date": a date written as text
_ISO_DATE = re.compile(
    r"`?(?P<name>[A-Za-z_]\w*)`?\s*(?:\(\s*(?:an?\s+)?|as\s+(?:an?\s+)?|in\s+)"
    r"(?:ISO(?:[\s-]*8601)?\s+dates?|YYYY-MM-DD)\b",
    re.IGNORECASE,
)


def _format_rules(b: _Builder, out: str, sentence: str) -> None:
    for m in _ISO_DATE.finditer(sentence):
        if m.group("name").lower() not in _NOT_NAMES:
            b.add(
                out,
                "pattern",
                f"`{m.group('name')}` is written as a date, `YYYY-MM-DD`",
                name=m.group("name"),
                regex=r"\d{4}-\d{2}-\d{2}",
            )
    for m in _FORMATTED.finditer(sentence):
        regex = _pattern(m.group(1))
        before = sentence[max(0, m.start() - 80) : m.start()]
        right_before = re.search(r"`?([A-Za-z_]\w*)`?\s*\(\s*$", before)  # "day (given as `YYYY-MM-DD`)"
        names = [right_before.group(1)] if right_before else _TICKED.findall(before) or _SNAKE.findall(before)
        if regex and names:
            b.add(out, "pattern", f"`{names[-1]}` is written as `{m.group(1)}`", name=names[-1], regex=regex)


def _stored_type_rules(b: _Builder, out: str, fmt: str, sentence: str) -> None:
    """ "`unit_count` as `int32`", "all other columns as string": the types a typed format stores."""
    if fmt not in TYPED_FORMATS:
        return
    typed = _TYPED_COLUMN.findall(sentence)  # the type as the request writes it; the checker reads its aliases
    for name, dtype in typed:
        b.add(out, "dtype", f"`{name}` is stored as {dtype}", name=name, dtype=dtype)
    others = _OTHER_COLUMNS.search(sentence)
    if others:
        dtype = others.group(1)
        named = [name for name, _ in typed]
        b.add(out, "dtype", f"every other attribute column is stored as {dtype}", dtype=dtype, others=named)


def _converted_values(b: _Builder, inputs: dict[str, dict]) -> None:
    """ "`recorded_at` as `timestamp[us]`" of a column one input has: stored in that type, its
    values are still the input's: a cast in the wrong unit (epoch milliseconds read as nanoseconds)
    passes the type check with wrong values. Text types need no such check: any value has a text."""
    for req in [r for r in b.requirements if r.kind == "dtype" and r.params.get("name")]:
        b.reading(req.said, req.sure)
        name, dtype = str(req.params["name"]), str(req.params["dtype"]).lower()
        holders = [p for p, facts in inputs.items() if name in (facts.get("columns") or [])]
        if len(holders) == 1 and dtype.startswith(("timestamp", "datetime", "date", "int", "uint", "float", "double")):
            b.add(
                req.output,
                "values_from_input",
                f"`{name}` keeps the values of `{holders[0]}`, converted to {dtype} (the same instants or numbers)",
                name=name,
                input=holders[0],
                as_type=dtype,
            )


def _one_value_per_cell(b: _Builder, outputs: list[str]) -> None:
    """Every table the request asks for holds one value per cell (no request asks for a printed
    column in a cell)."""
    for out in outputs:
        if _format(out) in ("csv", "json", "parquet"):
            b.reading(_output_words(b, out))
            b.add(out, "one_value_per_cell", "one value per cell (no printed pandas column in a cell)")
