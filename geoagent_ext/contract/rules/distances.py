"""Distances: a buffer at one distance the request states, and, for the nearest feature of
one named layer to another, its straight-line distance (in the unit the column's name says) or the
attribute of it a column carries.
"""

from __future__ import annotations

import re

from ..formats import SPATIAL
from ..formats import layer_kinds as _layer_kinds
from ..provenance import carried_from, column_provenance
from .builder import _Builder
from .rows import _FEWER_ROWS, _some_of
from .words import _FILE, _UNIT_WORDS, _format, _noun_names, _sentence_at, _singular

# "a 400 m buffer", "a 1.5-km buffer zone", "buffer every stop by 250 m", "buffers with a radius of 1 km",
# "a 100 m protection zone around each point"
_DISTANCE = r"(\d+(?:\.\d+)?)[\s-]*(m|metres?|meters?|km|kilomet(?:re|er)s?)\b"
_BUFFER = re.compile(
    rf"\b{_DISTANCE}[\s-]+(?:[\w-]+\s+){{0,2}}?(?:buffers?\b|"
    rf"(?:zones?|rings?|circles?|corridors?|catchments?|halos?)\s+(?:a)?round\b)|"
    rf"\bbuffer\w*\s+(?:[\w`.-]+\s+){{0,5}}?(?:of|by|at|to|with\s+(?:a\s+)?(?:radius|distance)\s+of)\s+{_DISTANCE}",
    re.IGNORECASE,
)

# Words that pick some features of a layer ("only the markers", "whose kind starts with ...").
_SELECTION = re.compile(
    r"\b(?:only|filter\w*|select\w*|subset|where|whose|(?:which|that)\s+(?:are|is|have|has)|starting\s+with|"
    r"of\s+type|excluding|except)\b",
    re.IGNORECASE,
)


def _buffer_rules(b: _Builder, request: str, outputs: list[str], named: list[str]) -> None:
    """A buffer at one distance the request states ("a 400 m buffer around every connector"), of
    the one spatial input it names, into its one spatial output: the file's polygons cover what that
    input buffered by the distance in true metres covers (not degrees, not Web Mercator's metres,
    not twice the distance)."""
    distances = set()
    for m in _BUFFER.finditer(request):
        b.reading(_sentence_at(request, m.start()))
        value, unit = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        distances.add(float(value) * (1000.0 if unit.lower().startswith("k") else 1.0))
    spatial_out = [o for o in outputs if _format(o) in SPATIAL]
    spatial_in = [p for p in named if _format(p) in SPATIAL]
    if len(distances) != 1 or len(spatial_out) != 1 or len(spatial_in) != 1:
        return
    distance = distances.pop()
    selected = bool(_SELECTION.search(_FILE.sub(" ", request)))  # compared with the features buffered, not all
    b.add(
        spatial_out[0],
        "buffer_distance",
        f"its polygons cover what the {'chosen ' if selected else ''}features of `{spatial_in[0]}` buffered by "
        f"{distance:g} m cover (true metres, measured in a projected CRS made for the data)",
        input=spatial_in[0],
        distance_m=distance,
        **({"selected": True} if selected else {}),
    )


# "distance_m", "nearest_dist_km", "distance_to_hospital_m": a distance in the unit its name ends with.
_DISTANCE_UNIT = re.compile(r"(?:^|_)(?:dist|distance)(?:_\w+)?_(m|km)$", re.IGNORECASE)
_NEAREST = re.compile(r"\b(?:nearest|closest)\b", re.IGNORECASE)
_ALONG_A_NETWORK = re.compile(
    r"\b(?:road|roads|network|driving|drive|walking|walk|travel|route|routing|isochrones?)\b", re.IGNORECASE
)


_K_NEAREST = re.compile(
    r"\b(?:two|three|four|five|six|seven|eight|nine|ten|\d+|k|several|few)\s+(?:nearest|closest)\b", re.IGNORECASE
)
_FOR_EACH = re.compile(r"\b(?:for\s+)?(?:every|each)\s+([a-z]+)\b", re.IGNORECASE)


