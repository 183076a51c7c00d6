"""Derive the deliverable contract from the request's own words (no task knowledge).

Explicit things are parsed by rules: the output files and their formats; the columns or
keys listed after "columns"/"keys"/"containing"... (backticked or snake_case names, and
plain words that are columns of an input, in a list) with where each comes from
(``provenance``); layer names; EPSG codes, "national grid"/"metric projection", "in WGS84";
geometry type names (not those after a negation) and "single-part"; what a name says
(lon/lat, bbox, counts, measures); "integer", "non-empty", "non-negative", "unique",
"sorted by", "one row per input ...", "whose value is one of ..."; and the key columns the
user says to keep or carry unchanged. A requirement is attached to the outputs its sentence
names; a sentence that names no file speaks of the outputs of the sentence before (or all);
one that names only inputs speaks of none. Anything the request did not say is not a
requirement.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable
from contextvars import ContextVar

import pyproj

from .formats import SPATIAL, UNIT_IN_BASE, file_format
from .formats import layer_kinds as _layer_kinds
from .input_layers import layer_inputs, named_layers, on_layers
from .kinds import KINDS, RequestView
from .model import Contract, OutputSpec, Requirement, RequirementEdit
from .provenance import carried_from, column_provenance

_FILE = re.compile(r"`?([\w./-]+\.(?:json|geojson|csv|gpkg|parquet|geoparquet|shp|fgb))\b`?", re.IGNORECASE)
# Sentences end at . ! ? ; and at line breaks that start something new: a blank line, a list item
# ("- ", "2. ", "b)"), a "Label:" line, or after a line ending in ":". A line break inside a
# sentence (text wrapped by hand or by a mail client) is a space.
_SENTENCE = re.compile(
    r"(?<=[.!?;])(?<![\s(][\"'`][.!?;])\s+|\n\s*\n\s*|(?<=:)[ \t]*\n\s*|"
    r"\n\s*(?=[-*\u2022]\s|\d{1,2}[.)]\s|[a-z][.)]\s|[A-Z][\w /-]{0,30}:(?!\S))"
)
_TICKED = re.compile(r"`([A-Za-z_][\w]{0,63})`")
_TICKED_VALUE = re.compile(r"`([^`\n]{1,64})`")  # a value may hold '-', '.', ' ' ("utf-8", "latin1-mojibake")
_SNAKE = re.compile(r"\b([a-z][a-z0-9]*(?:_[a-z0-9]+)+)\b")
_LAYER_WORD = re.compile(r"\blayers?\b", re.IGNORECASE)
# "a single layer named hex_mix", "one layer called roads": the layer's name, written as a name.
_NAMED_LAYER = re.compile(r"\blayer\s+(?:named|called)\s+[`\"']?([A-Za-z_][\w-]*)")
_EPSG = re.compile(r"\bEPSG\s*[: ]\s*(\d{4,5})\b", re.IGNORECASE)
_METRIC_CRS = re.compile(
    r"\b(national\s+(?:metric\s+)?grid|national\s+(?:projected\s+)?(?:crs|projection|coordinate)|"
    r"official\s+(?:metric\s+|projected\s+)?(?:projection|crs|grid)|metric\s+(?:projection|grid|crs)|"
    r"projected\s+crs\s+in\s+met(?:re|er)s)\b",
    re.IGNORECASE,
)
_GEOGRAPHIC = re.compile(
    r"\b(?:in|to|as)\s+(?:WGS\s?-?84|lon(?:gitude)?\s*/\s*lat(?:itude)?|geographic coordinates)\b", re.IGNORECASE
)
_LONLAT_NAME = re.compile(r"(^|_)(wgs84|lon|lat|lng|longitude|latitude|lonlat)($|_)", re.IGNORECASE)
_COUNT_NAME = re.compile(r"(^|_)(count|n)($|_)|^n_", re.IGNORECASE)
_MEASURE_NAME = re.compile(
    r"(^|_)(area|length|distance|dist|perimeter)($|_)", re.IGNORECASE
)  # measures cannot be negative
# A measure of a feature's own geometry with its unit in the name ("area_km2", "length_m"): a distance
# to another layer is not one.
_MEASURE_UNIT = re.compile(r"^(?:\w+_)?(area|length|perimeter)_(km2|sqkm|m2|sqm|ha|km|m)$", re.IGNORECASE)
# "stations_per_10km2": a rate per (a multiple of) a unit of a measure; the units in m² or m.
_DENSITY = re.compile(r"^(\w+?)_per_(\d+(?:\.\d+)?)?_?(km2|sqkm|m2|sqm|ha|km|m)$", re.IGNORECASE)
# "count_per_district", "area_by_land_use": an object keyed by the values of that column.
_PER_GROUP = re.compile(r"^\w+?_(?:per|by)_(\w+)$", re.IGNORECASE)
# "the overall bounding box", "the bbox of the whole layer": every feature's bounds, not one's.
_WHOLE_BBOX = re.compile(
    r"\b(?:overall|whole|entire|full|total|complete)\s+(?:\w+\s+){0,2}?(?:bounding\s+box|bbox|extent)\b|"
    r"\b(?:bounding\s+box|bbox|extent)\s+of\s+(?:the\s+)?(?:whole|entire|all|every)\b",
    re.IGNORECASE,
)
# "a 400 m buffer", "a 1.5-km buffer zone", "buffer every stop by 250 m", "buffers with a radius of 1 km",
# "a 100 m protection zone around each point"
_DISTANCE = r"(\d+(?:\.\d+)?)[\s-]*(m|metres?|meters?|km|kilomet(?:re|er)s?)\b"
_BUFFER = re.compile(
    rf"\b{_DISTANCE}[\s-]+(?:[\w-]+\s+){{0,2}}?(?:buffers?\b|"
    rf"(?:zones?|rings?|circles?|corridors?|catchments?|halos?)\s+(?:a)?round\b)|"
    rf"\bbuffer\w*\s+(?:[\w`.-]+\s+){{0,5}}?(?:of|by|at|to|with\s+(?:a\s+)?(?:radius|distance)\s+of)\s+{_DISTANCE}",
    re.IGNORECASE,
)
_UNIT_WORDS = {"km2": "km²", "sqkm": "km²", "m2": "m²", "sqm": "m²", "ha": "hectares", "km": "km", "m": "metres"}
_UNIT_WORDS.update({"acre": "acres", "ft2": "square feet", "mi2": "square miles", "ft": "feet", "mi": "miles"})
_MEASURED_TYPES = {"area": ("Polygon",), "perimeter": ("Polygon",), "length": ("LineString",)}
_SORT = re.compile(
    r"\b(?:sort(?:ed)?|order(?:ed)?)\s+(?:the\s+)?(?:rows\s+|it\s+|them\s+|output\s+)?by\s+`?([A-Za-z_]\w*)`?"
    r"(?P<rest>[^.;]{0,40})",
    re.IGNORECASE,
)
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
_NUMERIC_WORDS = re.compile(r"\b(numeric(?:al)?|numbers?|d?types?|typed|typing)\b", re.IGNORECASE)
GEOMETRY_TYPES = ("MultiLineString", "MultiPolygon", "MultiPoint", "LineString", "Polygon", "Point")
# Stored column types a request may name (Arrow's names, as GeoParquet/Parquet keep them; OGR's map onto them).
_STORED_TYPE = (
    r"timestamp\[(?:s|ms|us|ns)(?:,\s*tz=[\w/+:-]+)?\]|u?int(?:8|16|32|64)|float(?:16|32|64)|double|"
    r"large_string|string|utf8|bool(?:ean)?|date32(?:\[day\])?|date64"
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
_TYPE_WORD = re.compile(r"\b(" + "|".join(GEOMETRY_TYPES) + r")s?\b")
_SINGLE_PART = re.compile(r"\bsingle[- ]part\b", re.IGNORECASE)


def _files(text: str) -> list[str]:
    return list(dict.fromkeys(m.group(1) for m in _FILE.finditer(text)))


def _base(path: str) -> str:
    return posixpath.basename(path)


# A sentence that names only inputs is about the output when it says to make something of them.
_PRODUCING = re.compile(
    r"\b(?:export|write|save|give|produce|make|turn|convert|deliver|create|build|return|output|"
    r"put|package|split|merge|dissolve|clip|reproject|take|keep|list|add|attach|append|compute|calculat|enrich|"
    r"annotat)\w*\b|\bnew\s+(?:columns?|attributes?|fields?|properties)\b",
    re.IGNORECASE,
)


class _Builder:
    """Collects requirements; ``said`` and ``sure`` are the words being read and whether their
    reading is certain, set by the reader before it adds what those words ask."""

    def __init__(self, outputs: list[str]):
        self.requirements: list[Requirement] = []
        self.outputs = outputs
        self.said, self.sure = "", True
        self.carried: set[tuple[str, str]] = set()  # (output, column) kept as the input has it: its name says nothing
        self.listed: set[str] = set()  # outputs whose every column a sentence lists as a plain list of names

    def columns_of(self, output: str) -> list[str]:
        """The columns (or keys) the requirements so far ask of ``output``, in their order."""
        return [n for r in self.requirements if r.output == output and r.kind == "columns" for n in r.params["names"]]

    def reading(self, said: str, sure: bool = True) -> _Builder:
        self.said, self.sure = " ".join(said.split())[:400], sure
        return self

    def add(self, output: str, kind: str, text: str, **params) -> None:
        if not self.said:
            return  # no words of the request support it: no requirement
        for r in self.requirements:
            if r.output == output and r.kind == kind and r.params == params:
                if self.sure and not r.sure:  # said again, surely: it gates now
                    r.sure, r.said = True, self.said
                return
            if r.sure != self.sure:  # an unsure reading never joins a sure one
                continue
            if r.output == output and r.kind == kind == "columns":  # one list of columns per output
                r.params["names"] += [n for n in params["names"] if n not in r.params["names"]]
                label = "keys" if r.text.startswith("has the keys") else "columns"
                r.text = f"has the {label} {', '.join(r.params['names'])}"
                return
            if r.output == output and r.kind == kind == "geometry_types":  # two sentences: both hold
                both = [t for t in r.params["allowed"] if t in params["allowed"]]
                if both:
                    r.params["allowed"] = both
                    r.text = f"every feature is a {' or '.join(both)}"
                    return
        self.requirements.append(
            Requirement(
                id=f"r{len(self.requirements) + 1}",
                output=output,
                kind=kind,
                text=text,
                params=params,
                said=self.said,
                sure=self.sure,
            )
        )


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


# "Columns: a, b, c", "- Fields — a, b": a line that lists an output's columns by its label.
_COLUMNS_LABEL = re.compile(
    r"^\s*(?:[-*\u2022]\s*|\d{1,2}[.)]\s*)?(?:the\s+)?(?:output\s+|its\s+|their\s+)?"
    r"(?:columns?|fields?|keys?|attributes|properties)\s*(?::|\u2014|\u2013|\s-\s)",
    re.IGNORECASE,
)
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


# "Columns ....... a, b, c": a label and its value joined by a row of dots, as forms and tickets write them
_DOT_LEADER = re.compile(r"(?m)^([ \t]*[A-Za-z][\w /-]{0,30}?)[ \t]*\.{3,}[ \t]*(?=\S)")


def _dot_leaders(text: str) -> str:
    """The text with each "Label ....... value" line written "Label: value" on a paragraph of its own, so
    its label reads as a "Label:" line does."""
    return _DOT_LEADER.sub(lambda m: "\n" + m.group(1).strip() + ": ", text)


def _paren_semicolons(text: str) -> str:
    """The text with each ';' inside parentheses written ',' (same length): a description's own
    clauses ("(total length of its lines; 0 if none)") do not end the sentence they are in."""
    out, depth = [], 0
    for ch in text:
        depth = depth + 1 if ch == "(" else max(depth - 1, 0) if ch == ")" else depth
        out.append("," if ch == ";" and depth else ch)
    return "".join(out)


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


# The GeoParquet files of the derivation under way: ".parquet" says nothing of geometry; an input's
# metadata does (its geometry types), and for an output a sentence naming it that says "GeoParquet".
_GEOPARQUET: ContextVar[frozenset[str]] = ContextVar("_GEOPARQUET", default=frozenset())
_GEOPARQUET_WORD = re.compile(r"\bgeo-?parquet\b", re.IGNORECASE)


def _format(path: str) -> str:
    """The file's format as the contract reads it: a GeoParquet file is spatial."""
    fmt = file_format(path)
    return "geoparquet" if fmt == "parquet" and path in _GEOPARQUET.get() else fmt


