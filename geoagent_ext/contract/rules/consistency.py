"""Requirements weighed against each other and the request's own words: of two that cannot
both hold on a right answer, the one with less support is left an unsure reading (shown, not
gating).
"""

from __future__ import annotations

import re

from ..model import Requirement
from .builder import _Builder, _output_words


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
