"""The names a sentence asks of an output: the columns or keys after "columns", "with",
"containing"..., a plain list of names, the columns it says to add, each record's keys, bulleted or
drawn names (a JSON template), lines that each define one name; the values a column is limited to
("one of `a`, `b`"); the part of a sentence naming several outputs that is about one of them; the
layers a GeoPackage is asked to hold (backticked or quoted); and the literal a request gives a column
in rows without a value.
"""

from __future__ import annotations

import re

from .words import _FILE, _SNAKE, _STORED_TYPE, _TICKED, _base

_TICKED_VALUE = re.compile(r"`([^`\n]{1,64})`")  # a value may hold '-', '.', ' ' ("utf-8", "latin1-mojibake")

_INTRODUCER_WORDS = (
    "props",
    "key",
    "keys",
    "column",
    "columns",
    "field",
    "fields",
    "properties",
    "attribute",
    "attributes",
    "containing",
    "carrying",
    "including",
    "with",
)
_INTRODUCER = re.compile(r"\b(" + "|".join(_INTRODUCER_WORDS) + r")\b", re.IGNORECASE)
# "with" lists columns only in a sentence that names the output ("write `x.csv` with a, b and c"),
# not in "keep the record with the earliest record_seq".
_INTRODUCER_NO_WITH = re.compile(r"\b(" + "|".join(w for w in _INTRODUCER_WORDS if w != "with") + r")\b", re.IGNORECASE)
_VALUES_PHRASE = re.compile(
    r"\b(whose\s+values?|values?\s+(?:is|are|must\s+be)|exactly\s+one\s+of|one\s+of|either(?=\s+`))\b", re.IGNORECASE
)
_NAME_BEFORE_FIELD_WORD = re.compile(
    r"(?:`([A-Za-z_]\w*)`|\b([a-z][a-z0-9]*(?:_[a-z0-9]+)+))\s+"
    r"(?:column|attribute|field|key|property)\b"
)
_WORD = re.compile(r"\b([A-Za-z_]\w*)\b")


# "parts (how many features the site has)", "kinds (its feature_kind values)": a description of the
# name before it, whose words are not columns; "columns (a, b, c)" is a list, not a description.
_DESCRIPTION = re.compile(r"(?<=[\w`])\s*\((?![^()]*\b(?:and|or)\b[^()]*,)[^()]{0,200}\)")
# "built from the `wkt_geom` column", "taken from its name field": an input's column the output is made from
_SOURCE_COLUMN = re.compile(
    r"\b(?:from|using|of)\s+(?:the\s+|its\s+|their\s+)?`?[A-Za-z_]\w*`?\s+"
    r"(?:column|attribute|field|property)\b",
    re.IGNORECASE,
)


def _without_descriptions(sentence: str) -> str:
    def keep_lists(m: re.Match) -> str:
        before = sentence[: m.start()].split()
        if re.match(r"\s*\(\s*(?:in\s+)?(?:a\s+|the\s+)?(?:new\s+)?(?:column|field|key|attribute)\b", m.group(0)):
            return m.group(0)  # "(column area_ha)": the name of what the words before describe
        return m.group(0) if before and before[-1].strip("`").lower() in _INTRODUCER_WORDS else " "

    return _SOURCE_COLUMN.sub(" ", _DESCRIPTION.sub(keep_lists, sentence))


def _named_fields(sentence: str, exclude: set[str], input_columns: set[str], names_output: bool = False) -> list[str]:
    """Columns/keys this sentence asks for: backticked or snake_case names (and plain words that
    are columns of an input) after "columns"/"keys"/"containing"..., or right before "column"/"attribute".
    Names after "whose value is one of" are values, not columns; names in a description of another
    name (in parentheses) or of the column an output is made from are not asked for."""
    sentence = _without_descriptions(sentence)
    names: list[str] = [a or b for a, b in _NAME_BEFORE_FIELD_WORD.findall(sentence)]
    intro = (_INTRODUCER if names_output else _INTRODUCER_NO_WITH).search(sentence)
    if intro:
        tail = sentence[intro.end() :]
        stop = _VALUES_PHRASE.search(tail)
        tail = tail[: stop.start()] if stop else tail
        plain = tail.replace("`", " ")
        for m in _WORD.finditer(plain):
            word = m.group(1)
            ticked = f"`{word}`" in tail
            if ticked or _SNAKE.fullmatch(word) or (word in input_columns and _in_a_list(plain[: m.start()])):
                names.append(word)
    seen: list[str] = []
    for n in names:
        type_word = re.fullmatch(_STORED_TYPE, n, re.IGNORECASE) and n not in input_columns  # "`x` as `int32`"
        if n not in seen and n not in exclude and not _FILE.fullmatch(n) and not type_word:
            seen.append(n)
    return seen