def derive_contract(
    request: str, outputs: list[str], inputs: dict[str, dict] | None = None, official_crs: str = ""
) -> Contract:
    """The contract for ``outputs`` (files the request names that did not exist at the start).

    ``inputs``: path -> {"rows": int | None, "columns": [names]} of the data files found at the start;
    ``official_crs``: the CRS advisor's official grid for the data ("EPSG:3460 (Fiji 1986 / Fiji Map Grid)"),
    named in a "national grid" requirement so the coder knows which one."""
    inputs = inputs or {}
    request = _dot_leaders(_paren_semicolons(request))
    geoparquet = {p for p, facts in inputs.items() if facts.get("geometry_type")}
    for sentence in _SENTENCE.split(request):  # "as GeoParquet, out.parquet"; not "out.parquet, a plain Parquet"
        if _GEOPARQUET_WORD.search(_affirmed(sentence)):
            geoparquet |= {o for o in outputs if _base(o) in {_base(n) for n in _files(sentence)}}
    token = _GEOPARQUET.set(frozenset(geoparquet))
    layers = named_layers(_SENTENCE.split(request), inputs, _files, _affirmed)  # an input's layer the request names
    try:
        return on_layers(_derive(request, outputs, layer_inputs(inputs, layers), official_crs), layers)
    finally:
        _GEOPARQUET.reset(token)


def _derive(request: str, outputs: list[str], inputs: dict[str, dict], official_crs: str) -> Contract:
    input_by_base = {_base(p): p for p in inputs}
    b = _Builder(outputs)
    sentences = [s for s in _SENTENCE.split(request) if s.strip()]
    for out in outputs:
        fmt = _format(out)
        b.reading(next((s for s in sentences if _base(out) in {_base(n) for n in _files(s)}), out))
        b.add(out, "exists", f"`{out}` is written and opens as {fmt}")
    attributed: list[tuple[str, list[str], bool]] = []  # sentence, the outputs it is about, whether surely
    last_outputs: list[str] = []
    # sentences that go on from one naming an output and ending in ":" ("Output `x.geojson`:\n the points
    # with a, b, c"), or that list columns by a label ("Columns: a, b"): their lists are the output's
    continued: set[int] = set()
    for i, sentence in enumerate(sentences):
        before = sentences[i - 1].rstrip() if i else ""
        opened = before.endswith(":") and (_files(before) or _COLUMNS_LABEL.match(before))
        if _COLUMNS_LABEL.match(sentence) or (opened and not _files(sentence)):
            continued.add(i)
    for sentence in sentences:
        named = _files(sentence)
        outs = [o for o in outputs if _base(o) in {_base(n) for n in named}]
        sure = True
        if named and not outs and len(outputs) == 1 and _PRODUCING.search(sentence):
            outs = list(outputs)  # "export `in.parquet` as a plain JSON list": about the one output
        elif not named:
            # "Use three columns ..." continues the last output's sentence; before any output is named,
            # a request with several outputs has not said which one a sentence is about.
            outs, sure = (last_outputs, True) if last_outputs else (list(outputs), len(outputs) == 1)
        elif outs:
            last_outputs = outs
        attributed.append((sentence, outs, sure))
        if re.search(r"\b(both|all|every)\s+(output\s+)?files\b", sentence, re.IGNORECASE):
            attributed[-1] = (sentence, list(outputs), True)

    bullets: dict[str, int] = {}  # bulleted "name: what it holds" lines per output: two or more make a list
    for sentence, outs, _ in attributed:
        for out in outs if _BULLET_NAME.match(sentence) else []:
            bullets[out] = bullets.get(out, 0) + 1
    input_columns = {c for facts in inputs.values() for c in facts.get("columns") or []}
    input_values = {v for facts in inputs.values() for v in facts.get("values") or []} - input_columns
    exclude = (
        {_base(o).rsplit(".", 1)[0] for o in outputs} | {_base(i).rsplit(".", 1)[0] for i in inputs} | input_values
    )
    for index, (sentence, outs, sure) in enumerate(attributed):
        if not outs:
            continue
        b.reading(sentence, sure)
        values = _allowed_values(sentence)
        value_words = {v for _, vs in values for v in vs}
        for out in outs:
            fmt = _format(out)
            names_output = any(_base(f) == _base(out) for f in _files(sentence)) or (
                index in continued and len(outs) == 1
            )
            part = _part_about(sentence, out, outs)
            fields = [f for f in _named_fields(part, exclude, input_columns, names_output) if f not in value_words]
            listed, listed_sure = (
                _listed_names(_without_descriptions(part), input_columns) if names_output else ([], False)
            )
            layers = (
                _ticked_list_after(sentence, _LAYER_WORD)
                or _quoted_layers(_part_about(sentence, out, outs))
                or _NAMED_LAYER.findall(sentence)
                if fmt == "gpkg"
                else []
            )
            fields = [f for f in fields if f not in layers]
            if listed_sure and len(listed) >= 3 and sure and not _OPEN_LIST.search(part):
                b.listed.add(out)  # a closed plain list of names: every column the output should have
            listed = [
                n for n in listed if n not in fields and n not in exclude and n not in layers and n not in value_words
            ]
            label = "keys" if fmt == "json" else "columns"
            if listed and listed_sure:
                fields += listed
            fields += [n for n in _drawn_names(sentence, bullets.get(out, 0)) if n not in fields and n not in exclude]
            fields += [n for n in _added_names(part) if n not in fields and n not in exclude and n not in layers]
            fields += [n for n in _record_keys(part, input_columns) if n not in fields and n not in exclude]
            if index in continued and len(outs) == 1:
                fields += [n for n in _defined_lines(part) if n not in fields and n not in exclude]
            if fields:
                b.add(out, "columns", f"has the {label} {', '.join(fields)}", names=fields)
            if listed and not listed_sure:
                b.reading(sentence, False).add(out, "columns", f"has the {label} {', '.join(listed)}", names=listed)
                b.reading(sentence, sure)
            if layers:
                b.add(out, "layers", f"has the layers {', '.join(layers)}", names=layers)
            for name, allowed in values:
                b.add(out, "values_in", f"`{name}` is one of {', '.join(allowed)}", name=name, allowed=allowed)
            _crs_rules(b, out, fmt, sentence, official_crs, inputs)
            _geometry_rules(b, out, fmt, sentence)
            _value_rules(b, out, sentence)
            _hygiene_rules(b, out, fmt, sentence)
            _format_rules(b, out, sentence)
            if fmt == "json":
                _json_shape_rules(b, out, _part_about(sentence, out, outs))
            _stored_type_rules(b, out, fmt, sentence)
            _row_rules(b, out, sentence, inputs, input_by_base)
    _same_as_another_output(b, attributed, input_by_base)
    _bound_by_column(b)
    _order_words(b, attributed)
    _bounds_in_degrees(b, attributed)
    _none_dropped(b, attributed, inputs, request)
    _sort_by_named_column(b)
    b.reading("")
    named = _named_inputs(request, input_by_base)
    _name_rules(b, outputs, inputs, whole_layer=_whole_layer(request, inputs, named), request=request)
    _described_measures(b, request, inputs)
    _said_counts(b, request)
    _summary_counts(b, request, inputs)
    _counted_once(b, request, inputs)
    _kept_columns(b, attributed, inputs)
    _carried_text(b, request, outputs, inputs)
    _mended_copy(b, request, outputs, inputs, named)
    _row_selection(b, attributed, inputs)
    _kind_readings(b, request, outputs, attributed, inputs)
    _conversion_rules(b, request, outputs, inputs)
    _buffer_rules(b, request, outputs, named)
    _point_count_rules(b, outputs, inputs, named)
    _nearest_distance_rules(b, request, inputs, named)
    _density_rules(b)
    _keep_rule(b, request, inputs)
    _blanks_allowed(b, request)
    _invalid_repaired(b, request, named)
    _no_stray_columns(b, request)
    _converted_values(b, inputs)
    _provenance(b, inputs)
    _defect_rules(b, outputs, inputs, request)
    _shape_rules(b, request, outputs, inputs, named)
    _place_rules(b, outputs, inputs, named)
    _one_value_per_cell(b, outputs)
    _crs_asked_of_an_input(b, request, outputs, inputs)
    _crs_kept_rules(b, request, outputs, inputs, named)
    _consistent(b, inputs, request)
    _min_area_rules(b, request, outputs)
    if _NUMERIC_WORDS.search(_FILE.sub(" ", request)):  # the request's words, not its file names
        _number_rules(b, request, outputs, inputs)
    return Contract(outputs=[OutputSpec(path=o, format=_format(o)) for o in outputs], requirements=b.requirements)


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


def _order_words(b: _Builder, attributed: list[tuple[str, list[str], bool]]) -> None:
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
                # is a table.
                b.reading(sentence, sure and (_format(out) != "json" or _top_level_list(b, out)))
                b.add(
                    out,
                    "sorted",
                    f'rows are sorted by `{column}` {"descending" if descending else "ascending"} ("{said.group(0)}")',
                    name=column,
                    descending=descending,
                )


_BOUND_NAME = re.compile(r"^(?:min|max)_?[xy]$|^[xy]_?(?:min|max)$|^(?:west|south|east|north)$", re.IGNORECASE)
_IN_DEGREES = re.compile(r"\b(?:degrees|longitudes?|latitudes?)\b|\blon\s*/\s*lat\b|\blat\s*/\s*lon\b", re.IGNORECASE)


def _bounds_in_degrees(b: _Builder, attributed: list[tuple[str, list[str], bool]]) -> None:
    """Bound columns ("minx, miny, maxx, maxy") in a sentence that says they are in degrees or
    longitude/latitude hold lon/lat values."""
    for sentence, outs, sure in attributed:
        if not _IN_DEGREES.search(_affirmed(sentence)):
            continue
        b.reading(sentence, sure)
        for out in outs:
            names = b.columns_of(out)
            for name in names:
                if _BOUND_NAME.match(name) and re.search(rf"(?<![\w`]){name}(?!\w)|`{name}`", sentence):
                    b.add(out, "lonlat", f"`{name}` holds longitude/latitude values (WGS84 degrees)", name=name)


def _top_level_list(b: _Builder, out: str) -> bool:
    return any(r.output == out and r.kind == "json_shape" and r.params.get("shape") == "list" for r in b.requirements)


# "2. `b.geojson` -- the same attributes plus the points": the columns asked of the other output
_SAME_AS_OTHER = re.compile(r"\bthe\s+same\s+(?:attributes|columns|fields|properties)\b(?!\s+as\b)", re.IGNORECASE)


def _same_as_another_output(
    b: _Builder, attributed: list[tuple[str, list[str], bool]], input_by_base: dict[str, str]
) -> None:
    """An output said to have "the same attributes", in a sentence about it alone that names no
    input, has the columns the request surely asks of the one other output that has a list."""
    for sentence, outs, sure in attributed:
        if not sure or len(outs) != 1 or not _SAME_AS_OTHER.search(sentence):
            continue
        if any(_base(f) in input_by_base for f in _files(sentence)):
            continue
        lists = {
            r.output: r.params["names"]
            for r in b.requirements
            if r.kind == "columns" and r.sure and r.output != outs[0] and r.output in b.outputs
        }
        if len(lists) != 1:
            continue
        other, names = next(iter(lists.items()))
        b.reading(sentence, True).add(
            outs[0], "columns", f"has the columns of `{other}`: {', '.join(names)}", names=list(names)
        )


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


def _bound_by_column(b: _Builder) -> None:
    """A requirement on a column's values read where the request had not yet said which output it is
    about ("tag each group with `source`, one of ...") is sure for an output the request surely
    gives that column: the column says where it belongs."""
    surely_has = {(r.output, n) for r in b.requirements if r.kind == "columns" and r.sure for n in r.params["names"]}
    for r in b.requirements:
        if not r.sure and r.kind != "columns" and (r.output, r.params.get("name")) in surely_has:
            r.sure = True


def _sentence_at(request: str, position: int) -> str:
    """The sentence of ``request`` that holds the character at ``position``."""
    start = 0
    for m in _SENTENCE.finditer(request):
        if m.start() > position:
            return request[start : m.start()]
        start = m.end()
    return request[start:]


def _output_words(b: _Builder, out: str) -> str:
    """The words that name ``out`` (its "exists" requirement's), for a requirement the data implies."""
    return next((r.said for r in b.requirements if r.output == out and r.kind == "exists"), out)


