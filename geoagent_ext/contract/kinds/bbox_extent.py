"""A bounding box the request spells out as [west, south, east, north] ([minx, miny, maxx, maxy],
[min easting, min northing, max easting, max northing]) in a JSON value, or as four columns listed
in that order (xmin, ymin, xmax, ymax): four numbers in that order, each within the extent of the
input it bounds, in the CRS the request says (lon/lat degrees, or metres of the projected CRS it
names). Latitude written first, or degrees where metres are asked (and metres where degrees are),
put a number outside that extent."""

from __future__ import annotations

import re

from ..checker import _contract_has_geometry, _contract_input, _contract_numbers, _contract_short
from ..formats import file_format
from ._kind import Builder, ColumnParams, RequestView, RequirementKind


class BboxExtentParams(ColumnParams):
    input: str  # the spatial input the box bounds (all of it or some of its features)
    epsg: int  # the CRS the box is in
    columns: list[str] | None = None  # a box per row in these four columns (minx, miny, maxx, maxy); name is the first


def _kind_bbox_extent(params, data, value, sources):
    """(passed, observed): every box held (one, or one per record) is four finite numbers
    [minx, miny, maxx, maxy] with min <= max, inside the input's extent in ``params.epsg``
    (grown by 1 % of its size and a rounding margin)."""
    import math

    name, code = params["name"], int(params["epsg"])
    src = _contract_input(params["input"], sources)
    if not _contract_has_geometry(src) or src.crs is None:
        return False, f"`{params['input']}` has no geometry with a CRS to bound"
    geoms = src.geometry[~(src.geometry.isna() | src.geometry.is_empty)]
    if src.crs.to_epsg() != code:
        geoms = geoms.to_crs(code)
    x0, y0, x1, y1 = (float(v) for v in geoms.total_bounds)
    margin = 0.01 * max(x1 - x0, y1 - y0) + (1e-5 if geoms.crs.is_geographic else 1.0)
    if params.get("columns"):  # a box per row, in four columns
        if isinstance(data, dict) or not all(c in data.columns for c in params["columns"]):
            return False, f"`{'`, `'.join(params['columns'])}` are not columns of the file"
        value = data[list(params["columns"])].to_numpy().tolist()
        name = "`, `".join(params["columns"])
    held = value.tolist() if hasattr(value, "tolist") else value
    boxes = held if isinstance(held, list) and held and all(isinstance(b, (list, tuple)) for b in held) else [held]
    extent = f"[{x0:.6g}, {y0:.6g}, {x1:.6g}, {y1:.6g}] (EPSG:{code})"
    for box in boxes:
        nums = _contract_numbers(box)
        if len(nums) != 4 or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in nums
        ):
            return False, f"`{name}` = {_contract_short(box)}: not 4 finite numbers"
        a, b, c, d = nums
        if a > c or b > d:
            return False, f"`{name}` = {_contract_short(nums)}: min > max (not [minx, miny, maxx, maxy])"
        outside = not (x0 - margin <= a and c <= x1 + margin and y0 - margin <= b and d <= y1 + margin)
        if outside:
            return False, (
                f"`{name}` = {_contract_short(nums)}: outside `{params['input']}`'s extent {extent} "
                "(x and y swapped, or another CRS?)"
            )
    return True, f"`{name}`: {len(boxes)} box(es) within `{params['input']}`'s extent {extent}"


_MIN_X = r"(?:west|left|min(?:imum)?[\s_-]*(?:x|lon\w*|lng|easting)|(?:x|lon|lng)[\s_-]*min)"
_MIN_Y = r"(?:south|bottom|min(?:imum)?[\s_-]*(?:y|lat\w*|northing)|(?:y|lat)[\s_-]*min)"
_MAX_X = r"(?:east|right|max(?:imum)?[\s_-]*(?:x|lon\w*|lng|easting)|(?:x|lon|lng)[\s_-]*max)"
_MAX_Y = r"(?:north|top|max(?:imum)?[\s_-]*(?:y|lat\w*|northing)|(?:y|lat)[\s_-]*max)"
_SEP = r"\s*,\s*"
# the box spelled out in its order, in brackets: "[west, south, east, north]", "[minx, miny, maxx, maxy]"
_SPELLED = re.compile(r"\[\s*" + _SEP.join([_MIN_X, _MIN_Y, _MAX_X, _MAX_Y]) + r"\s*\]", re.I)
# the name the box is the value of, before it: `"bbox": [..`, `"all" = the bounding box ... as [..`
_KEY_BEFORE = re.compile(r"[\"'`](?P<name>[A-Za-z_][\w-]*)[\"'`]\s*(?::|=|is\b)[^\"'`\[\]{}]{0,80}$")
_DEGREES = re.compile(
    r"\b(?:degrees?|lon\s*/\s*lat|lat\s*/\s*lon|longitude|latitude|wgs\s*-?\s*84|crs84)\b|\b4326\b", re.I
)
_METRES = re.compile(r"\b(?:met(?:re|er)s?|easting|northing|projected)\b", re.I)
_EPSG = re.compile(r"\b(?:epsg|crs)\s*[:=]?\s*(\d{4,5})\b", re.I)
# words by which the box may bound more than the input's own features
_GROWN = re.compile(
    r"\b(?:buffer\w*|padd\w*|expand\w*|enlarg\w*|grow\w*|grown|margin|hex\w*|tessellat\w*|cells?)\b", re.I
)