# Where a list of an output's columns starts: "with", "columns", "keys" (and "the columns"), or the
# output's name and a colon ("`landuse.csv`: class, polygons, area_km2").
_LIST_START = re.compile(
    r"(?:\b(?:with|columns?|fields?|keys?|props|containing|carrying|holding)\b(?:\s+(?:the|these|its|their)\b)?"
    r"(?:\s+(?:columns?|fields?|keys?|properties|props))?\s*:?|\.[a-z]{2,10}`?\s*(?::|\u2014|\u2013|\s-|--))\s*",
    re.IGNORECASE,
)
_ITEM = r"`?[A-Za-z_]\w*`?"
# Single-word items joined by commas and "and"/"or", ending where the sentence or clause does.
_PLAIN_LIST = re.compile(
    rf"{_ITEM}(?:\s*,\s*(?:and\s+|or\s+)?{_ITEM}|\s+(?:and|or)\s+{_ITEM})+"
    r"(?=\s*$|\s*[.;:)\u2014\u2013]|\s+-\s|\s*,\s|\s+(?:sorted|ordered|in|for|as|with|per|from|on|"
    r"one|each|largest|smallest|most|busiest|closest|nearest|longest)\b)",
    re.IGNORECASE,
)
_NOT_NAMES = {
    "a",
    "an",
    "the",
    "its",
    "their",
    "his",
    "her",
    "one",
    "each",
    "every",
    "per",
    "row",
    "rows",
    "column",
    "columns",
    "and",
    "or",
    "with",
    "of",
    "to",
    "in",
    "on",
    "it",
    "them",
    "all",
    "both",
    "no",
    "not",
    "file",
    "json",
    "csv",
    "geojson",
    "data",
    "value",
    "values",
}


def _drawn_names(sentence: str, bullets: int) -> list[str]:
    """Names an output's shape is drawn with: the keys of a JSON template in the sentence (two or
    more), or the name of a bulleted "name: what it holds" line among two or more such lines."""
    keys = [k for k in dict.fromkeys(_TEMPLATE_KEY.findall(sentence)) if k not in _GEOJSON_MEMBERS]
    if len(keys) >= 2:
        return keys
    bare = _BARE_BULLET.match(sentence)
    if bare and bullets >= 2:  # "- cell_id" alone on its line among "- name: what it holds" lines
        return [bare.group("ticked") or bare.group("name")]
    bullet = _BULLET_NAME.match(sentence)
    if bullet and not bullet.group("ticked") and bullet.group("name") in _SPEC_LABELS:
        return []  # "order: most first", "format: CSV": a line of the spec, not a column
    return [bullet.group("ticked") or bullet.group("name")] if bullet and bullets >= 2 else []


# Words that label a line of a written spec by what it says of the deliverable (its order, format,
# projection, file...), not by a column it holds: unticked, they are not read as column names.
_SPEC_LABELS = {
    "order",
    "ordering",
    "sort",
    "sorting",
    "sorted",
    "format",
    "output",
    "outputs",
    "file",
    "filename",
    "crs",
    "projection",
    "units",
    "encoding",
    "delimiter",
    "separator",
    "note",
    "notes",
    "filter",
    "rows",
    "columns",
    "keys",
    "deliverable",
    "deliver",
    "save",
}


def _list_items(text: str) -> list[str]:
    """The items of a plain list ("a, b and `c`")."""
    return [i.strip("`") for i in re.split(r"\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+", text)]


