"""Which rows an output has, counted against an input: one per feature of an input when a
sentence says so ("one row per input feature", "all 23 districts", "keep every building", "don't
drop the addresses ...") or a conversion selects nothing; one row per key ("one row per street +
number"); and the columns and geometry a sentence keeps unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..formats import SPATIAL
from .builder import _Builder
from .column_names import _named_fields
from .columns import _keeps, _nearest_name
from .words import _FILE, _SNAKE, _base, _category_of, _format, _noun_names, _sentence_at, _singular

# "one row per input feature", "one Point feature per original address": up to three words between
_PER_INPUT = re.compile(
    r"\bone\s+(?:[\w-]+\s+){0,3}?(?:row|feature|record)s?\s+per\s+(?:input|original|source)\s+(\w+)", re.IGNORECASE
)
_KEEP_KEY = re.compile(
    r"(\bjoin\s+key\b|\bkey\s+field\b|\bas\s+the\s+key\b|\bkeep(?:ing)?\s+(?:the\s+)?(?:original\s+)?(?=`)|"
    r"\bto\s+identify\s+each\b)",
    re.IGNORECASE,
)
_UNCHANGED = re.compile(
    r"\b(unchanged|untouched|intact|as\s+(?:it|they)\s+(?:arrives?|are|is))\b|"
    r"\bleav(?:e|ing)\b[^.;]{0,60}\balone\b|"
    r"\b(?:do\s+not|don't|never)\s+(?:touch|change|alter|modify|move|edit)\b",
    re.IGNORECASE,
)
# "keep the other attributes", "with all their attributes", "attributes as they are", "same columns":
# every column of the input the output is made from
_ALL_ATTRIBUTES = re.compile(
    r"\b(?:keep(?:s|ing)?|retain(?:s|ing)?|carry(?:ing)?|preserv\w*)\s+(?:all\s+|every\s+)?(?:of\s+)?(?:the\s+|their\s+|its\s+)?"
    r"(?:other\s+|existing\s+|original\s+|remaining\s+)?(?:attributes|columns|fields|properties|attribute\s+table|"
    r"(?<=every\s)(?:attribute|column|field|property))\b|"
    r"\bwith\s+(?:(?:all|every)\s+(?:of\s+)?(?:the\s+|their\s+|its\s+)?|(?:their|its)\s+|the\s+(?:other|existing|original|remaining)\s+)"
    r"(?:other\s+|existing\s+|original\s+|remaining\s+)?(?:attributes|columns|fields|properties)\b|"
    r"\b(?:attributes|columns|fields|properties|attribute\s+table)\s+(?:(?:must|should|shall|will|are\s+to|is\s+to)\s+)?"
    r"(?:(?:be|stay|remain)\s+)?(?:left\s+)?(?:exactly\s+)?(?:as\s+(?:they|it)\s+(?:are|is|were|was)|untouched|unchanged|intact)\b|\b(?:the\s+)?same\s+(?:columns|attributes|fields)\b|"
    r"\b(?:leave|leaving)\s+(?:the\s+)?(?:attributes|columns|fields|properties|attribute\s+table)\b[^.;]{0,40}\b(?:alone|as\s+(?:they|it))|"
    r"\b(?:stays?|remains?|kept|left|is|are)\s+(?:exactly\s+)?(?:as\s+(?:delivered|it\s+(?:is|was|came))|unchanged|untouched|intact)\b"
    r"[^.;]{0,80}\b(?:every|each|all(?:\s+the)?)\s+(?:existing|original|current)\s+(?:columns?|attributes?|fields?|properties)\b",
    re.IGNORECASE,
)
# "keep every building", "the same stations": every feature of the input
_ALL_ROWS = re.compile(
    r"\b(?:keep(?:ing)?|retain(?:ing)?)\s+(?:every|each|all(?:\s+the)?)\s+([a-z]+)|\bthe\s+same\s+([a-z]+)\b|"
    r"\b(?:every|each|all(?:\s+the)?)\s+([a-z]+)\s+(?:back|listed|included|kept|stays?|in\s+the\s+(?:list|file|output)|"
    r"(?:must|should)\s+(?:still\s+)?(?:be\s+)?(?:listed|there|included|appear))\b|"
    r"\ball\s+(?:the\s+|of\s+the\s+)?([a-z]+)\s+with\s+(?:all\s+)?(?:their|its)\s+(?:attributes|columns|fields|properties)\b",
    re.IGNORECASE,
)
_CONVERT = re.compile(r"\b(convert|re-?project|transform|re-?encode|re-?format|export)\w*\b", re.IGNORECASE)
# Words that ask for fewer (or other) records than the input has: a conversion saying them may drop rows.
_SELECTS = re.compile(
    r"\b(filter\w*|select\w*|only|drop\w*|remov\w*|exclud\w*|dedup\w*|duplicat\w*|clip\w*|subset|"
    r"sample\w*|top(?!-level)|first|largest|smallest|split\w*|dissolv\w*|aggregat\w*|merg\w*|join\w*|explod\w*|"
    r"group\w*|per|each|summar\w*|count\w*|invalid|repair\w*|fix\w*|clean\w*)\b",
    re.IGNORECASE,
)
_TEXT_COLUMNS = re.compile(r"\b(?:string|text)\s+(?:columns|fields|attributes)\b", re.IGNORECASE)

_PER_NOUN = re.compile(
    r"\bone\s+(?:canonical\s+|distinct\s+|single\s+|unique\s+)?(?:row|record|feature|entry)\s+per\s+(\w+)",
    re.IGNORECASE,
)


def _row_rules(
    b: _Builder, out: str, sentence: str, inputs: dict[str, dict], input_by_base: dict[str, str], request: str = ""
) -> None:
    named_inputs = [input_by_base[_base(f)] for f in _FILE.findall(sentence) if _base(f) in input_by_base]
    have = {c for facts in inputs.values() for c in facts.get("columns") or []}
    columns = have | set(_SNAKE.findall(sentence))
    for m in _PER_NOUN.finditer(sentence):
        more = re.match(r"\s*(\+|&|/|and\b)\s*`?(\w+)", sentence[m.end() :])
        if more and (more.group(1) != "and" or more.group(2) in columns or _SNAKE.fullmatch(more.group(2))):
            pair = [m.group(1), more.group(2)]  # "one row per street + number": the two together are unique
            if all(k in have for k in pair) and pair[0] != pair[1]:
                b.add(
                    out,
                    "unique",
                    f"one row per {' + '.join(pair)}: no two rows share both",
                    name=pair[0],
                    together=pair[1:],
                )
            continue
        noun = m.group(1).lower().rstrip("s")
        if noun == "layer":  # "one row per layer" of the one layered input the sentence speaks of
            layered = [p for p in (named_inputs or list(inputs)) if (inputs[p].get("layers") or 0) > 1]
            if len(layered) == 1:
                n = inputs[layered[0]]["layers"]
                b.add(out, "rows_as_input", f"one row per layer of `{layered[0]}` ({n})", input=layered[0], rows=n)
            continue
        for key in (f"{noun}_id", noun):
            if key in columns and noun not in ("input", "original", "source"):
                b.add(out, "unique", f"`{key}` has no duplicate values (one row per {noun})", name=key)
                break
        _one_row_per_feature(b, out, m, inputs, request or sentence)
    per_input = _PER_INPUT.search(sentence)
    if per_input:
        source = _input_for(per_input.group(1), named_inputs or list(inputs))
        if source and inputs.get(source, {}).get("rows") is not None:
            b.add(
                out,
                "rows_as_input",
                f"one row per feature of `{source}` ({inputs[source]['rows']})",
                input=source,
                rows=inputs[source]["rows"],
            )
    for m in _KEEP_KEY.finditer(sentence):
        after = m.group(0).lower().startswith("keep")  # "keep `x`" names it after; "x (the join key)" before
        _keeps(b, out, _nearest_name(sentence, m.start(), m.end(), after), inputs)
    _kept_whole(b, out, sentence, inputs, named_inputs)
    _all_counted_kept(b, out, sentence, inputs)
    if _UNCHANGED.search(sentence):
        for name in _named_fields(sentence, set(), {c for f in inputs.values() for c in f.get("columns") or []}):
            _keeps(b, out, name, inputs)
        spatial_inputs = [p for p in inputs if _format(p) in SPATIAL]
        if (
            re.search(r"\bgeometr(?:y|ies)\b(?!\s+types?)", sentence, re.IGNORECASE)
            and _format(out) in SPATIAL
            and len(spatial_inputs) == 1
        ):  # "leave the geometry alone": same CRS, same shapes
            b.add(
                out,
                "geometry_unchanged",
                f"the geometries are those of `{spatial_inputs[0]}`, in its CRS (not reprojected, moved or reshaped)",
                input=spatial_inputs[0],
            )
        if _TEXT_COLUMNS.search(sentence):  # "leave the string columns alone": the input's real text columns
            for facts in inputs.values():
                numeric = (facts.get("defects") or {}).get("numbers_as_text") or {}
                for name in facts.get("text_columns") or []:
                    if name not in numeric:  # with several outputs, a summary need not carry them
                        _keeps(b, out, name, inputs, required=len(b.outputs) == 1)


# After "one row per district": words that make it some districts ("that have", "with a station")
_SOME_OF = re.compile(
    r"\s*(?:that|which|who|with|where|having|whose|containing|if|when|and|or|\+|&|/|in\s+which|per|by)\b",
    re.IGNORECASE,
)
_FEWER = (
    r"(?:only|top|first|last|at\s+least|more\s+than|fewer\s+than|exclud\w*|except|drop\w*|remov\w*|"
    r"filter\w*|skip\w*|omit\w*|non-?empty)"
)


_DEDUPLICATES = re.compile(r"\b(?:duplicat\w*|dedup\w*|canonical|distinct)\b", re.IGNORECASE)


def _one_row_per_feature(b: _Builder, out: str, m: re.Match, inputs: dict[str, dict], request: str) -> None:
    """ "one row per district" where the noun names exactly one of several input layers with rows:
    a row for every feature of it, the districts nothing of the other layers falls in too. Sure
    only when no word makes it some of them ("one row per district that has a station", "only the
    districts with …", "the top 5 districts") or speaks of duplicates: then it is shown, not
    checked."""
    noun = _singular(m.group(1))
    if _format(out) not in SPATIAL | {"csv", "parquet"} or noun in ("input", "original", "source", "layer"):
        return
    if re.search(r"\b(?:canonical|distinct|single|unique)\b", m.group(0), re.IGNORECASE):
        return  # "one canonical record per parcel": duplicates of the layer merged, fewer rows
    named = [p for p, f in inputs.items() if f.get("rows") is not None and _noun_names(noun, p)]
    others = [p for p, f in inputs.items() if f.get("rows") is not None and p not in named]
    if len(named) != 1 or not others:
        return  # the one layer itself, a row per its thing: deduplicated, dissolved or exploded, not known
    source, rows = named[0], inputs[named[0]]["rows"]
    sentence = m.string
    some = _SOME_OF.match(sentence[m.end() :]) or _some_of(noun, request)
    said, sure = b.said, b.sure
    b.reading(sentence, sure=sure and not some).add(
        out, "rows_as_input", f"one row per feature of `{source}` ({rows}): one per {noun}", input=source, rows=rows
    )
    b.said, b.sure = said, sure


def _some_of(noun: str, request: str) -> bool:
    """Whether the request makes the features a noun names fewer ("only the districts with …", "the
    top 5 addresses", "addresses that …") or speaks of duplicates."""
    plural = rf"{re.escape(noun[:-1])}(?:y|ies)" if noun.endswith("y") else rf"{re.escape(noun)}(?:e?s)?"
    return bool(
        _DEDUPLICATES.search(request)
        or re.search(
            rf"\b{_FEWER}\b[^.;]{{0,40}}\b{plural}\b|\b{plural}\s+(?:that|which|with|where|having|whose)\b",
            request,
            re.IGNORECASE,
        )
    )


def _every_row_kept(b: _Builder, out: str, source: str, rows: int, key: str | None = None) -> None:
    """As many rows as ``source`` has; in a JSON output, counted in the records that hold ``key``."""
    where = {"name": key} if key and _format(out) == "json" else {}
    b.add(
        out,
        "rows_as_input",
        f"one row per feature of `{source}` ({rows}): every one kept",
        input=source,
        rows=rows,
        **where,
    )


# "all 23 districts", "each of the 1380 parks": a count the request says of the features it keeps
_ALL_N = re.compile(
    r"(?<![\w-])(?:all|every\s+one\s+of\s+the|each\s+of\s+the)\s+(?P<n>\d[\d,]*)\s+"
    r"(?:[A-Za-z-]+\s+){0,2}?(?P<noun>[A-Za-z]+)\b",
    re.IGNORECASE,
)
# before it, words that make those features what is summed or selected from, not the rows
_OVER_ALL = re.compile(
    r"\b(?:of|among|from|out\s+of|than|over|across|between|within|throughout|in|on|into|total\w*|sum\w*)\s*$",
    re.IGNORECASE,
)


def _all_counted_kept(b: _Builder, out: str, sentence: str, inputs: dict[str, dict]) -> None:
    """ "all 23 districts" where 23 is how many features the one input the noun names (or a general
    noun: "all 290 records") has: every one of them is a row of the table."""
    if _format(out) not in SPATIAL | {"csv", "parquet"}:
        return
    generic = {"feature", "row", "record", "entry", "item"}
    for m in _ALL_N.finditer(sentence):
        if _OVER_ALL.search(sentence[: m.start()]):
            continue
        n, noun = int(m.group("n").replace(",", "")), m.group("noun").lower().rstrip("s")
        holders = [(p, None) for p, f in inputs.items() if f.get("rows") == n]
        holders += [
            (p, layer)
            for p, f in inputs.items()
            for layer, lf in (f.get("layer_facts") or {}).items()
            if not f.get("layer") and (lf or {}).get("rows") == n and len(f["layer_facts"]) > 1
        ]
        holders = [(p, layer) for p, layer in holders if noun in generic or _noun_names(noun, layer or p)]
        if len(holders) == 1 and holders[0][1] is None:
            _every_row_kept(b, out, holders[0][0], n)
        elif len(holders) == 1:  # one layer of a file of several: its rows
            (source, layer), text = holders[0], f"one row per feature of layer `{holders[0][1]}` ({n}): every one kept"
            b.add(out, "rows_as_input", text, input=source, rows=n, input_layers={source: layer})


def _record_key(b: _Builder, out: str, facts: dict) -> str | None:
    """The first column the request asks of ``out`` that the input has: where a JSON document's
    records are (a nested list beside summary values)."""
    have = set(facts.get("columns") or [])
    return next((n for n in b.columns_of(out) if n in have), None)


def _kept_whole(b: _Builder, out: str, sentence: str, inputs: dict[str, dict], named_inputs: list[str]) -> None:
    """ "Keep the other attributes" / "the same stations": every column, or every feature, of the one
    input the output is made from (the one the sentence names, else the only one with rows)."""
    candidates = [p for p in (named_inputs or list(inputs)) if inputs[p].get("columns") is not None]
    if _format(out) not in SPATIAL | {"csv", "parquet", "json"}:
        return
    m = _ALL_ROWS.search(sentence)
    noun = (m.group(1) or m.group(2) or m.group(3) or m.group(4) or "").lower().rstrip("s") if m else ""
    listed = bool(m and m.group(3))  # "every district in the list": says so whatever else the sentence selects
    by_noun = [p for p in inputs if inputs[p].get("rows") is not None and _noun_names(noun, p)]
    if len(candidates) != 1 and len(by_noun) == 1:  # "every hexagon back": the hexagons' file
        candidates = by_noun
    if len(candidates) != 1:
        return
    source, facts = candidates[0], inputs[candidates[0]]
    if _ALL_ATTRIBUTES.search(sentence) and facts.get("columns"):
        names = list(facts["columns"])
        b.add(out, "columns", f"keeps every column of `{source}` ({', '.join(names)})", names=names)
        b.carried |= {(out, n) for n in names}
    generic = {"feature", "row", "record", "entry", "item"}
    if (
        noun
        and facts.get("rows") is not None
        and (listed or not _SELECTS.search(_FILE.sub(" ", sentence)))
        and (noun in generic or _noun_names(noun, source))
    ):
        _every_row_kept(b, out, source, facts["rows"], key=_record_key(b, out, facts))


# "Don't drop the addresses that have no hospital nearby", "stations without a name stay in the list":
# the features of the input the noun names are all in the output, those the request might lose too.
_NONE_DROPPED = re.compile(
    r"\b(?:do\s+not|don't|never|without)\s+(?:drop|remov|los|skip|discard|exclud|filter\w*\s+out)\w*\s+"
    r"(?:the\s+|any\s+)?(?P<dropped>[a-z]+)|"
    r"\b(?P<kept>[a-z]+)\s+(?:without|with\s+no|that\s+have\s+no|having\s+no|lacking)\b[^.;]{1,60}?\b(?:stay|remain|"
    r"are\s+kept|must\s+(?:still\s+)?be\s+(?:listed|kept|included)|(?:are\s+)?still\s+(?:listed|included))\b",
    re.IGNORECASE,
)
# What makes an output's rows fewer or other than the input's, beside the words the rule reads.
_FEWER_ROWS = re.compile(
    r"\b(filter\w*|select\w*|only|subset|sample\w*|top|largest|smallest|dissolv\w*|aggregat\w*|group\w*|per|"
    r"summar\w*|dedup\w*|duplicat\w*|clip\w*|explod\w*|split\w*|merg\w*|nearest\s+\d|\d+\s+nearest|"
    r"(?:two|three|four|five)\s+(?:nearest|closest))\b",
    re.IGNORECASE,
)


def _none_dropped(
    b: _Builder, attributed: list[tuple[str, list[str], bool]], inputs: dict[str, dict], request: str
) -> None:
    """Every feature of the input a "don't drop them" sentence names is in the outputs it is about."""
    for sentence, outs, sure in attributed:
        m = _NONE_DROPPED.search(sentence)
        if not m or not sure or _FEWER_ROWS.search(_FILE.sub(" ", _but_the_reason(request, sentence, m))):
            continue
        noun = (m.group("dropped") or m.group("kept")).lower().rstrip("s")
        with_rows = [p for p in inputs if inputs[p].get("rows") is not None]
        named = [p for p in with_rows if _noun_names(noun, p)]
        if not named and noun in _RECORD_WORDS and len(with_rows) == 1:  # "do not remove any record"
            named = with_rows
        category = _category_of(_singular(m.group("dropped") or m.group("kept")), inputs) if not named else None
        if category:  # "counties with no locality must still be listed": every feature of that category
            _every_one_of_a_category(
                b, sentence, outs, inputs, category[0], _singular(m.group("dropped") or m.group("kept"))
            )
            continue
        if len(named) != 1:
            continue
        b.reading(sentence, True)
        for out in outs:
            if _format(out) in SPATIAL | {"csv", "parquet", "json"}:
                _every_row_kept(b, out, named[0], inputs[named[0]]["rows"], key=_record_key(b, out, inputs[named[0]]))


def _every_one_of_a_category(
    b: _Builder, sentence: str, outs: list[str], inputs: dict[str, dict], column: str, value: str
) -> None:
    """As many rows as the one input holding category ``column`` has features of ``value``."""
    holders = [p for p, facts in inputs.items() if column in (facts.get("categories") or {})]
    if len(holders) != 1:
        return
    b.reading(sentence, True)
    for out in outs:
        if _format(out) in SPATIAL | {"csv", "parquet", "json"}:
            key = _record_key(b, out, inputs[holders[0]])
            b.add(
                out,
                "rows_as_category",
                f"one row per feature of `{holders[0]}` whose {column} is {value!r}: every one listed",
                input=holders[0],
                column=column,
                value=value,
                **({"name": key} if key and _format(out) == "json" else {}),
            )


_RECORD_WORDS = {"record", "row", "feature", "entry", "item", "line"}
_EXCEPT = re.compile(r"\b(?:except|but|other\s+than|apart\s+from|unless|save\s+for)\b", re.IGNORECASE)


def _but_the_reason(request: str, sentence: str, m: re.Match) -> str:
    """The request without what follows "do not remove any record" in its sentence ("-- duplicates
    are handled later" gives the reason, it selects nothing), unless that part makes an exception."""
    after = sentence[m.end() :]
    return request if _EXCEPT.search(after) else request.replace(after, " ") if after.strip() else request


def _conversion_rules(b: _Builder, request: str, outputs: list[str], inputs: dict[str, dict]) -> None:
    """A conversion of one input ("convert it to `x.geoparquet`", "reproject ... to ...") that
    asks for no selection keeps every record: as many rows as the input."""
    with_rows = [p for p, facts in inputs.items() if facts.get("rows") is not None]
    convert = _CONVERT.search(request)
    if len(with_rows) != 1 or not convert or _SELECTS.search(_FILE.sub(" ", request)):
        return
    b.reading(_sentence_at(request, convert.start()))
    source, rows = with_rows[0], inputs[with_rows[0]]["rows"]
    for out in outputs:
        if _format(out) in SPATIAL | {"csv", "parquet"}:
            b.add(
                out,
                "rows_as_input",
                f"one row per feature of `{source}` ({rows}): a conversion keeps every record",
                input=source,
                rows=rows,
            )


def _input_for(noun: str, candidates: Iterable[str]) -> str | None:
    """The input a noun ('address', 'connector') refers to: its file name, else the only input."""
    candidates = [c for c in candidates if _format(c) in SPATIAL | {"csv", "parquet"}]
    stem = noun.lower().rstrip("s")[:5]
    matching = [c for c in candidates if stem and stem in _base(c).lower()]
    if len(matching) == 1:
        return matching[0]
    return candidates[0] if len(candidates) == 1 else None