def _unit_said(inside: str, after: str, near: str) -> str | None:
    """ "deg" or "m": what the box's own words say (lon/lat, easting/northing), else the words right
    after it ("in decimal degrees", "in metres"), else the words around it when they say one only."""
    for words in (inside, after, near):
        deg, m = bool(_DEGREES.search(words)), bool(_METRES.search(words))
        if deg != m:
            return "deg" if deg else "m"
        if deg and m:
            return None
    return ""


def _epsg_of(request: RequestView, source: str, unit: str | None, projected: set[int]) -> int | None:
    """The CRS a box is in: lon/lat for degrees (or, when nothing is said, the input's lon/lat when
    the request names no other CRS); the one projected EPSG code the request names for metres."""
    if unit == "m":
        return next(iter(projected)) if len(projected) == 1 else None
    w, _, e, _ = request.inputs[source]["bounds_wgs84"]
    if w > e:
        return None
    if unit == "deg" or (unit == "" and not projected and request.inputs[source].get("epsg") == 4326):
        return 4326
    return None


_BOX_NAMES = [re.compile(f"^{part}$", re.I) for part in (_MIN_X, _MIN_Y, _MAX_X, _MAX_Y)]


def read_bbox_extent(request: RequestView, b: Builder) -> None:
    """A JSON value the request spells as a box in order ("[west, south, east, north]", "[minx,
    miny, maxx, maxy]", "[min easting, ...]"), named just before it (`"bbox": [...]`, `"all" = the
    bounding box ... as [...]`), or four columns an output lists in that order ("xmin, ymin, xmax,
    ymax"), of the one spatial input: the numbers are in that order and inside that input's extent,
    in degrees when the words about the box say lon/lat (or nothing is said, the request names no
    other CRS and the input is in lon/lat), in metres of the one projected EPSG code the request
    names when they say metres, easting or northing. Not read when the box may bound more than the
    input's features (a buffer, grid cells) or the input crosses the antimeridian."""
    text = request.text
    if _GROWN.search(text):
        return
    spatial = [p for p, facts in request.inputs.items() if facts.get("bounds_wgs84")]
    if len(spatial) != 1:
        return
    source = spatial[0]
    projected = {int(c) for c in _EPSG.findall(text)} - {4326}
    for box in _SPELLED.finditer(text):
        key = _KEY_BEFORE.search(text[max(0, box.start() - 200) : box.start()])
        if key is None:
            continue
        name = key.group("name")
        after = re.split(r"[.;\n]\s|\n", text[box.end() : box.end() + 60])[0]
        unit = _unit_said(box.group(0), after, text[max(0, box.start() - 200) : box.end() + 120])
        epsg = _epsg_of(request, source, unit, projected)
        if epsg is None:
            continue
        flat = " ".join(box.group(0).split())
        sentence, outs = next(((s, o) for s, o, _ in request.sentences if flat in " ".join(s.split())), (text, []))
        outs = [o for o in outs if file_format(o) == "json"] or [o for o in request.outputs if file_format(o) == "json"]
        if len(outs) != 1:
            continue
        b.reading(sentence, True).add(
            outs[0],
            "bbox_extent",
            f"`{name}` is [minx, miny, maxx, maxy] in EPSG:{epsg}, within the extent of `{source}`",
            name=name,
            input=source,
            epsg=epsg,
        )
    for out in request.outputs:
        names = b.columns_of(out)
        for i in range(len(names) - 3):
            four = names[i : i + 4]
            if not all(p.match(n) for p, n in zip(_BOX_NAMES, four)):
                continue
            about = [s for s, outs, _ in request.sentences if out in outs and four[0] in s] or [text]
            said = " ".join(about[0].split())
            at = said.find(four[0])
            unit = _unit_said(" ".join(four), said[at : at + 200], said)
            epsg = _epsg_of(request, source, unit, projected)
            if epsg is None:
                continue
            b.reading(about[0], True).add(
                out,
                "bbox_extent",
                f"`{'`, `'.join(four)}` are minx, miny, maxx, maxy in EPSG:{epsg}, within the extent of `{source}`",
                name=four[0],
                columns=four,
                input=source,
                epsg=epsg,
            )


BBOX_EXTENT = RequirementKind(
    name="bbox_extent",
    params=BboxExtentParams,
    check=_kind_bbox_extent,
    reads="column",
    advice=(
        "write the box as [minx, miny, maxx, maxy] (west, south, east, north: x = longitude or easting first) "
        "in the CRS the request says: list(map(float, gdf.to_crs(EPSG).total_bounds))"
    ),
    read=read_bbox_extent,
)