# "further than that leave station_id and distance blank", "otherwise empty": rows may lack a value
_BLANK_ALLOWED = re.compile(
    r"\b(?:leave|left|stays?|remains?|be|is|are)\s+(?:[\w`]+\s+){0,6}?(?:blank|empty|null|missing|nan)\b|"
    r"\b(?:otherwise|else)\s+(?:leave\s+)?(?:it\s+|them\s+)?(?:blank|empty|null|nan)\b|"
    r"\b(?:with|gets?|has|have)\s+(?:[\w`=]+\s+){0,6}?(?:an?|the)\s+(?:blank|empty|null|missing)\s+[A-Za-z_]",
    re.IGNORECASE,
)


# A literal the request assigns to a column: `x`, 'x', "x", or (after "=" / "set … to") one bare token
_LITERAL = r"(?P<value>`[^`\n]{1,30}`|'[^'\n]{1,30}'|\"[^\"\n]{1,30}\"|[\w/.+-]{1,30})"
_QUOTED = r"(?P<value>`[^`\n]{1,30}`|'[^'\n]{1,30}'|\"[^\"\n]{1,30}\")"


def _placeholder_patterns(name: str) -> list[re.Pattern]:
    """Where a request names a value ``name`` takes in rows without one: "`station_id` = none",
    "set station_id to 'n/a'", "write 'unknown' in `station_id`", "`station_id` is 'none'"."""
    col = rf"`?(?<![\w-]){re.escape(name)}(?![\w-])`?"
    return [
        re.compile(rf"{col}\s*(?:=|==|:=)\s*{_LITERAL}", re.I),
        re.compile(rf"\b(?:set|fill|mark)\w*\s+(?:the\s+|its\s+)?{col}\s+(?:to|with|as)\s+{_LITERAL}", re.I),
        re.compile(rf"{col}\s+(?:is|becomes|gets|reads|holds|says)\s+{_QUOTED}", re.I),
        re.compile(rf"\b(?:write|use|put|enter)\s+{_QUOTED}\s+(?:in|for|as|into)\s+(?:the\s+)?{col}", re.I),
    ]


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


# "drop the invalid geometries", "remove invalid features": the request lets them go
_DROP_INVALID = re.compile(
    r"\b(?:drop|remove|discard|delete|exclude|filter\s+out|skip)\w*\b[^.;]{0,40}\binvalid\b|"
    r"\binvalid\b[^.;]{0,40}\b(?:dropped|removed|discarded|deleted|excluded|filtered\s+out|skipped)\b",
    re.IGNORECASE,
)


def _invalid_repaired(b: _Builder, request: str, named: list[str]) -> None:
    """ "No invalid geometries" in a cleaning of one named layer keyed by a column: the invalid
    features are repaired, not dropped: a filter on validity loses records yet leaves a file of valid
    geometries. The check reads the input's invalid features and finds each key in the output;
    unless the request lets them go."""
    spatial_in = [p for p in named if _format(p) in SPATIAL]
    if len(spatial_in) != 1 or _DROP_INVALID.search(request):
        return
    for req in [r for r in b.requirements if r.kind == "geometries_valid"]:
        key = next(
            (
                r.params["name"]
                for r in b.requirements
                if r.kind == "unique" and r.output == req.output and r.params.get("name")
            ),
            None,
        )
        if key:
            req.params.update(input=spatial_in[0], key=key)
            req.text += f" — the input's invalid features repaired (each `{key}` of them kept), not dropped"


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


_WEB_MERCATOR = re.compile(r"\b(?:web|pseudo)[\s-]*mercator\b", re.IGNORECASE)
_UTM = re.compile(r"\bUTM\b")
_LATLON = re.compile(
    r"\b(?:lat(?:itude)?\s*/\s*lon(?:gitude)?|lon(?:gitude)?\s*/\s*lat(?:itude)?|lat-?lon|lon-?lat|"
    r"WGS\s?-?84|geographic\s+coordinates)\b",
    re.IGNORECASE,
)
# "keep it in the file's own grid", "the CRS it came in", "do not reproject": the input's CRS
_OWN_CRS = re.compile(
    r"\b(?:own|original|source|same|existing|current)\s+(?:[\w'-]+\s+){0,2}?(?:crs|grid|projection|"
    r"coordinate\s+(?:reference\s+)?system)\b|\b(?:crs|grid|projection)\s+(?:it|they)\s+"
    r"(?:came|comes|arrived|arrives|is|are)\s+in\b|\b(?:do\s+not|don't|never|without)\s+reproject",
    re.IGNORECASE,
)


def _affirmed(sentence: str) -> str:
    """The clauses of a sentence that negate nothing ("in the file's own grid (not lat/lon)": the first)."""
    return " ".join(c for c in _CLAUSE.split(sentence) if not _NEGATION.search(c))


def _input_epsg(inputs: dict[str, dict]) -> int | None:
    """The one EPSG code the spatial inputs share, if they share one."""
    codes = {f.get("epsg") for p, f in inputs.items() if _format(p) in SPATIAL or f.get("epsg")}
    return codes.pop() if len(codes) == 1 and None not in codes else None


def _crs_rules(
    b: _Builder, out: str, fmt: str, sentence: str, official_crs: str = "", inputs: dict[str, dict] | None = None
) -> None:
    if fmt not in SPATIAL:
        return
    codes = [int(c) for c in _EPSG.findall(sentence)]
    said = _affirmed(sentence)
    own = _input_epsg(inputs or {})
    if len(set(codes)) == 1:
        b.add(out, "crs_epsg", f"is in EPSG:{codes[0]}", epsg=codes[0])
    elif _WEB_MERCATOR.search(said):
        b.add(out, "crs_epsg", "is in Web Mercator (EPSG:3857)", epsg=3857)
    elif _UTM.search(said):
        b.add(
            out,
            "crs_projected_metres",
            "is in the UTM zone of the data (a projected CRS in metres whose area of use contains it)",
            name_has="UTM",
        )
    elif _OWN_CRS.search(sentence) and own and not _METRIC_CRS.search(said) and not _LATLON.search(said):
        b.add(out, "crs_epsg", f"stays in the input's own CRS (EPSG:{own})", epsg=own)
    elif _METRIC_CRS.search(sentence):
        advised = f"; the advisor's official grid for this data: {official_crs}" if official_crs else ""
        code = re.match(r"EPSG:(\d+)", official_crs)
        b.add(
            out,
            "crs_projected_metres",
            f"is in a projected CRS in metres whose area of use contains the data (the region's grid{advised})",
            **({"advised_epsg": int(code.group(1))} if code else {}),
        )
    elif _GEOGRAPHIC.search(sentence) or _LATLON.search(said):
        b.add(out, "crs_epsg", "is in WGS84 (EPSG:4326)", epsg=4326)


_NEGATION = re.compile(
    r"\b(not|no|never|don't|do\s+not|instead\s+of|rather\s+than|unacceptable|without)\b", re.IGNORECASE
)
_CLAUSE = re.compile(r"[,;:()]|\s(?:but|while|whereas)\s")


def _geometry_types_said(sentence: str) -> tuple[list[str], list[str]]:
    """(types asked for, types refused) by a sentence, clause by clause: "one MultiLineString per
    transect; plain LineString is not acceptable" asks for the first and refuses the second. In a
    clause with a negation, the types after it are refused ("... rather than Polygon") and so are
    those before it when nothing but the negation follows them ("LineString is not acceptable")."""
    asked: list[str] = []
    refused: list[str] = []
    for clause in _CLAUSE.split(sentence):
        negation = _NEGATION.search(clause)
        if not negation:
            asked += _TYPE_WORD.findall(clause)
            continue
        before, after = clause[: negation.start()], clause[negation.end() :]
        refused += _TYPE_WORD.findall(after)
        if _TYPE_WORD.search(after):
            asked += _TYPE_WORD.findall(before)  # "as Polygon rather than MultiPolygon"
        else:
            refused += _TYPE_WORD.findall(before)  # "plain LineString is not acceptable"
    refused = list(dict.fromkeys(refused))
    return [t for t in dict.fromkeys(asked) if t not in refused], refused


def _geometry_rules(b: _Builder, out: str, fmt: str, sentence: str) -> None:
    if fmt not in SPATIAL:
        return
    named, refused = _geometry_types_said(sentence)
    about_features = re.search(
        r"\b(geometr|feature|row|as\s+(a|one)|each|every|must|remain|accept)", sentence, re.IGNORECASE
    )
    if named and about_features:
        b.add(out, "geometry_types", f"every feature is a {' or '.join(named)}", allowed=named)
    elif refused and about_features:
        allowed = [t for t in GEOMETRY_TYPES if t not in refused]
        b.add(out, "geometry_types", f"no feature is a {' or '.join(refused)}", allowed=allowed)
    elif _SINGLE_PART.search(sentence):
        allowed = [t for t in GEOMETRY_TYPES if not t.startswith("Multi")]
        b.add(out, "geometry_types", "every feature is single-part", allowed=allowed)


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


_NO_EMPTY = re.compile(r"\bno\s+(?:null|empty|missing)(?:\s+or\s+(?:null|empty|missing))?\s+geometr", re.IGNORECASE)
_NO_INVALID = re.compile(
    r"\bno\s+(?:[\w-]+\s+)?invalid\s+geometr|\b(?:only|all|every)\s+(?:\w+\s+)?valid\s+geometr|"
    r"\bgeometr(?:y|ies)\s+(?:must\s+be|are|is)\s+valid\b|"
    r"\bmake\s+(?:every|all|each|the)?\s*(?:\w+\s+){0,2}?(?:geometr\w*|outlines?|polygons?|shapes?|features?)\s+valid\b|"
    r"\b(?:repair|fix|correct)\w*\s+(?:the\s+|every\s+|all\s+)?invalid\s+(?:geometr\w*|outlines?|polygons?|shapes?|features?)|"
    r"\b(?:is|are)\s+invalid,?\s+(?:then\s+)?(?:fix|repair|make)\w*\s+(?:it|them)\b",
    re.IGNORECASE,
)
_NO_DUPLICATE = re.compile(r"\bno\s+(?:[\w-]+\s+)?duplicat\w*\s+geometr", re.IGNORECASE)
_FORMATTED = re.compile(r"\b(?:formatted|written|given)\s+as\s+`([^`]{1,40})`", re.IGNORECASE)
_PER_NOUN = re.compile(
    r"\bone\s+(?:canonical\s+|distinct\s+|single\s+|unique\s+)?(?:row|record|feature|entry)\s+per\s+(\w+)",
    re.IGNORECASE,
)


def _hygiene_rules(b: _Builder, out: str, fmt: str, sentence: str) -> None:
    """What the request says the geometries must not be: null/empty, invalid, duplicated."""
    if fmt not in SPATIAL:
        return
    if _NO_EMPTY.search(sentence):
        b.add(out, "geometries_present", "no feature has a null or empty geometry")
    if _NO_INVALID.search(sentence):
        b.add(out, "geometries_valid", "every geometry is valid (OGC rules)")
    if _NO_DUPLICATE.search(sentence):
        b.add(out, "geometries_unique", "no two features have the same geometry")


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


def _row_rules(b: _Builder, out: str, sentence: str, inputs: dict[str, dict], input_by_base: dict[str, str]) -> None:
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


def _noun_names(noun: str, path: str) -> bool:
    """Whether a noun names a file ("hexagon" -> hex_grid.geojson, "station" -> stations.geojson):
    a word of its name of three letters or more begins the noun, or the noun begins it."""
    words = re.split(r"[^a-z]+", _base(path).lower().rsplit(".", 1)[0])
    return bool(noun) and any(len(w) >= 3 and (noun.startswith(w) or w.startswith(noun)) for w in words)


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


def _singular(word: str) -> str:
    word = word.lower()
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("sses", "shes", "ches", "xes")):
        return word[:-2]
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word


def _category_of(value: str, inputs: dict[str, dict]) -> tuple[str, list[str]] | None:
    """(column, every value it holds) of the one input category column that holds ``value``."""
    found = {
        (column, tuple(values))
        for facts in inputs.values()
        for column, values in (facts.get("categories") or {}).items()
        if value in values
    }
    if len(found) != 1:
        return None
    column, values = found.pop()
    return column, list(values)


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


def _kind_readings(
    b: _Builder,
    request: str,
    outputs: list[str],
    attributed: list[tuple[str, list[str], bool]],
    inputs: dict[str, dict],
) -> None:
    """The readings the kinds' own modules hold (``RequirementKind.read``), in the registry's order."""
    view = RequestView(request, outputs, inputs, attributed, files=_files, affirmed=_affirmed)
    for kind in KINDS.values():
        if kind.read is not None:
            kind.read(view, b)


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


