"""What a JSON or GeoJSON deliverable's own structure holds, read from its JSON text: a member at the
document's top level (beside a FeatureCollection's "features", not a property of every feature),
with the keys or the text the request gives it; and bounding boxes written as lon/lat arrays
([min_lon, min_lat, max_lon, max_lat]) under a key or as every value of an object, each within the
inputs' lon/lat extent."""

import posixpath
import re

from pydantic import Field

from ..checker import _contract_holder, _contract_input, _contract_short
from ..formats import file_format, layer_kinds
from ._kind import Builder, Params, RequestView, RequirementKind

_JSON_FORMATS = ("json", "geojson")


class TopLevelMemberParams(Params):
    name: str
    keys: list[str] = []  # the member is an object with these keys
    value: str | None = None  # the member is this text


class NamesListParams(Params):
    input: str  # the input whose column holds the names
    column: str
    empty_of: str | None = None  # the list is exactly the features holding none of this input's features


class LonLatBoxesParams(Params):
    name: str | None = None  # the key holding a box (None: every value of the top-level object is one)
    bounds: list[float] = Field(description="[w, s, e, n] of the inputs in lon/lat", min_length=4, max_length=4)


def _contract_json_document(path):
    """The JSON text of a file as parsed (no reader in between that moves or drops members)."""
    import json as _j

    with open(path, encoding="utf-8") as fh:
        return _j.load(fh)


def _kind_top_level_member(params, path, fmt, layers):
    """(passed, observed): the document's top level is an object holding the member (GDAL's own
    "name", the file's stem, is not one the request gave), an object with the keys asked, or the
    text asked."""
    import os as _o

    name = params["name"]
    document = _contract_json_document(path)
    if not isinstance(document, dict):
        return False, f"the top level is a JSON {type(document).__name__}, not an object with a `{name}` member"
    stem = _o.path.splitext(_o.path.basename(path))[0]
    gdal_name = name == "name" and document.get(name) == stem and params.get("value") != stem
    if name not in document or gdal_name:
        features = document.get("features") if isinstance(document.get("features"), list) else []
        inside = [f for f in features if isinstance(f, dict) and name in (f.get("properties") or {})]
        where = f" (it is a property of {len(inside)} features instead)" if inside else ""
        return False, f"no top-level `{name}` member{where}; the top level has {sorted(document)[:12]}"
    member = document[name]
    keys = params.get("keys") or []
    if keys:
        if not isinstance(member, dict):
            return False, f"`{name}` = {_contract_short(member, 80)}: not an object with {keys}"
        missing = [k for k in keys if k not in member]
        if missing:
            return False, f"`{name}` lacks {missing}; it has {sorted(member)[:12]}"
    value = params.get("value")
    if value is not None and str(member).strip() != value.strip():
        return False, f"`{name}` = {_contract_short(member, 80)}, not {value!r}"
    return True, f"top-level `{name}` = {_contract_short(member, 120)}"


def _contract_lonlat_box_fault(box, bounds):
    """Why ``box`` is not [min_lon, min_lat, max_lon, max_lat] inside ``bounds`` ([w, s, e, n], grown
    by half their size and at least half a degree: a box of the data lies on the data; one in
    metres or with latitude first does not), or ""."""
    import math

    if not (
        isinstance(box, (list, tuple))
        and len(box) == 4
        and all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in box)
    ):
        return "not 4 finite numbers"
    w, s, e, n = bounds
    grow_x, grow_y = max(0.5, (e - w) / 2), max(0.5, (n - s) / 2)
    if box[1] > box[3]:
        return "min_lat > max_lat"
    if not (s - grow_y <= box[1] and box[3] <= n + grow_y):
        return f"latitudes outside [{s - grow_y:.3f}, {n + grow_y:.3f}]"
    if w <= e:  # data across +-180 is checked in latitude only
        if box[0] > box[2]:
            return "min_lon > max_lon"
        if not (w - grow_x <= box[0] and box[2] <= e + grow_x):
            return f"longitudes outside [{w - grow_x:.3f}, {e + grow_x:.3f}]"
    return ""