# "... distance_m and the address points": a spatial file's list of columns that ends with its
# geometry, said in prose; the geometry is the file's own column, not one more name
_GEOMETRY_ITEM = re.compile(
    r"(?:,\s*|\s+)and\s+(?:the|their|its)\s+(?:[A-Za-z]+\s+){0,2}"
    r"(?:points?|geometr(?:y|ies)|polygons?|shapes?|lines?|locations?|outlines?|boundar(?:y|ies))\b",
    re.IGNORECASE,
)


def _without_geometry_item(text: str) -> str:
    """``text`` without the geometry closing a list of a spatial file's columns ("a, b, c and the
    address points" reads as "a, b, c")."""
    return _GEOMETRY_ITEM.sub("", text)


def _listed_names(sentence: str, input_columns: set[str]) -> tuple[list[str], bool]:
    """(names, sure) of a plain list of an output's columns ("with park_class, parks and hectares"):
    sure with three names or more, or with one a name by its form or an input's column; two plain
    words ("with districts and stations") may be prose. After any other colon, a list is one of names
    only with three items or more, two of them names by their form or an input's columns."""
    for start in _LIST_START.finditer(sentence):
        m = _PLAIN_LIST.match(sentence, start.end())
        if not m:
            continue
        items = _list_items(m.group(0))
        if any(i.lower() in _NOT_NAMES for i in items):
            continue
        named = any(_SNAKE.fullmatch(i) or i in input_columns or f"`{i}`" in m.group(0) for i in items)
        return items, len(items) >= 3 or named
    for colon in re.finditer(r":\s*", sentence):  # "one row per address and rank: address_id, rank, distance_m"
        m = _PLAIN_LIST.match(sentence, colon.end())
        if not m:
            continue
        items = _list_items(m.group(0))
        names = sum(bool(_SNAKE.fullmatch(i) or i in input_columns or f"`{i}`" in m.group(0)) for i in items)
        if len(items) >= 3 and names >= 2 and not any(i.lower() in _NOT_NAMES for i in items):
            return items, True
    return [], False


def _in_a_list(before: str) -> bool:
    """A plain word is a listed name only where a list item can start: after the introducer,
    a comma, "(", "and"/"or" or ":" (articles aside) — not inside prose ("the German name")."""
    words = re.findall(r"[(,:]|[A-Za-z_]\w*", before)
    while words and words[-1].lower() in ("its", "the", "their", "a", "an", "his", "her"):
        words.pop()
    return not words or words[-1] in ("(", ",", ":") or words[-1].lower() in ("and", "or") + _INTRODUCER_WORDS


# "add edge_km: ...", "add a column `area_ha`", "two new attributes on x.geojson: a (...) and b (...)":
# where the names of the columns added start.
_ADDED = re.compile(
    r"\badd(?:s|ing)?\b(?!\s+up\b)\s+(?:(?:a|an|the|two|three|four|five|new|extra|more|columns?|fields?|"
    r"attributes?|propert(?:y|ies))\s+)*:?\s*|"
    r"\bnew\s+(?:columns?|fields?|attributes?|properties)\b[^:.;()`]{0,60}:\s*",
    re.IGNORECASE,
)


def _added_names(sentence: str) -> list[str]:
    """The columns a sentence says to add: the name (or plain list of names) right after "add" or
    after "new columns ...:", each written as a name (backticked or snake_case), descriptions in
    parentheses aside."""
    text = _without_descriptions(sentence)
    found: list[str] = []
    for m in _ADDED.finditer(text):
        listed = _PLAIN_LIST.match(text, m.end()) or re.compile(_ITEM).match(text, m.end())
        if not listed:
            continue
        items = _list_items(listed.group(0))
        for item in items:
            if (_SNAKE.fullmatch(item) or f"`{item}`" in listed.group(0)) and item not in found:
                found.append(item)
    return found


