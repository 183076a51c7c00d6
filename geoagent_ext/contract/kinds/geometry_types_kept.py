"""Each geometry type as the input has it: as many Points, LineStrings, Polygons, MultiPolygons (…)
as the input, none exploded into parts nor promoted to multi-part."""

import re

from ..checker import _contract_input
from ..formats import SPATIAL, file_format
from ._kind import Builder, Params, RequestView, RequirementKind


class GeometryTypesKeptParams(Params):
    input: str  # the layer whose features' types the file keeps


def _kind_geometry_types_kept(params, data, sources):
    from collections import Counter

    src = _contract_input(params["input"], sources)
    if getattr(src, "geometry", None) is None:
        return False, f"cannot compare: `{params['input']}` has no geometries"
    mine = Counter(t for t in data.geom_type.tolist() if t)
    theirs = Counter(t for t in src.geom_type.tolist() if t)
    if mine == theirs:
        return True, "as many features of each geometry type as `{}`: {}".format(
            params["input"], ", ".join(f"{n} {t}" for t, n in sorted(theirs.items()))
        )
    changed = sorted(t for t in set(mine) | set(theirs) if mine[t] != theirs[t])
    return False, "geometry types changed: " + ", ".join(f"{t} {theirs[t]} → {mine[t]}" for t in changed)


# "leave the geometry types alone", "geometry types stay as they are", "points stay points"
_TYPES_KEPT = re.compile(
    r"\b(?:leave|keep)\w*\s+(?:the\s+|all\s+)?geometry\s+types?\s+(?:alone|as\s+(?:they\s+are|it\s+is)|unchanged|intact)\b|"
    r"\bgeometry\s+types?\s+(?:stays?|remains?|(?:are|is)\s+(?:kept|unchanged|untouched))\b|"
    r"\b(points|lines|polygons|multipolygons|multilinestrings|linestrings)\s+(?:stay|remain)\s+\1\b",
    re.IGNORECASE,
)


def read_geometry_types_kept(request: RequestView, b: Builder) -> None:
    """The one spatial output of a request that says the geometry types stay keeps the one spatial
    input's types, feature for feature."""
    spatial_out = [o for o in request.outputs if file_format(o) in SPATIAL]
    spatial_in = [p for p, f in request.inputs.items() if f.get("geometry_type") and file_format(p) in SPATIAL]
    if len(spatial_out) != 1 or len(spatial_in) != 1:
        return
    for sentence, _, _ in request.sentences:
        if _TYPES_KEPT.search(sentence):
            b.reading(sentence, True)
            b.add(
                spatial_out[0],
                "geometry_types_kept",
                f"each geometry type as `{spatial_in[0]}` has it: none exploded, none made multi-part",
                input=spatial_in[0],
            )
            return


GEOMETRY_TYPES_KEPT = RequirementKind(
    name="geometry_types_kept",
    params=GeometryTypesKeptParams,
    check=_kind_geometry_types_kept,
    geometry=True,
    advice=(
        "keep each feature's geometry type: no explode(), no promotion to Multi*, no union of parts; "
        "reproject with to_crs() only"
    ),
    read=read_geometry_types_kept,
)