def _kind_lonlat_boxes(params, path, fmt, layers):
    """(passed, observed): each box (the named key's value, one per record in a list of records, or
    every value of the top-level object) is [min_lon, min_lat, max_lon, max_lat] where the inputs lie."""
    name, bounds = params.get("name"), params["bounds"]
    document = _contract_json_document(path)
    if name:
        holder = _contract_holder(document, name)
        if holder is None:
            return False, f"`{name}` is not in the file"
        boxes = [holder[name]] if isinstance(holder, dict) else holder[name].tolist()
        labels = [name] * len(boxes)
    elif isinstance(document, dict):
        labels, boxes = [str(k) for k in document], list(document.values())
    else:
        return False, f"the top level is a JSON {type(document).__name__}, not an object of boxes"
    if not boxes:
        return False, "no box in the file"
    for label, box in zip(labels, boxes):
        fault = _contract_lonlat_box_fault(box, bounds)
        if fault:
            where = f"[{bounds[0]:.3f}, {bounds[1]:.3f}, {bounds[2]:.3f}, {bounds[3]:.3f}]"
            return False, f"`{label}` = {_contract_short(box, 80)}: {fault} (the inputs lie at lon/lat {where})"
    return True, f"{len(boxes)} boxes, each [min_lon, min_lat, max_lon, max_lat] where the inputs lie"


def _kind_names_list(params, path, fmt, layers):
    """(passed, observed): the document is a JSON list whose every item is a value of the input's
    name column (text compared stripped): names, not codes or records."""
    document = _contract_json_document(path)
    column = params["column"]
    if not isinstance(document, list):
        return False, f"the top level is a JSON {type(document).__name__}, not a list of names"
    src = _contract_input(params["input"], {})
    if column not in getattr(src, "columns", []):
        return False, f"`{params['input']}` has no `{column}` to compare with"
    names = {str(v).strip() for v in src[column].dropna().tolist()}
    foreign = [v for v in document if isinstance(v, (dict, list)) or str(v).strip() not in names]
    if foreign:
        return False, (
            f"{len(foreign)} of {len(document)} items are not a `{column}` of `{params['input']}` "
            f"(e.g. {_contract_short(foreign[0], 60)})"
        )
    if params.get("empty_of"):
        return _contract_names_of_empty(params, src, document)
    return True, f"all {len(document)} items are `{column}` values of `{params['input']}`"


def _contract_names_of_empty(params, src, document):
    """(passed, observed): the listed names are those of the features of ``src`` that hold no
    feature of ``params.empty_of`` (inside or on the edge: either reading is accepted)."""
    import geopandas as gpd

    others = _contract_input(params["empty_of"], {})
    if src.crs is None or others.crs is None:
        return False, "cannot tell which are empty: an input has no CRS"
    others = others.to_crs(src.crs)[["geometry"]]
    column, listed = params["column"], {str(v).strip() for v in document}
    names = src[column].astype(str).str.strip()
    empty = []
    for predicate in ("within", "intersects"):
        hit = set(gpd.sjoin(others, src[["geometry"]], predicate=predicate)["index_right"].tolist())
        empty.append({n for i, n in zip(src.index, names) if i not in hit})
    if listed in empty:
        return True, f"the {len(listed)} listed are those with no feature of `{params['empty_of']}`"
    want = empty[0]
    return False, (
        f"listed {len(listed)}; {len(want)} hold no feature of `{params['empty_of']}` "
        f"(missing {sorted(want - listed)[:3]}, not empty {sorted(listed - want)[:3]})"
    )


# "a JSON array of the district names", "a JSON list of the names of the parks"
_NAMES_LIST = re.compile(
    r"\bjson\s+(?:array|list)\s+of\s+(?:the\s+|their\s+)?(?:(?P<noun>[a-z]{3,})\s+)?names\b"
    r"(?:\s+of\s+(?:the\s+)?(?P<after>[a-z]{3,}))?",
    re.IGNORECASE,
)


def read_names_list(request: RequestView, b: Builder) -> None:
    """A JSON output that is a list of the names of some features: each item is a value of the name
    column of the input the noun picks (a text column named "...name...": the only one, or the one
    whose column or file name holds the noun)."""
    candidates = [
        (path, column)
        for path, facts in request.inputs.items()
        for column in facts.get("text_columns") or []
        if "name" in column.lower()
    ]
    for sentence, outs, sure in request.sentences:
        documents = [o for o in outs if file_format(o) == "json"]
        m = _NAMES_LIST.search(request.affirmed(sentence))
        if len(documents) != 1 or not m or b.columns_of(documents[0]):
            continue
        noun = (m.group("noun") or m.group("after") or "").lower()
        noun = noun[:-1] if noun.endswith("s") else noun
        picked = [
            (p, c) for p, c in candidates if noun and (noun in c.lower() or noun in posixpath.basename(p).lower())
        ]
        if noun and len(picked) > 1:
            picked = [(p, c) for p, c in picked if noun in c.lower()]
        picked = picked if noun else candidates
        if len(picked) != 1:
            continue
        path, column = picked[0]
        empty_of = _none_held(request, sentence, path)
        b.reading(sentence, sure).add(
            documents[0],
            "names_list",
            f"the document is a list of `{column}` values of `{posixpath.basename(path)}` (names, not codes)"
            + (f", of those holding no feature of `{posixpath.basename(empty_of)}`" if empty_of else ""),
            input=path,
            column=column,
            **({"empty_of": empty_of} if empty_of else {}),
        )