def _nearest_distance_rules(b: _Builder, request: str, inputs: dict[str, dict], named: list[str]) -> None:
    """A distance column ("distance_m") of an output with one row per feature of one named layer,
    when the request asks for the nearest feature of the one other named layer: each value is the
    straight-line distance from the row's feature to its nearest feature of that layer, in the unit
    the name says (a distance of each geometry to itself, 0.0 everywhere, is finite and >= 0 but no
    distance to anything). Never for the k nearest, whose second and third are not the nearest."""
    layers = [p for p in named if p in inputs and (_layer_kinds(inputs[p]) or _lonlat_wkt(inputs[p]))]
    if (
        len(layers) != 2
        or not _NEAREST.search(request)
        or _ALONG_A_NETWORK.search(request)
        or _K_NEAREST.search(request)
    ):
        return  # a distance along roads is not a straight line; the second nearest is not the nearest
    each = [
        (m, p) for m in _FOR_EACH.finditer(request) for p in layers if _noun_names(m.group(1).lower().rstrip("s"), p)
    ]
    for req in [r for r in b.requirements if r.kind == "columns"]:
        b.reading(req.said, req.sure)
        source = next(
            (
                r.params["input"]
                for r in b.requirements
                if r.kind == "rows_as_input" and r.output == req.output and r.params.get("input") in layers
            ),
            None,
        )
        worked_on = source is None and len({p for _, p in each}) == 1  # "for every address ...": the addresses' rows
        source = each[0][1] if worked_on else source
        to = next((p for p in layers if p != source), None)
        if not (source and to):
            continue
        if worked_on and any(_DISTANCE_UNIT.search(n) or _column_of_layer(n, to, inputs) for n in req.params["names"]):
            _one_row_per_feature_worked_on(b, req.output, source, inputs, request, each[0][0])
        for name in req.params["names"]:
            unit = _DISTANCE_UNIT.search(name) or _distance_said(name, request)
            if unit:
                b.add(
                    req.output,
                    "nearest_distance",
                    f"`{name}` is the straight-line distance in "
                    f"{_UNIT_WORDS[unit.group(1).lower()]} from each feature of `{source}` "
                    f"to the nearest feature of `{to}`",
                    name=name,
                    unit=unit.group(1).lower(),
                    input=source,
                    to=to,
                )
                continue
            column = _column_of_layer(name, to, inputs)
            if column:  # `nearest_hospital_name`: the nearest hospital's `name`, not any hospital's
                b.add(
                    req.output,
                    "nearest_attribute",
                    f"`{name}` is the `{column}` of the nearest feature of `{to}` to each feature of `{source}`",
                    name=name,
                    column=column,
                    input=source,
                    to=to,
                )


def _one_row_per_feature_worked_on(
    b: _Builder, out: str, source: str, inputs: dict[str, dict], request: str, each: re.Match
) -> None:
    """ "For every address in `a`, find the nearest hospital …" written to one table: the nearest of
    each is one row per feature of `a`, every one of them. Sure only when no word of the request
    selects, groups or deduplicates those features; otherwise it is shown, not checked. ``each`` is the
    "for every <noun>" that names ``source``."""
    rows = inputs[source].get("rows")
    if rows is None or _format(out) not in SPATIAL | {"csv", "parquet"} or len(b.outputs) != 1:
        return
    noun, words = _singular(each.group(1)), _FILE.sub(" ", request)
    some = _FEWER_ROWS.search(words) or _SELECTION.search(words) or _some_of(noun, words)
    said, sure = b.said, b.sure
    b.reading(_sentence_at(request, each.start()), sure=not some).add(
        out,
        "rows_as_input",
        f"one row per feature of `{source}` ({rows}): the nearest for each {noun}",
        input=source,
        rows=rows,
    )
    b.said, b.sure = said, sure


_UNIT_SUFFIX = re.compile(r"_(m|km)$", re.IGNORECASE)


def _lonlat_wkt(facts: dict) -> bool:
    """A table whose geometry is WKT text in one column, in lon/lat (the checks read it as a layer)."""
    return len((facts.get("defects") or {}).get("wkt_text") or []) == 1 and bool(facts.get("bounds_wgs84"))


def _distance_said(name: str, request: str) -> re.Match | None:
    """The unit of a column named by its unit whose name or description says it is the distance to
    the nearest ("nearest_hospital_m", "gap_km (distance to the closest station)")."""
    unit = _UNIT_SUFFIX.search(name)
    if not unit:
        return None
    if re.match(r"(?:nearest|closest)_", name, re.IGNORECASE):
        return unit
    described = re.search(rf"`?{re.escape(name)}`?\s*\(([^()]{{0,120}})\)", request)
    said = described.group(1) if described else ""
    return unit if re.search(r"\bdistance\b", said) and _NEAREST.search(said) else None


def _column_of_layer(name: str, layer: str, inputs: dict[str, dict]) -> str | None:
    """The column of ``layer`` a requested ``name`` carries, as its provenance says: its own name when
    only that input has it, or a joined column renamed (``nearest_hospital_name`` <- ``name`` of
    ``hospitals.parquet``); None otherwise."""
    carried = carried_from(name, column_provenance(name, inputs))
    return carried[1] if carried and carried[0] == layer else None
