"""What a requested name itself says ("lon", "bbox", "station_count", "area_km2",
"count_per_district"): lon/lat values, a bounding box (of the whole layer when the request says
so), counts, non-negative measures, a JSON value keyed by a group column's values, and a measure's
unit, checked against the feature's geometry.
"""

from __future__ import annotations

import re

from ..formats import SPATIAL
from .builder import _Builder
from .words import _COUNT_NAME, _EPSG, _PER_GROUP, _UNIT_WORDS, _format, _sentence_at

_LONLAT_NAME = re.compile(r"(^|_)(wgs84|lon|lat|lng|longitude|latitude|lonlat)($|_)", re.IGNORECASE)

_MEASURE_NAME = re.compile(
    r"(^|_)(area|length|distance|dist|perimeter)($|_)", re.IGNORECASE
)  # measures cannot be negative
# A measure of a feature's own geometry with its unit in the name ("area_km2", "length_m"): a distance
# to another layer is not one.
_MEASURE_UNIT = re.compile(r"^(?:\w+_)?(area|length|perimeter)_(km2|sqkm|m2|sqm|ha|km|m)$", re.IGNORECASE)

# "the overall bounding box", "the bbox of the whole layer": every feature's bounds, not one's.
_WHOLE_BBOX = re.compile(
    r"\b(?:overall|whole|entire|full|total|complete)\s+(?:\w+\s+){0,2}?(?:bounding\s+box|bbox|extent)\b|"
    r"\b(?:bounding\s+box|bbox|extent)\s+of\s+(?:the\s+)?(?:whole|entire|all|every)\b",
    re.IGNORECASE,
)

_MEASURED_TYPES = {"area": ("Polygon",), "perimeter": ("Polygon",), "length": ("LineString",)}


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


def _sentence_naming(request: str, name: str) -> str:
    """The request's sentence that names ``name`` as a word ("" when none does)."""
    m = re.search(rf"(?<![\w`]){re.escape(name)}(?![\w`])|`{re.escape(name)}`", request)
    return _sentence_at(request, m.start()) if m else ""


def _area_said_of_each(sentence: str) -> bool:
    return bool(_AREA_OF_EACH.search(sentence)) and not _PART_OR_SUM.search(sentence)
