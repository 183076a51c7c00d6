"""What the request says of the geometries: the types asked for or refused (and
single-part), no null, invalid or duplicated geometry, invalid features repaired rather than
dropped, each feature's shape kept when nothing asks for new shapes, and no polygon below an area
the request discards.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..formats import SPATIAL
from .builder import _Builder, _output_words
from .words import _CLAUSE, _FILE, _NEGATION, _format, _sentence_at

GEOMETRY_TYPES = ("MultiLineString", "MultiPolygon", "MultiPoint", "LineString", "Polygon", "Point")

_TYPE_WORD = re.compile(r"\b(" + "|".join(GEOMETRY_TYPES) + r")s?\b")
_SINGLE_PART = re.compile(r"\bsingle[- ]part\b", re.IGNORECASE)

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


def _one_copy_kept(b: _Builder, named: list[str]) -> None:
    """ "No duplicate geometries" in a cleaning of one named layer keyed by a column: of each set of
    its features sharing a geometry one stays, so a dedup that drops every copy (``keep=False``) is
    caught; the features the request discards for their size may go."""
    spatial_in = [p for p in named if _format(p) in SPATIAL]
    if len(spatial_in) != 1:
        return
    for req in [r for r in b.requirements if r.kind == "geometries_unique"]:
        same = [r for r in b.requirements if r.output == req.output]
        key = next((r.params["name"] for r in same if r.kind == "unique" and r.params.get("name")), None)
        least = next((float(r.params["m2"]) for r in same if r.kind == "min_area" and r.params.get("m2")), None)
        if key:
            req.params.update(input=spatial_in[0], key=key, min_m2=least)
            req.text += " — of each set of the input's features sharing a geometry, one kept"


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