# "each object has ward, schools and pupils", "every record holds the keys a, b, c": the keys of
# the records a JSON value (or a table's rows) holds
_RECORD_HAS = re.compile(
    r"\b(?:each|every)\s+(?:object|record|item|entry|element|row|feature|dict(?:ionary)?)\s+"
    r"(?:has|have|holds?|contains?|carries|gives|lists|with)\b(?:\s+(?:the\s+)?(?:keys?|fields?|properties|columns?))?"
    r"\s*:?\s*",
    re.IGNORECASE,
)


def _record_keys(sentence: str, input_columns: set[str]) -> list[str]:
    """The names a sentence lists as each record's ("each object has a, b (...) and c"): a plain list
    of three or more, or with a name by its form or an input's column."""
    text = _without_descriptions(sentence)
    for m in _RECORD_HAS.finditer(text):
        listed = _PLAIN_LIST.match(text, m.end())
        if not listed:
            continue
        items = _list_items(listed.group(0))
        named = any(_SNAKE.fullmatch(i) or i in input_columns or f"`{i}`" in listed.group(0) for i in items)
        if (len(items) >= 3 or named) and not any(i.lower() in _NOT_NAMES for i in items):
            return items
    return []


# "area_ha – its area in hectares" on a line of its own: a name and what it holds
_DEFINED_LINE = re.compile(
    r"(?:^|\n)[ \t]*(?:[-*\u2022][ \t]*|\d{1,2}[.)][ \t]*)?(?:`(?P<ticked>[A-Za-z_]\w*)`|(?P<name>[A-Za-z_]\w*))"
    r"[ \t]*(?:\u2013|\u2014|[ \t]-[ \t]|--|:|=)[ \t]*\S"
)


def _defined_lines(sentence: str) -> list[str]:
    """The names of two or more lines each defining one ("park_id – its id", "area_ha: in hectares") in
    the lines that list an output's columns (after the output's name and a colon, or a "Columns:"
    label); none when one of them is a spec's own label ("Order:", "Format:") or not a name."""
    found = [(m.group("ticked"), m.group("name")) for m in _DEFINED_LINE.finditer(sentence)]
    names = [t or n for t, n in found if (t or n).lower() not in _NOT_NAMES | _SPEC_LABELS]
    if len(found) < 2 or len(names) != len(found):
        return []
    return list(dict.fromkeys(names))


def _allowed_values(sentence: str) -> list[tuple[str, list[str]]]:
    """("`source` ... whose value is exactly one of `a`, `b`, or `c`") -> [("source", [a, b, c])]."""
    found = []
    for m in _VALUES_PHRASE.finditer(sentence):
        window = sentence[max(0, m.start() - 120) : m.start()]
        before = _TICKED.findall(window) or _SNAKE.findall(window)
        after = _TICKED_VALUE.findall(re.split(r"[;(]|\.(?:\s|$)", sentence[m.end() :], maxsplit=1)[0])
        if before and len(after) >= 2:
            found.append((before[-1], after))
    return found


# A literal the request assigns to a column: `x`, 'x', "x", or (after "=" / "set … to") one bare token
_LITERAL = r"(?P<value>`[^`\n]{1,30}`|'[^'\n]{1,30}'|\"[^\"\n]{1,30}\"|[\w/.+-]{1,30})"
_QUOTED_VALUE = r"(?P<value>`[^`\n]{1,30}`|'[^'\n]{1,30}'|\"[^\"\n]{1,30}\")"


def _placeholder_patterns(name: str) -> list[re.Pattern]:
    """Where a request names a value ``name`` takes in rows without one: "`station_id` = none",
    "set station_id to 'n/a'", "write 'unknown' in `station_id`", "`station_id` is 'none'"."""
    col = rf"`?(?<![\w-]){re.escape(name)}(?![\w-])`?"
    return [
        re.compile(rf"{col}\s*(?:=|==|:=)\s*{_LITERAL}", re.I),
        re.compile(rf"\b(?:set|fill|mark)\w*\s+(?:the\s+|its\s+)?{col}\s+(?:to|with|as)\s+{_LITERAL}", re.I),
        re.compile(rf"{col}\s+(?:is|becomes|gets|reads|holds|says)\s+{_QUOTED_VALUE}", re.I),
        re.compile(rf"\b(?:write|use|put|enter)\s+{_QUOTED_VALUE}\s+(?:in|for|as|into)\s+(?:the\s+)?{col}", re.I),
    ]