# "which districts don't have a single station", "parks with no bench", "wards without any school"
_NONE_HELD = re.compile(
    r"\b(?:do\s+not|don't|does\s+not|doesn't|ha(?:ve|s|ving)\s+no|with\s+no|without\s+(?:a|any))\s+"
    r"(?:have\s+|contain\s+|hold\s+)?(?:a\s+single\s+|any\s+|one\s+)?(?:[a-z]+\s+)?(?P<noun>[a-z]{3,})",
    re.IGNORECASE,
)


def _none_held(request: RequestView, sentence: str, polygons: str) -> str | None:
    """The other input whose features the listed ones hold none of, when a sentence of the request
    asks for the features without any of them (its noun names that file) and the list is of polygons."""
    if not {"Polygon", "MultiPolygon"} & layer_kinds(request.inputs[polygons]):
        return None
    for said in [sentence, *(s for s, _, _ in request.sentences if s != sentence)]:
        m = _NONE_HELD.search(said)
        noun = m.group("noun").lower().rstrip("s") if m else ""
        named = [
            p for p in request.inputs if p != polygons and len(noun) >= 3 and noun[:-1] in posixpath.basename(p).lower()
        ]
        if len(named) == 1:
            return named[0]
    return None


# 'a top-level "metadata" member', "top-level key `name`": a member of the document's top level
_TOP_LEVEL = re.compile(
    r"\btop[- ]?level\s+(?:(?:json\s+)?(?:member|key|field|property|entry|object|attribute)\s+"
    r"(?:called\s+|named\s+)?)?[\"'`\u201c](?P<name>[A-Za-z_]\w*)[\"'`\u201d]",
    re.IGNORECASE,
)
# what follows the member's name up to its value: ' member next to "features": ', ': ', ' = '
_UP_TO_VALUE = re.compile(r"[^:=.;{}\[\]]{0,60}?(?:[:=]|\bwith\b|\bholding\b)\s*(?=[{\"\u201c])", re.IGNORECASE)
_STRING_VALUE = re.compile(r"[\"\u201c](?P<text>[^\"\u201d<>{}\n]{1,80})[\"\u201d]")
_TEMPLATE_KEY = re.compile(r"[\"']([A-Za-z_]\w*)[\"']\s*:")


def _object_keys(text: str) -> list[str] | None:
    """The keys of the JSON-like object ``text`` starts with ("{"a": .., "b": {..}}" -> a, b), its
    nested objects' keys left out; None when the braces do not close."""
    depth, top, quoted = 0, [], False
    for ch in text:
        if ch == '"':
            quoted = not quoted
        if quoted:
            if depth == 1:
                top.append(ch)
            continue
        if ch in "{[":
            depth += 1
            if depth == 1:
                continue
        elif ch in "}]":
            depth -= 1
            if depth == 0:
                return _TEMPLATE_KEY.findall("".join(top))
        if depth == 1:
            top.append(ch)
    return None


def _member_value(rest: str) -> dict:
    """The params a member's drawn value gives: {"keys": [...]} for an object, {"value": text} for a
    quoted text, {} when the request draws none."""
    lead = _UP_TO_VALUE.match(rest)
    if not lead:
        return {}
    after = rest[lead.end() :]
    if after.startswith("{"):
        keys = _object_keys(after)
        return {"keys": keys} if keys else {}
    text = _STRING_VALUE.match(after)
    return {"value": text.group("text")} if text and re.search(r"\w", text.group("text")) else {}  # not "..."


def read_top_level_member(request: RequestView, b: Builder) -> None:
    """A member the request puts at the top level of a JSON or GeoJSON output, with the keys of the
    object or the text it draws as its value; in a clause that negates nothing, of one such output."""
    for sentence, outs, sure in request.sentences:
        documents = [o for o in outs if file_format(o) in _JSON_FORMATS]
        affirmed = {m.group("name") for m in _TOP_LEVEL.finditer(request.affirmed(sentence))}
        if len(documents) != 1 or not affirmed:
            continue
        start = request.text.find(sentence)
        for m in _TOP_LEVEL.finditer(sentence):
            name = m.group("name")
            if name not in affirmed or name in ("type", "features"):
                continue
            rest = request.text[start + m.end() : start + m.end() + 600] if start >= 0 else sentence[m.end() :]
            params = _member_value(rest)
            drawn = (
                f" holding {', '.join(params['keys'])}"
                if params.get("keys")
                else f" = {params['value']!r}"
                if params.get("value")
                else ""
            )
            b.reading(sentence, sure).add(
                documents[0],
                "top_level_member",
                f"the document's top level has a `{name}` member{drawn} (not a property of each feature)",
                name=name,
                **params,
            )


