"""Where each requested column comes from, decided from the data profile: carried from an
input that has it, taken from a joined layer's column (`district_name` <- `name` of
`districts.geojson`), or computed — and then from what, by what its name says.

Small models select a requested name as if it existed ("KeyError: 'bbox_minx'" five times);
the provenance tells the coder, and the repair, that it must be derived and from where.
"""

from __future__ import annotations

import posixpath
import re

_UNIT = r"(_(m|km|m2|km2|ha|sqm|sqkm|metres|meters|mi))?"
COMPUTED = (
    (
        re.compile(r"bbox|bounds|(^|_)(min|max)_?[xy]($|_)|(^|_)[xy]_?(min|max)($|_)", re.I),
        "computed from geometry.bounds (total_bounds for the whole layer), in the CRS the name or request says",
    ),
    (
        re.compile(rf"^area{_UNIT}$|_area$", re.I),
        "computed: the geometry's area in a metric CRS, in the unit its name says",
    ),
    (
        re.compile(rf"^(length|perimeter){_UNIT}$|_(length|perimeter)$", re.I),
        "computed: the geometry's length in a metric CRS, in the unit its name says",
    ),
    (
        re.compile(rf"^(distance|dist){_UNIT}$|_(distance|dist)$", re.I),
        "computed: a distance in a metric CRS (sjoin_nearest(..., distance_col=...))",
    ),
    (re.compile(r"(^|_)(count|n)($|_)|^n_", re.I), "computed: a count per row or group (0 for groups with none)"),
    (re.compile(r"(^|_)rank($|_)", re.I), "computed: a rank, 1 for the first, from the sort order"),
    (
        re.compile(r"(^|_)(lon|lng|longitude|x)($|_)", re.I),
        "computed: the x / longitude of the geometry (or its centroid)",
    ),
    (re.compile(r"(^|_)(lat|latitude|y)($|_)", re.I), "computed: the y / latitude of the geometry (or its centroid)"),
)


def _stem(path: str) -> str:
    return posixpath.splitext(posixpath.basename(path))[0].lower()


def column_provenance(name: str, inputs: dict[str, dict]) -> str:
    """One phrase: where ``name`` comes from."""
    holders = [p for p, facts in inputs.items() if name in (facts.get("columns") or [])]
    if holders:
        return (
            f"from `{holders[0]}`"
            if len(holders) == 1
            else "from the inputs (" + ", ".join(f"`{h}`" for h in holders) + ")"
        )
    parts = name.split("_")
    for cut in range(1, len(parts)):
        layer_word, rest = parts[cut - 1].lower().rstrip("s"), "_".join(parts[cut:])
        for path, facts in inputs.items():
            if layer_word and layer_word in _stem(path) and rest in (facts.get("columns") or []):
                return f"the `{rest}` column of `{path}` (joined), renamed"
    for pattern, text in COMPUTED:
        if pattern.search(name):
            return text
    return "computed from the data (no input has it)"


_FROM_INPUT = re.compile(r"^from `([^`]+)`$")
_FROM_JOINED = re.compile(r"^the `([^`]+)` column of `([^`]+)` \(joined\), renamed$")


def carried_from(name: str, source: str) -> tuple[str, str] | None:
    """(input path, its column) of a provenance phrase that carries ``name`` from one input — under
    its own name, or a joined layer's column renamed; None for anything computed or ambiguous."""
    own, joined = _FROM_INPUT.match(source), _FROM_JOINED.match(source)
    if own:
        return own.group(1), name
    return (joined.group(2), joined.group(1)) if joined else None