def _part_about(sentence: str, out: str, outs: list[str]) -> str:
    """The words of a sentence naming several outputs that are about ``out``: from its name to the
    next output's ("write `clean.gpkg` with no empty geometries and `audit.csv` with declared_crs":
    declared_crs is the CSV's column, not the GeoPackage's). A part with nothing but a joining word
    shares the next part ("`a.csv` and `b.csv` with code and name": both)."""
    bases = {_base(o) for o in outs}
    marks = [(m.start(), m.end(), _base(m.group(1))) for m in _FILE.finditer(sentence) if _base(m.group(1)) in bases]
    if len(outs) < 2 or len({b for _, _, b in marks}) < 2:
        return sentence
    parts = [
        (base, sentence[end : marks[i + 1][0] if i + 1 < len(marks) else len(sentence)])
        for i, (_, end, base) in enumerate(marks)
    ]
    mine = [i for i, (base, _) in enumerate(parts) if base == _base(out)]
    if not mine:
        return sentence
    i = mine[0]
    while i + 1 < len(parts) and re.fullmatch(r"[\s,;]*(and|or|as\s+well\s+as)?[\s,;]*", parts[i][1], re.IGNORECASE):
        i += 1
    return sentence[: marks[0][0]] + parts[i][1] if mine[0] == 0 else parts[i][1]


def _ticked_list_after(sentence: str, word: re.Pattern) -> list[str]:
    """The backticked list right after ``word`` ("layers named `points`, `lines`, and `polygons`")."""
    m = word.search(sentence)
    if not m:
        return []
    list_match = re.match(r"[^`]{0,20}((?:`\w+`(?:\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+)?)+)", sentence[m.end() :])
    return _TICKED.findall(list_match.group(1)) if list_match else []


# "- buildings: number of buildings" — a bulleted name and what it holds
_BULLET_NAME = re.compile(
    r"^\s*(?:[-*\u2022]|\d{1,2}[.)])\s*(?:`(?P<ticked>[A-Za-z_]\w*)`|(?P<name>[a-z_][a-z0-9_]*))\s*"
    r"(?::|=|\s[-\u2014\u2013])\s*\S"
)  # a name as columns are written, not a "Target:" label
# "- cell_id": a bulleted name alone on its line, written as a name
_BARE_BULLET = re.compile(
    r"^\s*(?:[-*\u2022]|\d{1,2}[.)])\s*(?:`(?P<ticked>[A-Za-z_]\w*)`|(?P<name>[a-z][a-z0-9]*(?:_[a-z0-9]+)+))\s*[.,;]?\s*$"
)
# GeoJSON's own members in a drawn FeatureCollection: its structure, not columns
_GEOJSON_MEMBERS = {"type", "features", "geometry", "properties", "coordinates", "bbox"}
# "[{"hospital_id": ..., "name": ...}]": the keys of a JSON template the request draws
_TEMPLATE_KEY = re.compile(r"[\"']([A-Za-z_]\w*)[\"']\s*:")


# 'layer "admin"', "the layer named 'sites'": a layer's name in quotes
_QUOTED = r"[\"'\u201c\u2018]([A-Za-z_][\w-]{0,62})[\"'\u201d\u2019]"
_QUOTED_LAYERS = re.compile(
    r"\blayers?\s+(?:named\s+|called\s+)?("
    + _QUOTED.replace("(", "(?:", 1)
    + r"(?:\s*\([^()]*\))?(?:\s*(?:,|and)\s*"
    + _QUOTED.replace("(", "(?:", 1)
    + r"(?:\s*\([^()]*\))?)*)",
    re.IGNORECASE,
)


def _quoted_layers(sentence: str) -> list[str]:
    """'layer "admin"', 'two layers named "hospitals" (from …) and "addresses"': the layers' names."""
    return [name for m in _QUOTED_LAYERS.finditer(sentence) for name in re.findall(_QUOTED, m.group(1))]