def _keeps(b: _Builder, out: str, name: str | None, inputs: dict[str, dict], required: bool = True) -> None:
    """``name`` is carried from the one input that has it: the output has it (unless not
    ``required``), with that input's values."""
    holders = [p for p, facts in inputs.items() if name and name in (facts.get("columns") or [])]
    if len(holders) == 1:
        if required:
            b.add(out, "columns", f"has the column {name}", names=[name])
            b.add(
                out,
                "values_from_input",
                f"`{name}` keeps the original values of `{holders[0]}`",
                name=name,
                input=holders[0],
            )
        else:
            b.add(
                out,
                "values_from_input",
                f"`{name}`, where present, keeps the original values of `{holders[0]}`",
                name=name,
                input=holders[0],
                if_present=True,
            )


def _nearest_name(sentence: str, start: int, end: int, after: bool) -> str | None:
    """The backticked or snake_case name closest to a phrase, after it ("keep `connector_id`")
    or before it ("parcel_id (the join key)")."""
    best, distance = None, 10**9
    for m in list(_TICKED.finditer(sentence)) + list(_SNAKE.finditer(sentence)):
        gap = m.start() - end if after else start - m.end()
        if 0 <= gap <= 40 and gap < distance:
            best, distance = m.group(1), gap
    return best


def _input_for(noun: str, candidates: Iterable[str]) -> str | None:
    """The input a noun ('address', 'connector') refers to: its file name, else the only input."""
    candidates = [c for c in candidates if _format(c) in SPATIAL | {"csv", "parquet"}]
    stem = noun.lower().rstrip("s")[:5]
    matching = [c for c in candidates if stem and stem in _base(c).lower()]
    if len(matching) == 1:
        return matching[0]
    return candidates[0] if len(candidates) == 1 else None


# "include the geometry as WKT", "a geometry column": the CSV carries its geometry on purpose
_GEOMETRY_WANTED = re.compile(r"\bwkt\b|(?<!\bno\s)\bgeometry\s+(?:column|as)\b", re.IGNORECASE)


# A geometry or row-index column a table gets by writing a (Geo)DataFrame whole ("Unnamed: 0" too):
# carried in ``params.no_stray`` to the in-kernel check and to the mend, which both read it there.
STRAY_COLUMNS = ("geometry", "geom", "the_geom", "wkt", "geometry_wkt", "index", "level_0", "index_right", "index_left")


# Words that leave a list of columns open: "including", "at least", "plus the district name",
# "and the other attributes": then a column beyond the list may be asked for in prose.
_OPEN_LIST = re.compile(
    r"\b(?:includ\w*|at\s+least|plus|as\s+well\s+as|such\s+as|among|etc|e\.g|other|others|rest|"
    r"original|existing|remaining|whatever|any|additional|extra)\b",
    re.IGNORECASE,
)


UNSAID_CLAUSE = ", nor any column the request does not name"


def _no_stray_columns(b: _Builder, request: str) -> None:
    """A CSV whose columns the request lists has no geometry or row-index column beside them
    (``params.no_stray``), as a ``to_csv`` of a whole joined GeoDataFrame leaves (`geometry`,
    `index_right`). Other extra columns are allowed (a column the rules did not read as asked for
    may still be one: "its id, name, and area_km2"), unless a sentence listed every column as a
    closed plain list of three names or more (``b.listed``): then a column that is neither listed
    nor a word of the request (``params.said_words``) is a leftover of a join or a scratch column.
    A spatial file's join index column, which graders pass, is not worth a repair."""
    words = sorted({w.lower() for w in _WORD.findall(request)})
    wanted = _GEOMETRY_WANTED.search(_affirmed(request))  # "no geometry column, no WKT" wants none
    for req in [r for r in b.requirements if r.kind == "columns" and _format(r.output) == "csv"]:
        if not wanted:
            req.params["no_stray"] = list(STRAY_COLUMNS)
            req.text += ", and no geometry or row-index column beside them"
        if req.output in b.listed and req.sure:
            req.params["said_words"] = words
            req.text += UNSAID_CLAUSE


def _provenance(b: _Builder, inputs: dict[str, dict]) -> None:
    """Each requested column's source, in the requirement (and so in the planner's and coder's view)."""
    for req in [r for r in b.requirements if r.kind == "columns"]:
        sources = {n: column_provenance(n, inputs) for n in req.params["names"] if n != "geometry"}
        req.params["provenance"] = sources
        groups: dict[str, list[str]] = {}
        for name, source in sources.items():
            groups.setdefault(source, []).append(name)
        req.text += " (" + "; ".join(f"{', '.join(names)}: {source}" for source, names in groups.items()) + ")"


# Words of a request about how the data draws ("render correctly", "viewers", "holes appear filled",
# "arcs across the globe"): then the inputs' drawing defects must not reach the output.
_HOLES = ("hole", "holes")
_DRAWING = re.compile(
    r"\b(render\w*|viewers?|display\w*|draw\w*|shad\w*|rfc\s*7946|right-hand|winding|orient\w*|"
    r"clockwise|anticlockwise|counter-?clockwise|holes?|antimeridian|dateline|180|arcs?|wrap\w*|"
    r"globe\w*|span\w*)\b",
    re.IGNORECASE,
)


def _defect_rules(b: _Builder, outputs: list[str], inputs: dict[str, dict], request: str = "") -> None:
    """What the input data says, not the request: a defect found in an input's geometries (by
    ``input_facts``) must not reach a spatial deliverable made from it. Geometry kept as WKT text
    in a column is parsed into the file's geometry, not carried beside it. Features jumping over the
    antimeridian are cut at +-180 (RFC 7946 section 3.1.9; in GeoJSON always, in other formats when
    they stay in lon/lat); GeoJSON polygons follow RFC 7946's right-hand rule (section 3.1.6)."""

    def where(defect: str) -> str:
        return ", ".join(
            f"{facts['defects'][defect]} in `{path}`"
            for path, facts in inputs.items()
            if (facts.get("defects") or {}).get(defect)
        )

    crossing, wound = where("antimeridian"), where("winding")
    wkt_columns = [c for facts in inputs.values() for c in (facts.get("defects") or {}).get("wkt_text") or []]
    wkt = ", ".join(
        f"`{path}` writes it in {', '.join(f'`{c}`' for c in facts['defects']['wkt_text'])}"
        for path, facts in inputs.items()
        if (facts.get("defects") or {}).get("wkt_text")
    )
    # Holes alone are the data's structure ("courtyard holes not counted"), not how it draws.
    drawing = next((m for m in _DRAWING.finditer(_FILE.sub(" ", request)) if m.group(0).lower() not in _HOLES), None)
    for out in outputs:
        fmt = _format(out)
        # A defect the request does not ask to mend is a standard's, not the user's: shown, not gating.
        b.reading(_output_words(b, out))
        named = set(b.columns_of(out))
        if wkt and fmt in SPATIAL and not named & set(wkt_columns):  # unless the request keeps that column
            b.add(
                out,
                "geometry_once",
                f"the geometry is stored once, as the file's geometry: no column repeats it "
                f"as WKT text ({wkt}; drop it once parsed)",
                name=wkt_columns[0],
            )
        if crossing and fmt in SPATIAL:
            b.add(
                out,
                "antimeridian_cut",
                f"no feature jumps over the antimeridian: those that cross it ({crossing}) are cut at ±180° "
                f"into multi-part geometries, one feature each (RFC 7946 §3.1.9)",
                lonlat_only=fmt != "geojson",
            )
        if wound and fmt == "geojson":
            # A line over +-180 is wrong in any CRS; a ring's order is the standard's, binding when the
            # request speaks of how the data draws.
            b.reading(_sentence_at(request, drawing.start()) if drawing else _output_words(b, out), sure=bool(drawing))
            b.add(
                out,
                "rfc7946_winding",
                f"polygon rings follow RFC 7946's right-hand rule: exteriors counter-clockwise, holes clockwise "
                f"(the input's are wound the other way: {wound})",
            )


_IDENTIFIER = re.compile(r"(?:^|_)(?:id|code|key|uuid|ref|fid|no)$", re.IGNORECASE)


def _number_rules(b: _Builder, request: str, outputs: list[str], inputs: dict[str, dict]) -> None:
    """A request about numbers or types, over an input that writes numbers as text ("84.55"): in
    every typed output (not CSV, which has no types) that carries such a column, it holds numbers.
    When the request says which of them are numbers ("pm25 is stored as text, treat it as a
    number"), an identifier written in digits that it does not say so of ("station_id": "62") stays
    as the input writes it: a code is not a quantity. A request that names none ("fix whatever keeps
    the numbers from working") means them all."""
    words = _FILE.sub(" ", request)
    for path, facts in inputs.items():
        as_text = (facts.get("defects") or {}).get("numbers_as_text") or {}
        columns = set(facts.get("columns") or []) | set(as_text)
        said_numeric = {n for n in as_text if _NUMERIC_WORDS.search(_said_of(words, n, columns))}
        for name, kind in as_text.items():
            if said_numeric and name not in said_numeric and _IDENTIFIER.search(name):
                continue
            for out in outputs:
                if _format(out) in ("csv", "unknown"):
                    continue
                b.reading(_output_words(b, out))
                if kind == "integer":
                    b.add(
                        out,
                        "integer",
                        f"`{name}` holds integers, not text (`{path}` writes them as strings)",
                        name=name,
                        if_present=True,
                    )
                else:
                    b.add(
                        out,
                        "numeric",
                        f"`{name}` holds numbers, not text (`{path}` writes them as strings)",
                        name=name,
                        if_present=True,
                    )


def _named_inputs(request: str, input_by_base: dict[str, str]) -> list[str]:
    """The input files the request names, once each, in its order."""
    return list(dict.fromkeys(input_by_base[_base(f)] for f in _files(request) if _base(f) in input_by_base))


def _whole_layer(request: str, inputs: dict[str, dict], named: list[str]) -> dict | None:
    """{"input", "epsg"?, "wkt"?} when the request asks for the bounding box of a whole layer ("the
    overall bounding box") and names (``named``) one input with geometries (a layer, or a table with
    a WKT column: ``wkt`` names it, for the mend)."""
    if not _WHOLE_BBOX.search(request):
        return None
    geometric = [p for p in named if _format(p) in SPATIAL or (inputs[p].get("defects") or {}).get("wkt_text")]
    if len(geometric) != 1:
        return None
    codes = {int(c) for c in _EPSG.findall(request)}
    wkt = (inputs[geometric[0]].get("defects") or {}).get("wkt_text") if _format(geometric[0]) not in SPATIAL else None
    return {
        "input": geometric[0],
        **({"epsg": codes.pop()} if len(codes) == 1 else {}),
        **({"wkt": str(wkt[0])} if wkt else {}),
    }


# Words of a request that asks for new shapes, not only for where they are drawn (reprojection) or
# how they are stored (single parts, layers by type): then no feature need keep its input's shape.
_RESHAPES = re.compile(
    r"\b(?:buffer(?:s|ed|ing)?|simplif\w*|generali[sz]\w*|smooth\w*|clip(?:s|ped|ping)?|dissolv\w*|"
    r"merg(?:e|es|ed|ing)|union\w*|unif(?:y|ies|ied|ying|ication)|intersect\w*|overlap\w*|overlay\w*|difference\w*|"
    r"centroids?|centres?|centers?|hulls?|envelopes?|bounding|bbox\w*|extents?|grids?|gridded|hexag\w*|tessell\w*|"
    r"voronoi|delaunay|snap(?:s|ped|ping)?|densif\w*|round(?:ed|ing)?|precision|aggregat\w*|combin\w*|"
    r"cut(?:s|ting)?|antimeridian|dateline|repair\w*|fix(?:es|ed|ing)?|valid\w*|invalid\w*|interpolat\w*|"
    r"sampl(?:e|es|ed|ing)|rasteri[sz]\w*|vectori[sz]\w*|contours?|isochrones?|nearest|closest|"
    r"connect(?:s|ed|ing)?|label\w*|representative|offset\w*|shift\w*|translat\w*|rotat\w*|scal(?:e|ed|ing)|"
    r"orient\w*|winding|revers\w*|trim\w*|extend\w*|polygoni[sz]\w*|outlines?|boundar\w*|segment\w*)\b",
    re.IGNORECASE,
)
# A change of geometry kind ("convert the parcels to points", "their vertices") is a reshaping too.
_NEW_KIND = re.compile(
    r"\b(?:to|into|as)\s+(?:\w+\s+)?(?:points?|lines?|linestrings?|polygons?)\b|"
    r"\b(?:vertic\w*|vertex|nodes?|endpoints?|midpoints?|exteriors?|interiors?)\b",
    re.IGNORECASE,
)
# A grid that names a CRS ("Egypt's national grid") draws, it does not reshape.
_CRS_GRID = re.compile(
    r"\b(?:national|official|metric|projected|coordinate|map|state\s+plane)\s+grids?\b", re.IGNORECASE
)


