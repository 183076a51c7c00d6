"""How many records a ranked selection holds, and a JSON value said to be a list: "the 5 wards with
the most schools", "the top 10 parks by area", "the three largest lakes" keep exactly that many
records (the output's rows, or the list under the key the sentence defines); "busiest: [ ... ]"
drawn in a JSON sketch, or "<key> ... as a list", is a JSON array (of records), not an object keyed
by one of their values."""

from __future__ import annotations

import re
from typing import Literal

from ..checker import _contract_geodesic, _contract_has_geometry, _contract_input
from ..formats import SPATIAL, file_format, layer_kinds
from ._kind import Builder, ColumnParams, Params, RequestView, RequirementKind


class TopRowsParams(Params):
    rows: int  # the number of records the ranked selection keeps
    input: str | None = None  # the input the records are ranked from, by their measure:
    measure: Literal["area", "length"] | None = None  # the measure the request ranks by
    largest: bool = True  # the largest (longest) N, else the smallest (shortest)


class ListValueParams(ColumnParams):
    length: int | None = None  # the list holds exactly this many items


def _kind_top_rows(params, data, sources):
    """(passed, observed): the table has exactly the number of rows the ranked selection keeps."""
    want = int(params["rows"])
    if isinstance(data, dict):
        return False, "the file holds one JSON object, not a list of records"
    got = len(data)
    if got != want:
        return False, f"{got} rows (the request keeps {want})"
    measure = params.get("measure")
    if not measure or not _contract_has_geometry(data) or data.crs is None:
        return True, f"{got} rows (the request keeps {want})"
    src = _contract_input(params["input"], sources)
    if not _contract_has_geometry(src) or src.crs is None:
        return False, f"cannot measure `{params['input']}`: no geometries with a CRS"
    largest = params.get("largest", True)
    mine = sorted((m for m in _contract_geodesic(data, measure) if m), reverse=largest)
    ranked = sorted((m for m in _contract_geodesic(src, measure) if m), reverse=largest)[:want]
    which = "largest" if largest else "smallest"
    off = [(a, e) for a, e in zip(mine, ranked) if abs(a - e) > 0.01 * e]
    if len(mine) != len(ranked) or off:
        a, e = off[0] if off else (None, None)
        return False, f"{got} rows, not the {want} {which} by {measure} of `{params['input']}`" + (
            f" (one measures {a:.6g} where the ranked one measures {e:.6g})" if off else ""
        )
    return True, f"the {want} {which} features of `{params['input']}` by {measure}"


def _kind_list_value(params, data, value, sources):
    """(passed, observed): the key's value is a JSON array (of as many items as asked); a key of each
    record of a list holds an array in every record (their lengths are each record's own)."""
    name, want = params["name"], params.get("length")
    if hasattr(value, "tolist") and not isinstance(data, dict):  # a key of each record: each holds a list
        cells = value.tolist()
        other = [c for c in cells if not isinstance(c, list) and c is not None]
        if other:
            return (
                False,
                f"`{name}` holds a {type(other[0]).__name__} in {len(other)} of {len(cells)} records, not a list",
            )
        return True, f"`{name}` is a list in each of {len(cells)} records"
    if not isinstance(value, list):
        return False, f"`{name}` is a JSON {type(value).__name__}, not a list (an array)"
    if want is not None and len(value) != int(want):
        return False, f"`{name}` is a list of {len(value)} items (the request keeps {int(want)})"
    return True, f"`{name}` is a list of {len(value)} items"


