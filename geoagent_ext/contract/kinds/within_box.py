"""A clip to a box the request gives in coordinates: nothing of the result lies outside the box.

A box written as two ranges ("3.35-3.45 E, 6.43-6.50 N", "lon 3.35 to 3.45, lat 6.43 to 6.50") or
as an array ("[3.35, 6.43, 3.45, 6.50]" after "box"/"bbox"/"extent") is in longitude/latitude; the
check measures the result in lon/lat whatever CRS it is written in. A selection of the features
that touch the box keeps them whole and reaches out of it: only "clip"/"crop"/"cut" asks for this.
"""

import re

from pydantic import Field

from ..formats import SPATIAL, file_format
from ._kind import Builder, Params, RequestView, RequirementKind


class WithinBoxParams(Params):
    bounds: list[float] = Field(description="[west, south, east, north] in lon/lat", min_length=4, max_length=4)


def _kind_within_box(params, data, sources):
    """(passed, observed): the data's lon/lat bounds lie within the box, give or take 1 % of its size
    (a clip made in a projected CRS bends the box's edges a little)."""
    if data.crs is None:
        return False, "no CRS: where the data lies in lon/lat is unknown"
    x0, y0, x1, y1 = (float(v) for v in (data if data.crs.is_geographic else data.to_crs(4326)).geometry.total_bounds)
    w, s, e, n = params["bounds"]
    slack = max(1e-6, 0.01 * max(e - w, n - s))
    inside = x0 >= w - slack and y0 >= s - slack and x1 <= e + slack and y1 <= n + slack
    seen = f"data at lon/lat [{x0:.5f}, {y0:.5f}, {x1:.5f}, {y1:.5f}]"
    return inside, f"{seen}: {'within' if inside else 'reaches out of'} the box [{w}, {s}, {e}, {n}]"


_NUMBER = r"(-?\d{1,3}(?:\.\d+)?)"
_TO = r"\s*(?:-|\u2013|\u2014|to|and)\s*"
# "3.35-3.45 E", "6.43 to 6.50 N", "between 3.35 and 3.45 east"
_RANGE = re.compile(rf"{_NUMBER}\s*°?{_TO}{_NUMBER}\s*°?\s*(?P<hemi>[EWNS])(?:ast|est|orth|outh)?\b", re.IGNORECASE)
# "lon 3.35 to 3.45", "latitude 6.43-6.50"
_NAMED_RANGE = re.compile(
    rf"\b(?P<axis>lon(?:gitude)?s?|lng|lat(?:itude)?s?)\s*(?:from\s+|between\s+|:\s*|=\s*)?{_NUMBER}\s*°?{_TO}{_NUMBER}",
    re.IGNORECASE,
)
_ARRAY = re.compile(
    rf"\b(?:box|bbox|bounding\s+box|extent|window|rectangle)\b[^\[\d.]{{0,40}}\[\s*{_NUMBER}\s*,\s*{_NUMBER}\s*,"
    rf"\s*{_NUMBER}\s*,\s*{_NUMBER}\s*\]",
    re.IGNORECASE,
)
_CLIP = re.compile(
    r"\b(?:clip\w*|crop\w*|cut\s+(?:\w+\s+){0,4}?(?:at|to|by)\s+the\s+(?:box|bbox|extent|edge))", re.IGNORECASE
)


def _box_said(sentence: str) -> list[float] | None:
    """[west, south, east, north] of the one box a sentence gives in lon/lat, or None."""
    arrays = _ARRAY.findall(sentence)
    if len(arrays) == 1:
        w, s, e, n = (float(v) for v in arrays[0])
        return [w, s, e, n] if w < e and s < n and abs(s) <= 90 and abs(n) <= 90 else None
    xs: list[list[float]] = []
    ys: list[list[float]] = []
    for m in _RANGE.finditer(sentence):
        lo, hi = sorted(float(m.group(i)) for i in (1, 2))
        hemi = m.group("hemi").upper()
        sign = -1.0 if hemi in "WS" else 1.0
        (xs if hemi in "EW" else ys).append(sorted((sign * lo, sign * hi)))
    for m in _NAMED_RANGE.finditer(sentence):
        lo, hi = sorted(float(m.group(i)) for i in (2, 3))
        (ys if m.group("axis").lower().startswith("lat") else xs).append([lo, hi])
    if len(xs) != 1 or len(ys) != 1 or abs(ys[0][0]) > 90 or abs(ys[0][1]) > 90:
        return None
    return [xs[0][0], ys[0][0], xs[0][1], ys[0][1]]


def read_within_box(request: RequestView, b: Builder) -> None:
    """A clip to a box given in lon/lat: the spatial outputs the sentence is about lie within it."""
    for sentence, outs, sure in request.sentences:
        said = request.affirmed(sentence)
        box = _box_said(said) if sure and _CLIP.search(said) else None
        if box is None:
            continue
        b.reading(sentence, True)
        for out in outs:
            if file_format(out) in SPATIAL:
                b.add(out, "within_box", f"nothing lies outside the box {box} (lon/lat) it is clipped to", bounds=box)


WITHIN_BOX = RequirementKind(
    name="within_box",
    params=WithinBoxParams,
    check=_kind_within_box,
    geometry=True,
    advice=(
        "clip the geometries to the box, not just select what touches it: "
        "gpd.clip(gdf, box) (shapely.geometry.box(w, s, e, n) in lon/lat, or converted to the data's CRS)"
    ),
    read=read_within_box,
)