def _one_value_per_cell(b: _Builder, outputs: list[str]) -> None:
    """Every table the request asks for holds one value per cell (no request asks for a printed
    column in a cell)."""
    for out in outputs:
        if _format(out) in ("csv", "json", "parquet"):
            b.reading(_output_words(b, out))
            b.add(out, "one_value_per_cell", "one value per cell (no printed pandas column in a cell)")


# What one sentence does not decide, only a whole request: that the file exists; that shapes are
# kept (the request's silence on reshaping).
WHOLE_REQUEST_KINDS = ("exists", "shapes_kept", "crs_present", "located", "one_value_per_cell")
# "discard any polygon fragments smaller than 1 m²", "drop parcels under 0.5 ha"
_SMALL_DROPPED = re.compile(
    r"\b(?:discard|drop|remov|delet|exclud|filter(?:ing)?\s+out|get(?:ting)?\s+rid\s+of|eliminat)\w*\b[^.;]{0,80}?"
    r"\b(?:smaller|less|below|under|tinier)(?:\s+than)?\s+(?P<n>\d+(?:\.\d+)?)\s*"
    r"(?P<unit>m²|m2|sq\.?\s*m|square\s+met(?:re|er)s?|ha|hectares?|km²|km2|sq\.?\s*km|square\s+kilomet(?:re|er)s?)(?!\w)",
    re.IGNORECASE,
)
_AREA_UNIT = {"m": 1.0, "h": 1e4, "k": 1e6}  # by the unit's first letter (m², ha, km²); "sq m", "square metres"


def _min_area_rules(b: _Builder, request: str, outputs: list[str]) -> None:
    """Polygons the request discards below an area ("discard any polygon fragments smaller than 1 m²"):
    none is left in a spatial output (slivers left in break no other requirement)."""
    for m in _SMALL_DROPPED.finditer(request):
        unit = m.group("unit").lower().replace("square", "").replace("sq", "").strip(" .")
        factor = _AREA_UNIT.get(unit[:1], 1.0)
        said = f"{m.group('n')} {m.group('unit')}"
        b.reading(_sentence_at(request, m.start()))
        for out in outputs:
            if _format(out) in SPATIAL:
                b.add(
                    out,
                    "min_area",
                    f"no polygon is smaller than {said} (those are discarded)",
                    m2=float(m.group("n")) * factor,
                    said=said,
                )


_SHAPE_RULED = ("geometry_unchanged", "antimeridian_cut", "geometries_valid", "buffer_distance")


def _families(kinds: Iterable[str]) -> set[str]:
    """point / line / polygon of OGC type names (``MultiPolygon`` is a polygon)."""
    return {k.strip().lower().removeprefix("multi").replace("linestring", "line") for k in kinds if k.strip()}


def _shape_rules(b: _Builder, request: str, outputs: list[str], inputs: dict[str, dict], named: list[str]) -> None:
    """A request that moves or restores no shape ("give me back `x.gpkg` with three layers ... single-part,
    national grid") keeps each feature's shape: every feature of a spatial output, back in the one
    spatial input's CRS, is one of that input's features or one of their parts (a simplification in
    degrees breaks no other requirement). The request asks for nothing that makes new shapes, so a
    right answer has none; of an input with several layers the check cannot tell which layer a
    feature comes from, so there it is an unsure reading: shown, never gating."""
    spatial = [p for p in (named or list(inputs)) if _format(p) in SPATIAL]
    words = _CRS_GRID.sub(" ", _FILE.sub(" ", request))
    if len(spatial) != 1 or _RESHAPES.search(words) or _NEW_KIND.search(words):
        return
    had = _families(str(inputs[spatial[0]].get("geometry_type") or "").split(","))
    one_layer = (inputs[spatial[0]].get("layers") or 1) == 1
    for out in outputs:
        # Left alone (geometry_unchanged says more) or reshaped by a rule (cut at +-180, repaired, buffered).
        ruled = any(r.output == out and r.kind in _SHAPE_RULED for r in b.requirements)
        # Kinds asked for that the input has none of (polygons from points) are new shapes.
        asked = [
            _families(r.params.get("allowed") or [])
            for r in b.requirements
            if r.output == out and r.kind == "geometry_types"
        ]
        if _format(out) in SPATIAL and not ruled and not any(had and not (kinds & had) for kinds in asked):
            b.reading(_output_words(b, out), sure=one_layer)
            b.add(
                out,
                "shapes_kept",
                f"each feature keeps its shape from `{spatial[0]}` (reprojected or split into "
                "single parts where asked; not simplified, buffered or moved)",
                input=spatial[0],
            )


def _consistent(b: _Builder, inputs: dict[str, dict], request: str) -> None:
    """Requirements that contradict each other, or the request's own words, cannot all hold on a
    right answer; the one with less support is left an unsure reading (shown, not gating):
    - geometry left as the input has it, and a CRS other than the input's ("leave the geometry
      alone ... in EPSG:3857"): the first;
    - geometry left as it is, and an input's drawing defect mended (cut at +-180, rings rewound):
      the mend, which the user's words override;
    - a JSON list and a JSON object both said of one document's top level: both;
    - every input row kept once, where the request says the output has another number of rows
      ("3 rows per address", "360 rows", "long format"): the rows requirement;
    - the nearest feature's attribute or distance, where the request caps the distance ("only if
      it's 3 km away or less"): beyond the cap a row holds a placeholder, so those do not gate."""
    for r in b.requirements:
        if r.kind != "geometry_unchanged" or not r.sure:
            continue
        own = inputs.get(str(r.params.get("input")), {}).get("epsg")
        moved = [
            c
            for c in b.requirements
            if c.output == r.output
            and c.sure
            and (c.kind == "crs_projected_metres" or (c.kind == "crs_epsg" and c.params.get("epsg") != own))
        ]
        if moved:
            r.sure = False
    kept = {r.output for r in b.requirements if r.kind == "geometry_unchanged" and r.sure}
    capped = {r.output for r in b.requirements if r.kind == "distance_cap"} | (
        set(b.outputs) if _NEAREST_CAP.search(request) else set()
    )
    shapes: dict[str, set[str]] = {}
    for r in b.requirements:
        if r.sure and r.kind == "json_shape":
            shapes.setdefault(r.output, set()).add(str(r.params.get("shape")))
    several = len(b.outputs) > 1
    for r in b.requirements:
        if r.kind in ("antimeridian_cut", "rfc7946_winding") and r.output in kept:
            r.sure = False
        elif r.kind in ("nearest_attribute", "nearest_distance") and r.output in capped:
            r.sure = False
        elif r.kind == "json_shape" and len(shapes.get(r.output, ())) > 1:
            r.sure = False
        elif r.kind == "rows_as_input" and _other_row_count(_output_words(b, r.output) if several else request, r):
            r.sure = False


# A cap on the nearest feature ("only if it's 3 km away or less", "if the nearest is further than
# that", "no farther than 500 m"): beyond it a row holds a placeholder, not the nearest feature.
_DISTANCE_WORDS = r"\d+(?:\.\d+)?\s*(?:m|km|metres?|meters?|kilomet(?:re|er)s?)\b"
_NEAREST_CAP = re.compile(
    rf"\b(?:further|farther)\s+(?:away\s+)?than\s+(?:that|{_DISTANCE_WORDS})|"
    rf"\bno\s+(?:farther|further)\s+(?:away\s+)?than\s+{_DISTANCE_WORDS}|\bat\s+most\s+{_DISTANCE_WORDS}\s+away\b|"
    rf"{_DISTANCE_WORDS}\s+away\s+or\s+(?:less|closer|nearer)\b|\bonly\s+if\b[^.;]{{0,40}}{_DISTANCE_WORDS}",
    re.IGNORECASE,
)
_ROWS_SAID = re.compile(r"\b(\d[\d,]*)\s+(?:rows|lines|records)\b", re.IGNORECASE)
_ROWS_EACH = re.compile(
    r"\b(\d+|two|three|four|five|six|seven|eight|nine|ten)\s+(?:rows|lines|records)\s+"
    r"(?:per|for\s+each|for\s+every|each|an?)\b|\blong\s+(?:format|form|table|shape)\b",
    re.IGNORECASE,
)


def _other_row_count(words: str, r: Requirement) -> bool:
    """Whether ``words`` give the output a row count other than the input's ``rows``."""
    rows = r.params.get("rows")
    said = [int(m.group(1).replace(",", "")) for m in _ROWS_SAID.finditer(words)]
    return bool(_ROWS_EACH.search(words)) or any(n != rows for n in said)


# Words of a request about coordinates: with any of them, the output's CRS is the request's business.
_CRS_WORDS = re.compile(
    r"\b(?:crs|epsg|srid|projections?|project(?:ed|ing)?|re-?project\w*|coordinate|datum|grid|utm|mercator|wgs\s?-?84|"
    r"lon(?:gitude)?|lat(?:itude)?|degrees?|geodesic|ellipsoid\w*)\b",
    re.IGNORECASE,
)
# Words about measures: an input in degrees may be reprojected to measure them, and a right answer may
# keep the metric CRS it measured in; an input already in metres is measured where it is.
_MEASURE_WORDS = re.compile(
    r"\b(?:metres?|meters?|metric|km|kilomet\w*|m2|m²|km2|km²|hectares?|ha|feet|"
    r"area\w*|length\w*|distance\w*|buffer\w*|perimeter\w*|nearest|closest|within)\b",
    re.IGNORECASE,
)


def _in_metres(epsg: int) -> bool:
    """Whether EPSG:``epsg`` is a projected CRS whose axes are in metres (pyproj's database)."""
    try:
        crs = pyproj.CRS.from_epsg(epsg)
    except pyproj.exceptions.CRSError:
        return False
    return crs.is_projected and all(a.unit_name in ("metre", "meter") for a in crs.axis_info)


_ASKING = re.compile(
    r"\b(?:can|could)\s+(?:i|we|you)\b|\b(?:i|we)(?:'d|\s+would)?\s+(?:need|want|like)\b", re.IGNORECASE
)


def _crs_asked_of_an_input(b: _Builder, request: str, outputs: list[str], inputs: dict[str, dict]) -> None:
    """ "Can I have `in.geojson` in EPSG:31256? `out.geojson`.": a sentence asking for the one input
    in a CRS it is not in asks it of the one spatial output (when nothing else said its CRS)."""
    spatial = [o for o in outputs if _format(o) in SPATIAL]
    if len(spatial) != 1 or any(r.output == spatial[0] and r.kind.startswith("crs_") for r in b.requirements):
        return
    by_base = {_base(p): p for p in inputs}
    for sentence in _SENTENCE.split(request):
        named = [by_base[_base(f)] for f in _files(sentence) if _base(f) in by_base]
        codes = {int(c) for c in _EPSG.findall(_affirmed(sentence))}
        if len(named) != 1 or len(codes) != 1 or not _ASKING.search(sentence) or len(_files(sentence)) != 1:
            continue
        code = codes.pop()
        if code != inputs[named[0]].get("epsg"):
            b.reading(sentence, True)
            b.add(spatial[0], "crs_epsg", f"is in EPSG:{code}", epsg=code)
            return


def _crs_kept_rules(b: _Builder, request: str, outputs: list[str], inputs: dict[str, dict], named: list[str]) -> None:
    """A GeoPackage, GeoParquet (…) made from layers of one CRS by a request that speaks of no
    coordinates (clean, fix, deduplicate, split, convert the format) stays in that CRS; so does one
    that speaks of measures when that CRS is already in metres. GeoJSON is left out: RFC 7946 asks
    for lon/lat, so either may be right."""
    own = _input_epsg({p: inputs[p] for p in (named or list(inputs)) if p in inputs})
    words = _FILE.sub(" ", request)
    if not own or _CRS_WORDS.search(words) or (_MEASURE_WORDS.search(words) and not _in_metres(own)):
        return
    for out in outputs:
        crs_said = any(
            r.output == out and r.kind.startswith("crs_") and r.kind != "crs_present" for r in b.requirements
        )
        if _format(out) in SPATIAL - {"geojson"} and not crs_said:
            b.reading(_output_words(b, out))
            b.add(out, "crs_epsg", f"stays in the input's CRS (EPSG:{own}): the request asks for no other", epsg=own)