_LON = r"(?:min|max)_?(?:lon|lng|longitude|x)|(?:lon|lng|longitude|x)_?(?:min|max)|west|east"
_LAT = r"(?:min|max)_?(?:lat|latitude|y)|(?:lat|latitude|y)_?(?:min|max)|south|north"
# "[min_lon, min_lat, max_lon, max_lat]", "[minx, miny, maxx, maxy]", "[west, south, east, north]"
_BOX_ARRAY = re.compile(
    rf"\[\s*(?P<x0>{_LON})\s*,\s*(?P<y0>{_LAT})\s*,\s*(?P<x1>{_LON})\s*,\s*(?P<y1>{_LAT})\s*\]", re.IGNORECASE
)
_IN_LONLAT = re.compile(
    r"\b(?:degrees|longitudes?|latitudes?|wgs\s*84|epsg\s*:?\s*4326)\b|\blon\s*/\s*lat\b|\blat\s*/\s*lon\b",
    re.IGNORECASE,
)
_NEGATED = re.compile(r"\b(?:not|no|never|instead\s+of|rather\s+than|without)\b", re.IGNORECASE)
_KEYED = re.compile(r"[\"'`](?P<key>[A-Za-z_]\w*)[\"'`]\s*:\s*$")
_MAPPING = re.compile(r"\b(?:mapping|maps?|keyed\s+by)\b[^.;:\[\]{}]{0,60}(?:->|\u2192|=>|:|\bto\b)\s*$", re.IGNORECASE)


def _box_order(m: re.Match) -> bool:
    """The array is min x, min y, max x, max y in that order (not "[max_lon, ...]")."""
    first = [m.group(g).lower() for g in ("x0", "y0", "x1", "y1")]
    low = [("min" in w or w in ("west", "south")) for w in first]
    return low == [True, True, False, False]


def read_lonlat_boxes(request: RequestView, b: Builder) -> None:
    """A box the request draws as an array of lon/lat bounds in a JSON output, under a key
    ('"bbox": [min_lon, ...]') or as every value of an object ("an object mapping class -> [...]"):
    each lies where the inputs lie (their lon/lat bounds known). Names of x/y bounds count as
    lon/lat when the sentence says degrees or lon/lat."""
    place = request.lonlat_place()
    if place is None:
        return
    bounds, _ = place
    for sentence, outs, sure in request.sentences:
        documents = [o for o in outs if file_format(o) == "json"]
        if len(documents) != 1:
            continue
        said = request.affirmed(sentence)
        for m in _BOX_ARRAY.finditer(sentence):
            words = m.group(0).lower()
            lonlat = bool(re.search(r"lon|lng|lat", words)) or bool(_IN_LONLAT.search(said))
            before = sentence[: m.start()]
            if not lonlat or not _box_order(m) or _NEGATED.search(re.split(r"[.;,(]", before)[-1]):
                continue
            key = _KEYED.search(before)
            if key:
                params, where = {"name": key.group("key")}, f"`{key.group('key')}`"
            elif _MAPPING.search(before):
                params, where = {}, "every value of the top-level object"
            else:
                continue
            b.reading(sentence, sure).add(
                documents[0],
                "lonlat_boxes",
                f"{where} is [min_lon, min_lat, max_lon, max_lat] in degrees where the inputs lie",
                bounds=bounds,
                **params,
            )


TOP_LEVEL_MEMBER = RequirementKind(
    helpers=(_contract_json_document,),
    name="top_level_member",
    params=TopLevelMemberParams,
    check=_kind_top_level_member,
    reads="file",
    advice=(
        'write the member at the document\'s top level beside "features": json.load the written file, '
        "doc[name] = {...} or the text asked, json.dump it back; not a column of every feature"
    ),
    read=read_top_level_member,
)
NAMES_LIST = RequirementKind(
    helpers=(_contract_names_of_empty,),
    name="names_list",
    params=NamesListParams,
    check=_kind_names_list,
    reads="file",
    advice="write the names themselves, as the input's name column has them: json.dump(part[GROUP].tolist(), f)",
    read=read_names_list,
)
LONLAT_BOXES = RequirementKind(
    helpers=(_contract_lonlat_box_fault,),
    name="lonlat_boxes",
    params=LonLatBoxesParams,
    check=_kind_lonlat_boxes,
    reads="file",
    advice=(
        "take each box in lon/lat: list(map(float, part.to_crs(4326).total_bounds)), in the order "
        "[min_lon, min_lat, max_lon, max_lat] (x first)"
    ),
    read=read_lonlat_boxes,
)