_WORD_NUMBERS = {
    w: i
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
        "sixteen seventeen eighteen nineteen twenty".split()
    )
}
_N = r"(?:\d{1,3}|" + "|".join(w for w in _WORD_NUMBERS if w not in ("zero", "one")) + r")"
_RANKED = (
    r"(?:most|highest|largest|biggest|longest|greatest|lowest|fewest|smallest|shortest|least|busiest|nearest|"
    r"closest|oldest|newest|tallest)"
)
# "the 5 wards with the most schools", "the top 10 parks", "top-3 districts", "the three largest lakes",
# "the 20 most populous towns"
_TOP_N = re.compile(
    rf"\btop[\s-]+(?P<a>{_N})\b(?!\s*(?:%|percent))(?:\s+(?P<na>[a-z-]+))?|"
    rf"\bthe\s+(?P<b>{_N})\s+(?:[a-z-]+\s+)?(?P<nb>[a-z-]+)\s+(?:with|having|that\s+have|that\s+has)\s+the\s+"
    rf"{_RANKED}\b|"
    rf"(?:\bthe\s+|^\s*)(?P<c>{_N})\s+{_RANKED}\b(?:\s+(?P<nc>[a-z-]+))?",
    re.IGNORECASE,
)
_GENERIC_ROWS = {"row", "record", "feature", "entry", "item", "line", "result", "one"}
# Words that make the count other than exact: per group, a bound, ties kept
_NOT_EXACT = re.compile(
    r"\b(?:per|each|every|by\s+each|within\s+each|at\s+(?:least|most)|up\s+to|or\s+(?:fewer|less|more)|"
    r"no\s+more\s+than|ties?|tied|if\s+(?:there\s+are|fewer))\b",
    re.IGNORECASE,
)
# "one object per road": what each record is, not a ranking per group
_ONE_PER = re.compile(
    r"\bone\s+(?:row|record|object|entry|item|line|feature)\s+(?:per|for\s+each|for\s+every)\s+\w+", re.IGNORECASE
)
# "flag the 5 largest", "the top 3 and the rest as other": the N are marked among more rows
_MARKED = re.compile(
    r"\b(?:mark\w*|flag\w*|highlight\w*|label\w*|tag\w*|indicat\w*|whether|rest|others|remaining|everything\s+else)\b",
    re.IGNORECASE,
)
_DEFINED_KEY = re.compile(r"^\s*(?:[-*\u2022]\s*|\d{1,2}[.)]\s*)?[`\"']?(?P<key>[A-Za-z_]\w*)[`\"']?\s*(?:=|:|\bis\b)")
# '"busiest": [': a key drawn with an array as its value
# "busiest = the 5 ...", "largest: the top 3": the key right before a ranked selection
_KEY_BEFORE = re.compile(
    r"[`\"']?(?P<key>[A-Za-z_]\w*)[`\"']?\s*(?:=|:|\bis\b|\bare\b)\s*(?:just\s+|only\s+)?(?:the\s+)?$"
)
_DRAWN_LIST = re.compile(r"[\"'`](?P<key>[A-Za-z_]\w*)[\"'`]\s*:\s*\[")
_AS_LIST = re.compile(
    r"\b(?:as|is|in)\s+an?\s+(?:json\s+)?(?:list|array)\b|\b(?:an?\s+)?(?:list|array)\s+of\s+(?:\w+\s+)?(?:objects|records)\b",
    re.I,
)


def _singular(word: str) -> str:
    word = word.lower()
    if word.endswith("ies"):
        return word[:-3] + "y"
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word


_SIZE_WORD = re.compile(r"\b(?:largest|biggest|smallest)\b", re.I)
_LENGTH_WORD = re.compile(r"\b(?:longest|shortest)\b", re.I)
_AREA_SAID = re.compile(r"\b(?:area|footprint|surface|size)\b", re.I)
_LENGTH_SAID = re.compile(r"\blength\b", re.I)


def _ranked_by(request: RequestView, said: str, top: re.Match) -> dict:
    """{input, measure, largest} when the ranking is by the one spatial input's area ("the 10 biggest
    buildings by footprint area") or length ("the 5 longest lines by length"), said in words; else {}."""
    spatial = [p for p in request.inputs if file_format(p) in SPATIAL | {"parquet"} and layer_kinds(request.inputs[p])]
    words = top.group(0) + " " + said[top.end() : top.end() + 60]
    if len(spatial) != 1:
        return {}
    kinds = layer_kinds(request.inputs[spatial[0]])
    if _SIZE_WORD.search(words) and _AREA_SAID.search(said) and any("Polygon" in k for k in kinds):
        largest, measure = not re.search(r"\bsmallest\b", words, re.I), "area"
    elif _LENGTH_WORD.search(words) and _LENGTH_SAID.search(said) and any("LineString" in k for k in kinds):
        largest, measure = not re.search(r"\bshortest\b", words, re.I), "length"
    else:
        return {}
    return {"input": spatial[0], "measure": measure, "largest": largest}