def _place_rules(b: _Builder, outputs: list[str], inputs: dict[str, dict], named: list[str]) -> None:
    """What every spatial output is, unless the request says otherwise: in a declared CRS (GeoJSON's is
    always lon/lat), and where its inputs are (a deliverable made from the data lies where the data does)."""
    spatial = [p for p in (named or list(inputs)) if inputs.get(p, {}).get("bounds_wgs84")]
    boxes = [inputs[p]["bounds_wgs84"] for p in spatial]
    for out in outputs:
        fmt = _format(out)
        if fmt not in SPATIAL:
            continue
        b.reading(_output_words(b, out))
        if fmt != "geojson":
            b.add(out, "crs_present", "declares its CRS")
        if boxes and all(w <= e for w, _, e, _ in boxes):
            bounds = [
                min(x[0] for x in boxes),
                min(x[1] for x in boxes),
                max(x[2] for x in boxes),
                max(x[3] for x in boxes),
            ]
            b.add(
                out,
                "located",
                f"lies where its input data lies ({', '.join(f'`{p}`' for p in spatial)})",
                bounds=bounds,
            )


# Words that pick some features of a layer ("only the markers", "whose kind starts with ...").
_SELECTION = re.compile(
    r"\b(?:only|filter\w*|select\w*|subset|where|whose|(?:which|that)\s+(?:are|is|have|has)|starting\s+with|"
    r"of\s+type|excluding|except)\b",
    re.IGNORECASE,
)


def _buffer_rules(b: _Builder, request: str, outputs: list[str], named: list[str]) -> None:
    """A buffer at one distance the request states ("a 400 m buffer around every connector"), of
    the one spatial input it names, into its one spatial output: the file's polygons cover what that
    input buffered by the distance in true metres covers (not degrees, not Web Mercator's metres,
    not twice the distance)."""
    distances = set()
    for m in _BUFFER.finditer(request):
        b.reading(_sentence_at(request, m.start()))
        value, unit = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        distances.add(float(value) * (1000.0 if unit.lower().startswith("k") else 1.0))
    spatial_out = [o for o in outputs if _format(o) in SPATIAL]
    spatial_in = [p for p in named if _format(p) in SPATIAL]
    if len(distances) != 1 or len(spatial_out) != 1 or len(spatial_in) != 1:
        return
    distance = distances.pop()
    selected = bool(_SELECTION.search(_FILE.sub(" ", request)))  # compared with the features buffered, not all
    b.add(
        spatial_out[0],
        "buffer_distance",
        f"its polygons cover what the {'chosen ' if selected else ''}features of `{spatial_in[0]}` buffered by "
        f"{distance:g} m cover (true metres, measured in a projected CRS made for the data)",
        input=spatial_in[0],
        distance_m=distance,
        **({"selected": True} if selected else {}),
    )


# "distance_m", "nearest_dist_km", "distance_to_hospital_m": a distance in the unit its name ends with.
_DISTANCE_UNIT = re.compile(r"(?:^|_)(?:dist|distance)(?:_\w+)?_(m|km)$", re.IGNORECASE)
_NEAREST = re.compile(r"\b(?:nearest|closest)\b", re.IGNORECASE)
_ALONG_A_NETWORK = re.compile(
    r"\b(?:road|roads|network|driving|drive|walking|walk|travel|route|routing|isochrones?)\b", re.IGNORECASE
)


_K_NEAREST = re.compile(
    r"\b(?:two|three|four|five|six|seven|eight|nine|ten|\d+|k|several|few)\s+(?:nearest|closest)\b", re.IGNORECASE
)
_FOR_EACH = re.compile(r"\b(?:for\s+)?(?:every|each)\s+([a-z]+)\b", re.IGNORECASE)


def _nearest_distance_rules(b: _Builder, request: str, inputs: dict[str, dict], named: list[str]) -> None:
    """A distance column ("distance_m") of an output with one row per feature of one named layer,
    when the request asks for the nearest feature of the one other named layer: each value is the
    straight-line distance from the row's feature to its nearest feature of that layer, in the unit
    the name says (a distance of each geometry to itself, 0.0 everywhere, is finite and >= 0 but no
    distance to anything). Never for the k nearest, whose second and third are not the nearest."""
    layers = [p for p in named if p in inputs and (_layer_kinds(inputs[p]) or _lonlat_wkt(inputs[p]))]
    if (
        len(layers) != 2
        or not _NEAREST.search(request)
        or _ALONG_A_NETWORK.search(request)
        or _K_NEAREST.search(request)
    ):
        return  # a distance along roads is not a straight line; the second nearest is not the nearest
    each = [p for m in _FOR_EACH.finditer(request) for p in layers if _noun_names(m.group(1).lower().rstrip("s"), p)]
    for req in [r for r in b.requirements if r.kind == "columns"]:
        b.reading(req.said, req.sure)
        source = next(
            (
                r.params["input"]
                for r in b.requirements
                if r.kind == "rows_as_input" and r.output == req.output and r.params.get("input") in layers
            ),
            None,
        )
        if source is None and len(set(each)) == 1:  # "for every address ...": the addresses' rows
            source = each[0]
        to = next((p for p in layers if p != source), None)
        if not (source and to):
            continue
        for name in req.params["names"]:
            unit = _DISTANCE_UNIT.search(name) or _distance_said(name, request)
            if unit:
                b.add(
                    req.output,
                    "nearest_distance",
                    f"`{name}` is the straight-line distance in "
                    f"{_UNIT_WORDS[unit.group(1).lower()]} from each feature of `{source}` "
                    f"to the nearest feature of `{to}`",
                    name=name,
                    unit=unit.group(1).lower(),
                    input=source,
                    to=to,
                )
                continue
            column = _column_of_layer(name, to, inputs)
            if column:  # `nearest_hospital_name`: the nearest hospital's `name`, not any hospital's
                b.add(
                    req.output,
                    "nearest_attribute",
                    f"`{name}` is the `{column}` of the nearest feature of `{to}` to each feature of `{source}`",
                    name=name,
                    column=column,
                    input=source,
                    to=to,
                )


_UNIT_SUFFIX = re.compile(r"_(m|km)$", re.IGNORECASE)


def _lonlat_wkt(facts: dict) -> bool:
    """A table whose geometry is WKT text in one column, in lon/lat (the checks read it as a layer)."""
    return len((facts.get("defects") or {}).get("wkt_text") or []) == 1 and bool(facts.get("bounds_wgs84"))


def _distance_said(name: str, request: str) -> re.Match | None:
    """The unit of a column named by its unit whose name or description says it is the distance to
    the nearest ("nearest_hospital_m", "gap_km (distance to the closest station)")."""
    unit = _UNIT_SUFFIX.search(name)
    if not unit:
        return None
    if re.match(r"(?:nearest|closest)_", name, re.IGNORECASE):
        return unit
    described = re.search(rf"`?{re.escape(name)}`?\s*\(([^()]{{0,120}})\)", request)
    said = described.group(1) if described else ""
    return unit if re.search(r"\bdistance\b", said) and _NEAREST.search(said) else None


def _column_of_layer(name: str, layer: str, inputs: dict[str, dict]) -> str | None:
    """The column of ``layer`` a requested ``name`` carries, as its provenance says: its own name when
    only that input has it, or a joined column renamed (``nearest_hospital_name`` <- ``name`` of
    ``hospitals.parquet``); None otherwise."""
    carried = carried_from(name, column_provenance(name, inputs))
    return carried[1] if carried and carried[0] == layer else None


_GENERIC_COUNTED = {"", "point", "feature", "record", "row", "item", "count", "total"}


def _point_count_rules(b: _Builder, outputs: list[str], inputs: dict[str, dict], named: list[str]) -> None:
    """A count column ("station_count", "n_stations") of a table when the request names one polygon
    layer and the point layer counted (the one whose name holds the count's noun, or the only one):
    each row's value is the number of those points inside its polygon, every polygon with a row (a
    count taken by location, which no attribute of the points can stand in for)."""
    kinds = {p: _layer_kinds(inputs[p]) for p in named if p in inputs}
    polygons = [p for p, k in kinds.items() if k and k <= {"Polygon", "MultiPolygon"}]
    points = [p for p, k in kinds.items() if k and k <= {"Point", "MultiPoint"}]
    if len(polygons) != 1 or not points:
        return
    for req in [r for r in b.requirements if r.kind == "columns" and _format(r.output) != "json"]:
        b.reading(req.said, req.sure)
        for name in req.params["names"]:
            if not _COUNT_NAME.search(name) or _PER_GROUP.match(name):
                continue
            noun = re.sub(r"(^|_)(count|n|num|number)(_|$)", "_", name.lower()).strip("_").rstrip("s")
            counted = [p for p in points if noun and noun in _base(p).lower()]
            if not counted and noun in _GENERIC_COUNTED and len(points) == 1:
                counted = points
            if len(counted) == 1:
                b.add(
                    req.output,
                    "point_counts",
                    f"`{name}` is the number of `{counted[0]}` points inside each polygon "
                    f"of `{polygons[0]}` (a row for every polygon, 0 where none)",
                    name=name,
                    points=counted[0],
                    polygons=polygons[0],
                    **_polygon_key(req.params["names"], inputs[polygons[0]].get("columns") or []),
                )


def _polygon_key(names: list[str], columns: list[str]) -> dict[str, str]:
    """{"key": the polygons' column a count table keys its rows by} — the first of the output's
    columns the polygon layer has — or {} when none: the advice's code names the real column, since
    a small model copies a placeholder name as it stands."""
    key = next((n for n in names if n in columns), None)
    return {"key": key} if key else {}


def _density_rules(b: _Builder) -> None:
    """A rate per unit of a measure beside its count and its measure in the same file
    ("stations_per_10km2" with `station_count` and `area_km2`): each row's value is the count over
    the measure, scaled to the unit the name says (not the count over 10, not per km² when it
    says per 10 km²)."""
    for req in [r for r in b.requirements if r.kind == "columns"]:
        b.reading(req.said, req.sure)
        names = req.params["names"]
        for name in names:
            m = _DENSITY.match(name)
            if not m:
                continue
            noun, scale, unit = m.group(1).lower().rstrip("s"), float(m.group(2) or 1), m.group(3).lower()
            counts = [n for n in names if n != name and _COUNT_NAME.search(n) and noun in n.lower()]
            measures = [
                (n, u.group(2).lower())
                for n in names
                if (u := _MEASURE_UNIT.match(n))
                and (u.group(1).lower() == "area") == (unit not in ("km", "m"))
                and (u.group(2).lower() in ("km", "m")) == (unit in ("km", "m"))
            ]
            if len(counts) != 1 or len(measures) != 1:
                continue
            measure, measure_unit = measures[0]
            factor = scale * UNIT_IN_BASE[unit] / UNIT_IN_BASE[measure_unit]  # value = count / measure * factor
            said = f"{m.group(2) or ''} {_UNIT_WORDS[unit]}".strip()
            b.add(
                req.output,
                "density",
                f"`{name}` is `{counts[0]}` per {said} of `{measure}` (`{counts[0]}` / `{measure}` × {factor:g})",
                name=name,
                count=counts[0],
                measure=measure,
                factor=factor,
            )


def _group_column(name: str, inputs: dict[str, dict]) -> tuple[str, str] | None:
    """(column, input) that "count_per_district" is keyed by: `district` (or `district_name`,
    `_id`, `_code`; a plural's singular too) in exactly one input."""
    m = _PER_GROUP.match(name)
    if not m:
        return None
    group = m.group(1).lower()
    for stem in dict.fromkeys((group, group.rstrip("s"))):
        for column in (stem, f"{stem}_name", f"{stem}_id", f"{stem}_code"):
            holders = [p for p, facts in inputs.items() if column in (facts.get("columns") or [])]
            if len(holders) == 1:
                return column, holders[0]
            if holders:
                return None
    return None


