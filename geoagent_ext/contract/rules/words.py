"""The words every reading of a request shares: the file names it writes (``_files``, ``_base``),
how it splits into sentences and clauses (``_SENTENCE``, ``_CLAUSE``, ``_NEGATION``, ``_affirmed``,
``_sentence_at``; dot leaders and semicolons inside parentheses rewritten before it is split), names
written as names (``_TICKED``, ``_SNAKE``), an output's format as the contract reads it (``_format``:
a Parquet file is GeoParquet when the derivation under way says so), and the small word tools
several families of readings use (a singular, the noun that names a file, the input category that
holds a value, what the request says of a column).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable
from contextvars import ContextVar

from ..formats import file_format

_FILE = re.compile(r"`?([\w./-]+\.(?:json|geojson|csv|gpkg|parquet|geoparquet|shp|fgb))\b`?", re.IGNORECASE)
# Sentences end at . ! ? ; and at line breaks that start something new: a blank line, a list item
# ("- ", "2. ", "b)"), a "Label:" line, or after a line ending in ":". A line break inside a
# sentence (text wrapped by hand or by a mail client) is a space.
_SENTENCE = re.compile(
    r"(?<=[.!?;])(?<![\s(][\"'`][.!?;])\s+|\n\s*\n\s*|(?<=:)[ \t]*\n\s*|"
    r"\n\s*(?=[-*\u2022]\s|\d{1,2}[.)]\s|[a-z][.)]\s|[A-Z][\w /-]{0,30}:(?!\S))"
)
_TICKED = re.compile(r"`([A-Za-z_][\w]{0,63})`")

_SNAKE = re.compile(r"\b([a-z][a-z0-9]*(?:_[a-z0-9]+)+)\b")

_EPSG = re.compile(r"\bEPSG\s*[: ]\s*(\d{4,5})\b", re.IGNORECASE)

_COUNT_NAME = re.compile(r"(^|_)(count|n)($|_)|^n_", re.IGNORECASE)

# "count_per_district", "area_by_land_use": an object keyed by the values of that column.
_PER_GROUP = re.compile(r"^\w+?_(?:per|by)_(\w+)$", re.IGNORECASE)

_UNIT_WORDS = {"km2": "km²", "sqkm": "km²", "m2": "m²", "sqm": "m²", "ha": "hectares", "km": "km", "m": "metres"}
_UNIT_WORDS.update({"acre": "acres", "ft2": "square feet", "mi2": "square miles", "ft": "feet", "mi": "miles"})

# Stored column types a request may name (Arrow's names, as GeoParquet/Parquet keep them; OGR's map onto them).
_STORED_TYPE = (
    r"timestamp\[(?:s|ms|us|ns)(?:,\s*tz=[\w/+:-]+)?\]|u?int(?:8|16|32|64)|float(?:16|32|64)|double|"
    r"large_string|string|utf8|bool(?:ean)?|date32(?:\[day\])?|date64"
)


def _files(text: str) -> list[str]:
    return list(dict.fromkeys(m.group(1) for m in _FILE.finditer(text)))


def _base(path: str) -> str:
    return posixpath.basename(path)


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


# The GeoParquet files of the derivation under way: ".parquet" says nothing of geometry; an input's
# metadata does (its geometry types), and for an output a sentence naming it that says "GeoParquet".
_GEOPARQUET: ContextVar[frozenset[str]] = ContextVar("_GEOPARQUET", default=frozenset())


def _format(path: str) -> str:
    """The file's format as the contract reads it: a GeoParquet file is spatial."""
    fmt = file_format(path)
    return "geoparquet" if fmt == "parquet" and path in _GEOPARQUET.get() else fmt


def _sentence_at(request: str, position: int) -> str:
    """The sentence of ``request`` that holds the character at ``position``."""
    start = 0
    for m in _SENTENCE.finditer(request):
        if m.start() > position:
            return request[start : m.start()]
        start = m.end()
    return request[start:]


def _affirmed(sentence: str) -> str:
    """The clauses of a sentence that negate nothing ("in the file's own grid (not lat/lon)": the first)."""
    return " ".join(c for c in _CLAUSE.split(sentence) if not _NEGATION.search(c))


_NEGATION = re.compile(
    r"\b(not|no|never|don't|do\s+not|instead\s+of|rather\s+than|unacceptable|without)\b", re.IGNORECASE
)
_CLAUSE = re.compile(r"[,;:()]|\s(?:but|while|whereas)\s")


def _noun_names(noun: str, path: str) -> bool:
    """Whether a noun names a file ("hexagon" -> hex_grid.geojson, "station" -> stations.geojson):
    a word of its name of three letters or more begins the noun, or the noun begins it."""
    words = re.split(r"[^a-z]+", _base(path).lower().rsplit(".", 1)[0])
    return bool(noun) and any(len(w) >= 3 and (noun.startswith(w) or w.startswith(noun)) for w in words)


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