def _number(text: str) -> int:
    return int(text) if text.isdigit() else _WORD_NUMBERS[text.lower()]


def _enough_rows(request: RequestView, n: int) -> bool:
    """Every input with rows has at least ``n`` of them (a top N of fewer records is not N)."""
    rows = [int(f["rows"]) for f in request.inputs.values() if f.get("rows") is not None]
    return bool(rows) and min(rows) >= n


def read_listed_rows(request: RequestView, b: Builder) -> None:
    """A ranked selection of N in a sentence about one output ("the 5 wards with the most
    schools"): when the sentence defines a key of a JSON output ("busiest = the 5 ..."), that key
    is a list of N; in a sentence about one table output with no other key, the table has N rows.
    Never per group, with a bound, or with ties. A key drawn with an array ('"top": [') or said to be
    "as a list" is a JSON array."""
    for sentence, outs, sure in request.sentences:
        said = request.affirmed(sentence)
        targets = outs or (list(request.outputs) if len(request.outputs) == 1 else [])
        for out in targets:
            keys = b.columns_of(out)
            is_json = file_format(out) == "json"
            top = _TOP_N.search(said)
            defined = _DEFINED_KEY.match(sentence) or (_KEY_BEFORE.search(said[: top.start()]) if top else None)
            key = defined.group("key") if defined and defined.group("key") in keys else None
            listed = [m.group("key") for m in _DRAWN_LIST.finditer(sentence) if m.group("key") in keys]
            if is_json and key and _AS_LIST.search(said) and key not in listed:
                listed.append(key)
            for name in listed if is_json else []:
                b.reading(sentence, sure).add(out, "list_value", f"`{name}` is a JSON list (an array)", name=name)
            if not top or _NOT_EXACT.search(_ONE_PER.sub(" ", said)) or _MARKED.search(said):
                continue
            n = _number(top.group("a") or top.group("b") or top.group("c"))
            if n < 2 or not _enough_rows(request, n) or re.search(r"\bties?\b|\btied\b", request.text, re.I):
                continue
            if is_json and key:
                b.reading(sentence, sure).add(
                    out, "list_value", f'`{key}` is a list of {n} ("{top.group(0)}")', name=key, length=n
                )
            elif file_format(out) not in ("json", "gpkg") and not defined and len(targets) == 1:
                # the ranked things are the rows when the output's or an input's name (or "rows") says them:
                # "the 3 largest districts" may pick where other rows come from
                noun = _singular(top.group("na") or top.group("nb") or top.group("nc") or "")
                files = [out, *request.inputs]
                rows_are_them = bool(noun) and (
                    noun in _GENERIC_ROWS or any(noun[:4] in f.rsplit("/", 1)[-1].lower() for f in files)
                )
                b.reading(sentence, sure and rows_are_them).add(
                    out, "top_rows", f'{n} rows ("{top.group(0)}")', rows=n, **_ranked_by(request, said, top)
                )


TOP_ROWS = RequirementKind(
    name="top_rows",
    params=TopRowsParams,
    check=_kind_top_rows,
    reads="table",
    advice="keep exactly the number of records the request ranks (sort, then .head(N)), not one more or fewer",
    read=read_listed_rows,
)

LIST_VALUE = RequirementKind(
    name="list_value",
    params=ListValueParams,
    check=_kind_list_value,
    reads="column",
    advice=(
        "write the key's value as a JSON array of records ([{...}, {...}]), not an object keyed by one of "
        "their values, holding exactly as many records as the request asks"
    ),
)