def _name_rules(
    b: _Builder,
    outputs: list[str],
    inputs: dict[str, dict] | None = None,
    whole_layer: dict | None = None,
    request: str = "",
) -> None:
    """What a requested name itself says: lon/lat values, bounding boxes (of the whole layer when
    the request says so: ``whole_layer``), counts, measures, a JSON value per group keyed by the
    group column's values ("count_per_district"), and a measure's unit ("area_km2": each feature's
    area in km², checked against the geodesic area of the feature — its own geometry, or the input
    feature it stands for — when one spatial input has geometries of that measure: polygons for
    area and perimeter, lines for length)."""
    inputs = inputs or {}
    spatial = [p for p in inputs if _format(p) in SPATIAL]
    for req in [r for r in b.requirements if r.kind == "columns"]:
        b.reading(req.said, req.sure)
        for name in req.params["names"]:
            out = req.output
            if (out, name) in b.carried:
                continue  # the input's column as it is: whatever its values, they are the ones asked for
            is_bbox = "bbox" in name.lower() or "bounds" in name.lower()
            if is_bbox and whole_layer:
                b.add(
                    out,
                    "bbox",
                    f"`{name}` is [minx, miny, maxx, maxy] of the whole layer of "
                    f"`{whole_layer['input']}` (every feature)",
                    name=name,
                    **whole_layer,
                )
            elif is_bbox:
                b.add(out, "bbox", f"`{name}` is [minx, miny, maxx, maxy] with min <= max", name=name)
            grouped = _group_column(name, inputs) if _format(out) == "json" else None
            if grouped:
                counts = bool(_COUNT_NAME.search(name))  # "count_per_district": each group's number of rows
                b.add(
                    out,
                    "group_keys",
                    f"`{name}` is an object with one key per value of `{grouped[0]}` in "
                    f"`{grouped[1]}` (groups with none too)" + (", each its number of rows" if counts else ""),
                    name=name,
                    column=grouped[0],
                    input=grouped[1],
                    **({"counts": True} if counts else {}),
                )
            if _LONLAT_NAME.search(name):
                b.add(out, "lonlat", f"`{name}` holds longitude/latitude values (WGS84 degrees)", name=name)
            elif _COUNT_NAME.search(name) and not is_bbox:
                b.add(out, "integer", f"`{name}` holds integer counts", name=name)
            elif _MEASURE_NAME.search(name):
                b.add(out, "non_negative", f"`{name}` is a finite number >= 0", name=name)
            unit = _MEASURE_UNIT.match(name)
            said_area = _AREA_SUFFIX.match(name) if not unit and request else None
            if said_area and not _area_said_of_each(_sentence_naming(request, name)):
                said_area = None
            if unit or said_area:
                measure, code = (
                    (unit.group(1).lower(), unit.group(2).lower())
                    if unit
                    else ("area", said_area.group(1) if said_area else "")
                )
                measured = [
                    p
                    for p in spatial  # the inputs with geometries of that measure: one, or which is open
                    if any(k in str(inputs[p].get("geometry_type") or "") for k in _MEASURED_TYPES[measure])
                ]
                summary = re.match(r"(total|sum|mean|avg|average|median|min|max|overall)_", name, re.IGNORECASE)
                if (code in ("km", "m")) == (measure != "area") and len(measured) == 1 and not summary:
                    # a JSON value may be one summary; a key of the records of a list the request sketches is a row's
                    b.reading(req.said, req.sure and (_format(out) != "json" or _in_sketched_records(request, name)))
                    b.add(
                        out,
                        "measure_units",
                        f"`{name}` is each feature's {measure} in {_UNIT_WORDS[code]} "
                        "(as on the ellipsoid: not in degrees, not in another unit)",
                        name=name,
                        measure=measure,
                        unit=code,
                        input=measured[0],
                    )


# A measure's unit as words say it after "in" ("in international acres", "in square metres", "in km²")
_UNIT_IN_WORDS = [
    (r"(?:international\s+|statute\s+|us\s+)?acres?", "acre"),
    (r"square\s+(?:feet|foot)|sq\.?\s*ft|ft²|ft2", "ft2"),
    (r"square\s+miles?|sq\.?\s*mi|mi²|mi2", "mi2"),
    (r"hectares?|ha", "ha"),
    (r"square\s+kilomet(?:re|er)s?|sq\.?\s*km|km²|km2", "km2"),
    (r"square\s+met(?:re|er)s?|sq\.?\s*m|m²|m2", "m2"),
    (r"kilomet(?:re|er)s?|km", "km"),
    (r"met(?:re|er)s?|m", "m"),
    (r"miles?", "mi"),
    (r"feet|ft", "ft"),
]
_IN_UNIT = re.compile(
    r"\bin\s+(?:the\s+)?(?:" + "|".join(f"(?P<u{i}>{w})" for i, (w, _) in enumerate(_UNIT_IN_WORDS)) + r")(?![\w²])",
    re.IGNORECASE,
)
_AREA_UNITS_SAID = {"acre", "ft2", "mi2", "ha", "km2", "m2"}
# What a description says is measured: the feature's area, its outline, or its length.
_MEASURE_SAID = [
    (re.compile(r"\b(?:area|footprint|surface)\b", re.IGNORECASE), "area"),
    (re.compile(r"\b(?:perimeter|outline|boundary|circumference)\b", re.IGNORECASE), "perimeter"),
    (re.compile(r"\blength\b|\blong\b", re.IGNORECASE), "length"),
]


# A measure named with an imperial unit ("area_acres", "perimeter_ft", "length_mi")
_IMPERIAL_NAME = re.compile(
    r"^(?:\w+_)?(area|length|perimeter)_(acres?|ac|sqft|ft2|sqmi|mi2|mi|miles|ft|feet)$", re.IGNORECASE
)
_IMPERIAL_CODE = {
    "acres": "acre",
    "acre": "acre",
    "ac": "acre",
    "sqft": "ft2",
    "ft2": "ft2",
    "sqmi": "mi2",
    "mi2": "mi2",
}
_IMPERIAL_CODE.update({"mi": "mi", "miles": "mi", "ft": "ft", "feet": "ft"})


def _described_measures(b: _Builder, request: str, inputs: dict[str, dict]) -> None:
    """A column whose name does not give its unit and whose own description says it is the feature's
    area, perimeter or length "in <unit>" ("surface (the lake's area in acres)", "size:
    the footprint in square feet"): each value is that measure in that unit, as ``_name_rules`` reads
    a unit in a name. Never when the description sums, shares or clips (``_PART_OR_SUM``)."""
    spatial = [p for p in inputs if _format(p) in SPATIAL]
    for req in [r for r in b.requirements if r.kind == "columns"]:
        for name in req.params["names"]:
            out = req.output
            if (out, name) in b.carried or _MEASURE_UNIT.match(name) or name in _input_column_names(inputs):
                continue
            said = _said_of(request, name, req.params["names"])[:160]
            units = {
                code for m in _IN_UNIT.finditer(said) for i, (_, code) in enumerate(_UNIT_IN_WORDS) if m.group(f"u{i}")
            }
            measures = {measure for pattern, measure in _MEASURE_SAID if pattern.search(said)}
            if measures == {"perimeter", "length"}:  # "the length of its outline": the perimeter
                measures = {"perimeter"}
            named = _IMPERIAL_NAME.match(name)  # "area_acres", "length_mi": the name says both
            if named:
                units, measures = {_IMPERIAL_CODE[named.group(2).lower()]}, {named.group(1).lower()}
            if len(units) != 1 or len(measures) != 1 or _PART_OR_SUM.search(said):
                continue
            unit, measure = units.pop(), measures.pop()
            if (unit in _AREA_UNITS_SAID) != (measure == "area"):
                continue
            measured = [
                p
                for p in spatial
                if any(k in str(inputs[p].get("geometry_type") or "") for k in _MEASURED_TYPES[measure])
            ]
            if len(measured) != 1:
                continue
            b.reading(req.said, req.sure and (_format(out) != "json" or _in_sketched_records(request, name)))
            b.add(
                out,
                "measure_units",
                f"`{name}` is each feature's {measure} in {_UNIT_WORDS[unit]} "
                "(as on the ellipsoid: not in degrees, not in another unit)",
                name=name,
                measure=measure,
                unit=unit,
                input=measured[0],
            )


def _input_column_names(inputs: dict[str, dict]) -> set[str]:
    return {c for facts in inputs.values() for c in facts.get("columns") or []}


def _in_sketched_records(request: str, name: str) -> bool:
    """Whether the request sketches a JSON list of records with the key ``name`` ('[{"code": ..,
    "area_km2": ..}, ...]'): one value per record, as a table's column, not one summary value."""
    key = rf"[\"'`]?\b{re.escape(name)}\b[\"'`]?\s*:"
    return any(re.search(key, m.group(0)) for m in re.finditer(r"\[\s*\{[^\[\]]*\]", request))


# A column named only by its unit ("footprint_m2", "floor_ha"): an area when its sentence says the
# area of each feature, and nothing narrows it to a part of the feature or a sum over several.
_AREA_SUFFIX = re.compile(r"^[a-z]\w*?_(km2|sqkm|m2|sqm|ha)$", re.IGNORECASE)
_AREA_OF_EACH = re.compile(
    r"\barea\b[^.;]{0,40}\b(?:each|every)\b|\b(?:each|every)\b[^.;]{0,40}\barea\b", re.IGNORECASE
)
_PART_OR_SUM = re.compile(
    r"\b(within|inside|overlap\w*|intersect\w*|cover\w*|share|fraction|percent\w*|sum|summed|total|mean|average|"
    r"median|per\s+(?!feature|building|polygon|row)\w+|buffer\w*|around|clip\w*)\b",
    re.IGNORECASE,
)


# The next name written as columns are ("name_en", "`pm25`"): where what is said of the name before it ends.
_NEXT_NAME = re.compile(r"`[^`]+`|\b[a-z][a-z0-9]*_[a-z0-9_]+\b")


def _said_of(request: str, name: str, columns: Iterable[str] = ()) -> str:
    """What the request says right after each mention of the column ``name``, up to the next name
    written as a column (or one of ``columns``) or the sentence's end ("station_id, name_en, pm25 (a
    number)" says nothing of ``station_id``; "pm25 is stored as text, treat it as a number" says
    "number" of ``pm25``)."""
    others = [re.escape(c) for c in sorted(columns, key=len, reverse=True) if c != name]
    next_name = re.compile(_NEXT_NAME.pattern + (rf"|(?<![\w`])(?:{'|'.join(others)})(?![\w`])" if others else ""))
    said = []
    for m in re.finditer(rf"(?<![\w`]){re.escape(name)}(?![\w`])|`{re.escape(name)}`", request):
        rest = request[m.end() : m.end() + 400]
        end = _SENTENCE.search(rest)
        rest = rest[: end.start()] if end else rest
        after = next_name.search(rest)
        said.append(rest[: after.start()] if after else rest)
    return " ".join(said)


def _sentence_naming(request: str, name: str) -> str:
    """The request's sentence that names ``name`` as a word ("" when none does)."""
    m = re.search(rf"(?<![\w`]){re.escape(name)}(?![\w`])|`{re.escape(name)}`", request)
    return _sentence_at(request, m.start()) if m else ""


def _area_said_of_each(sentence: str) -> bool:
    return bool(_AREA_OF_EACH.search(sentence)) and not _PART_OR_SUM.search(sentence)


# "the number of polygons", "count the localities", '"clinics": <int>': a column of whole counts.
_NOT_A_COUNT = re.compile(r"\s*(?:per|/|density|share|percent|ratio|rate)\b", re.IGNORECASE)


# "buildings: number of buildings", "\"n\": <the number of stations>", "named: how many have a name_primary"
_SUMMARY_COUNT = re.compile(
    r"[\"'`]?(?P<key>[A-Za-z_]\w*)[\"'`]?\s*(?::|=)\s*<?\s*(?:the\s+)?(?:(?:total\s+)?(?:number|count)\s+of\s+"
    r"(?:all\s+)?(?:the\s+)?(?P<noun>[a-z]+)(?P<after>[^\n,;>]{0,16})|how\s+many\s+(?:of\s+them\s+)?(?:have|has)\s+"
    r"(?:a|an|any)\s+(?:non-?(?:empty|blank)\s+)?`?(?P<column>[A-Za-z_]\w*)`?)",
    re.IGNORECASE,
)
# "number of towers taller than 50 m", "... in each ward": a count of some of them, or per group
_QUALIFIED = re.compile(
    r"\s*(?:per|in|of|on|at|with|that|which|who|whose|where|over|under|above|below|more|less|\w+er\s+than)\b",
    re.IGNORECASE,
)
# What makes a count of an input's features count fewer of them than it has
_COUNTS_FEWER = re.compile(
    r"\b(filter\w*|select\w*|only|exclud\w*|except|without|whose|where|dedup\w*|duplicat\w*|distinct|unique|"
    r"clip\w*|valid|invalid|within|inside|starting|per)\b",
    re.IGNORECASE,
)


def _summary_counts(b: _Builder, request: str, inputs: dict[str, dict]) -> None:
    """A JSON summary value the request defines as the number of the one input's features (the noun
    names that file), or of those with a value in one of its columns, equals that count; never when
    the request selects features."""
    with_rows = [p for p in inputs if inputs[p].get("rows") is not None]
    json_outs = [o for o in b.outputs if _format(o) == "json"]
    if len(with_rows) != 1 or len(json_outs) != 1:
        return
    source, facts = with_rows[0], inputs[with_rows[0]]
    for m in _SUMMARY_COUNT.finditer(request):
        if m.group("column"):
            if m.group("column") not in (facts.get("columns") or []):
                continue
            extra = {"non_empty": m.group("column")}
        elif _noun_names(_singular(m.group("noun")), source) and not _QUALIFIED.match(m.group("after")):
            extra = {}
        else:
            continue
        sentence = _sentence_at(request, m.start())
        if _COUNTS_FEWER.search(_FILE.sub(" ", re.sub(r"\bper[- ]\w+\s+rows\b", " ", request, flags=re.IGNORECASE))):
            return
        b.reading(sentence, True)
        b.add(
            json_outs[0],
            "count_of_input",
            f"`{m.group('key')}` is the number of features of `{source}`"
            + (f" with a `{m.group('column')}`" if m.group("column") else ""),
            name=m.group("key"),
            input=source,
            **extra,
        )


# "so that no facility is counted in two hexagons", "each school counted only once"
_ONCE = re.compile(
    r"\bno\s+[a-z]+\s+(?:is\s+|gets\s+|being\s+)?counted\s+(?:in\s+two|twice|more\s+than\s+once)|"
    r"\b(?:each|every)\s+[a-z]+\s+(?:is\s+)?counted\s+(?:only\s+|just\s+|exactly\s+)?once\b",
    re.IGNORECASE,
)
_QUOTED_VALUE = re.compile(r"[\"\u201c]([^\"\u201d\n]{1,40})[\"\u201d]")


def _counted_once(b: _Builder, request: str, inputs: dict[str, dict]) -> None:
    """Things the request says are counted once each: the output's one count column sums to at most
    as many as there are of them (the input's features of the categories the request quotes)."""
    m = _ONCE.search(request)
    if not m:
        return
    quoted = {v: _category_of(v, inputs) for v in _QUOTED_VALUE.findall(request)}
    columns = {c[0] for c in quoted.values() if c}
    if len(columns) != 1:
        return
    column = columns.pop()
    values = sorted(v for v, c in quoted.items() if c and c[0] == column)
    holders = [p for p, f in inputs.items() if column in (f.get("categories") or {})]
    if len(holders) != 1:
        return
    for out in b.outputs:
        counts = [
            r.params["name"]
            for r in b.requirements
            if r.output == out and r.kind == "integer" and r.sure and r.params.get("name") in b.columns_of(out)
        ]
        counts = [n for n in counts if n not in (inputs[holders[0]].get("columns") or [])]
        if len(counts) == 1:
            b.reading(_sentence_at(request, m.start()), True)
            b.add(
                out,
                "counted_once",
                f"`{counts[0]}` sums to at most the number of {' and '.join(values)} in `{holders[0]}`",
                name=counts[0],
                input=holders[0],
                column=column,
                values=values,
            )


def _said_counts(b: _Builder, request: str) -> None:
    """A column the request describes as a number of things holds whole numbers."""
    flat = " ".join(request.split())
    for req in [r for r in b.requirements if r.kind == "columns" and r.sure]:
        for name in req.params["names"]:
            word = re.escape(name)
            said = re.search(
                rf"(?<!average )(?<!mean )(?<!median )\b(?:number|count)\s+of\s+"
                rf"(?:the\s+)?`?{word}`?\b(?P<after>.{{0,12}})|"
                rf"\bcount(?:s|ing)?\s+(?:the\s+|all\s+)?`?{word}`?\b(?P<after2>.{{0,12}})|"
                rf"[\"']{word}[\"']\s*:\s*<\s*int(?:eger)?\s*>",
                flat,
                re.IGNORECASE,
            )
            if not said or _NOT_A_COUNT.match(said.group("after") or said.group("after2") or ""):
                continue
            b.reading(_sentence_at(flat, said.start()), True)
            b.add(req.output, "integer", f'`{name}` holds whole counts ("{said.group(0)[:40].strip()}")', name=name)


# "Keep hex_id", "keep every building with its feature_id", "retain `name` and `kind`": the input's
# columns the request says to keep are in the output. A name after a filtering word ("keep the rows
# whose kind ...", "with kind = 'x'", "without a name") says which rows, not which columns.
_KEEP_VERB = re.compile(r"\b(?:keep|keeping|retain|retaining|preserve|preserving|carry\s+over)\b", re.IGNORECASE)
_KEEP_CLAUSE_END = re.compile(r"[.;:!?]|\s(?:but|while|whereas|then|and\s+(?:then|write|save|export))\s", re.IGNORECASE)
_FILTER_WORD = re.compile(
    r"\b(?:where|whose|if|when|unless|that|which|having|without|no|not|except|only|rows?|records?|features?\s+(?:with|where))\b",
    re.IGNORECASE,
)
_COMPARED = re.compile(r"\s*(?:[<>=!]|is\b|are\b|equals?\b|of\b|above\b|below\b|over\b|under\b|greater\b|less\b|\d)")


def _kept_columns(b: _Builder, attributed: list[tuple[str, list[str], bool]], inputs: dict[str, dict]) -> None:
    """Input columns a sentence says to keep are required of the outputs it is about."""
    columns = {c for facts in inputs.values() for c in facts.get("columns") or []}
    for sentence, outs, sure in attributed:
        if not sure or not outs:
            continue
        for verb in _KEEP_VERB.finditer(sentence):
            tail = sentence[verb.end() :]
            end = _KEEP_CLAUSE_END.search(tail)
            clause = tail[: end.start()] if end else tail
            kept = []
            for m in re.finditer(r"`?([A-Za-z_]\w*)`?", clause):
                name = m.group(1)
                if name not in columns or name in kept:
                    continue
                if _FILTER_WORD.search(clause[: m.start()]) or _COMPARED.match(clause[m.end() :]):
                    break  # from here on the clause says which rows
                kept.append(name)
            if kept:
                b.reading(sentence, True)
                for out in outs:
                    b.add(out, "columns", f"has the columns {', '.join(kept)}", names=kept)


# A request to mend a file ("fix whatever breaks the averages", "clean it up", "repair the rings").
_MEND_VERB = re.compile(r"\b(?:fix|repair|clean|coerc|mend|sanitis|sanitiz)\w*", re.IGNORECASE)
# Words that make an output other than the mended file: fewer columns or rows, or other records.
_NOT_A_COPY = re.compile(
    r"\b(?:only|drop\w*|remov\w*|delet\w*|discard\w*|exclud\w*|without|select\w*|subset|rename\w*|"
    r"aggregat\w*|dissolv\w*|group\w*|per|summar\w*|count\w*|join\w*|merg\w*|split\w*|explod\w*|"
    r"clip\w*|dedup\w*|duplicat\w*|nearest|closest|buffer\w*|centroids?|table|report|list)\b",
    re.IGNORECASE,
)


def _mended_copy(b: _Builder, request: str, outputs: list[str], inputs: dict[str, dict], named: list[str]) -> None:
    """A request to mend one file into one file of the same kind, that names at most one of its
    columns and says nothing of fewer columns or rows, asks for the same records mended: every
    column of the input is still there (a WKT copy of the geometry aside)."""
    sources = [p for p in (named or list(inputs)) if inputs.get(p, {}).get("columns")]
    words = _FILE.sub(" ", request)
    if len(outputs) != 1 or len(sources) != 1 or not _MEND_VERB.search(words) or _NOT_A_COPY.search(words):
        return
    out, source = outputs[0], sources[0]
    if (_format(out) in SPATIAL) != (_format(source) in SPATIAL) or _format(out) == "json":
        return
    facts = inputs[source]
    wkt = set((facts.get("defects") or {}).get("wkt_text") or [])
    names = [c for c in facts["columns"] if c not in wkt]
    if not names or sum(bool(re.search(rf"\b{re.escape(c)}\b", words)) for c in names) > 1:
        return
    b.reading(_output_words(b, out))
    b.add(out, "columns", f"keeps every column of `{source}` ({', '.join(names)}): a mended copy", names=names)
    b.carried |= {(out, n) for n in names}


# Words that ask for a text column's values to change: then its values are no longer the input's.
_VALUES_CHANGE = re.compile(
    r"\b(?:fix\w*|repair\w*|clean\w*|correct\w*|mojibake|encod\w*|decod\w*|normali[sz]\w*|standardi[sz]\w*|"
    r"upper\w*|lower\w*|capitali[sz]\w*|title|trim\w*|strip\w*|translat\w*|renam\w*|replac\w*|recod\w*|"
    r"re-?map\w*|re-?format\w*|convert\w*|coerc\w*|abbreviat\w*|spell\w*|typos?|concat\w*|combin\w*|prefix\w*|suffix\w*)\b",
    re.IGNORECASE,
)


def _carried_text(b: _Builder, request: str, outputs: list[str], inputs: dict[str, dict]) -> None:
    """A text column an output is asked for that exactly one input has (a name, a class, a code
    written as text; not numbers written as text, which a right answer may cast) holds that input's
    values, unless the request asks to change values: another column's values under its name (ids
    for names) is the mistake this catches."""
    if _VALUES_CHANGE.search(_FILE.sub(" ", request)):
        return
    for out in outputs:
        for name in b.columns_of(out):
            holders = [p for p, facts in inputs.items() if name in (facts.get("columns") or [])]
            facts = inputs[holders[0]] if len(holders) == 1 else {}
            numbers = (facts.get("defects") or {}).get("numbers_as_text") or {}
            if name not in (facts.get("text_columns") or []) or name in numbers:  # numbers as text may be cast
                continue
            if any(
                r.output == out and r.kind == "values_from_input" and r.params.get("name") == name
                for r in b.requirements
            ):
                continue
            columns = next(
                r for r in b.requirements if r.output == out and r.kind == "columns" and name in r.params["names"]
            )
            b.reading(columns.said, columns.sure)
            b.add(
                out,
                "values_from_input",
                f"`{name}` holds the values of `{holders[0]}`'s `{name}` (not another column's)",
                name=name,
                input=holders[0],
                as_key=True,
            )


def user_requirement(
    output: str, text: str, inputs: dict[str, dict] | None = None, req_id: str = "u1"
) -> list[Requirement]:
    """A requirement the user typed for ``output``, read by the same rules as the request
    ("is in EPSG:3035", "sorted by `name`", "has the columns `a`, `b`"). Whatever the rules
    cannot turn into a check stays a note: shown, reported "not verified", never passed."""
    parsed = derive_contract(f"Write `{output}`: {text.strip()}", [output], inputs)
    typed = [r for r in parsed.requirements if r.kind not in WHOLE_REQUEST_KINDS]
    for r in typed:  # the user's words decide: without "beside them" a geometry column may stay
        if r.params.pop("said_words", None):  # "has the columns a, b, c" asks for them, not for them only
            r.text = r.text.replace(UNSAID_CLAUSE, "")
        if r.kind == "columns" and "beside them" not in text:
            r.params.pop("no_stray", None)
    if not typed:
        return [Requirement(id=req_id, output=output, text=text.strip(), kind="note", origin="user")]
    return [
        r.model_copy(
            update={
                "id": f"{req_id}{'abcdefgh'[i]}" if len(typed) > 1 else req_id,
                "origin": "user",
                "text": text.strip() if len(typed) == 1 else r.text,
            }
        )
        for i, r in enumerate(typed[:8])
    ]


def apply_edits(contract: Contract, edits: list[RequirementEdit], inputs: dict | None = None) -> Contract:
    """The contract after the user's review: kept, reworded, added; what is not listed is deleted."""
    outputs = {o.path for o in contract.outputs}
    by_id = {r.id: r for r in contract.requirements}
    kept: list[Requirement] = []
    for n, edit in enumerate(edits, 1):
        if edit.output not in outputs:
            raise ValueError(f"{edit.output!r} is not an output of this run ({', '.join(sorted(outputs))})")
        old = by_id.get(edit.id)
        if old is not None and old.output == edit.output and old.text == edit.text.strip():
            kept.append(old)
        else:
            kept += user_requirement(edit.output, edit.text, inputs, req_id=f"u{n}")
    return contract.model_copy(update={"requirements": kept})
