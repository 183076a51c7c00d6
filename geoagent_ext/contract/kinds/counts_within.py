"""A count of another input's features within a distance of each row's feature: the request counts
what lies within a length of each feature ("how many shops are within 300 m of each stop", "count
the wells no farther than 2 km from every village"), so each row's count is the number of the
counted input's features at most that far (in metres on the ground) from the row's feature, found
by the key the row and its input share."""

from __future__ import annotations

import re

from ..checker import _contract_has_geometry, _contract_input, _contract_key_match
from ..formats import SPATIAL, file_format
from ._kind import Builder, ColumnParams, RequestView, RequirementKind
from .distance_cap import _CAPS, _LENGTH_UNITS
from .measure_totals import _names_a_value


class CountsWithinParams(ColumnParams):
    around: str  # the input whose features the rows are (found by a key column the file shares)
    counted: str  # the input whose features are counted
    distance_m: float  # the distance, in metres


def _kind_counts_within(params, data, value, sources):
    """(passed, observed): each row's count is the number of counted features within the distance of
    its feature (distances in the local UTM zone; a feature within 0.5 % of the distance may count
    either way)."""
    import pandas as pd
    import shapely

    name, reach = params["name"], float(params["distance_m"])
    around = _contract_input(params["around"], sources)
    counted = _contract_input(params["counted"], sources)
    for frame, path in ((around, params["around"]), (counted, params["counted"])):
        if not _contract_has_geometry(frame) or frame.crs is None:
            return False, f"cannot measure: `{path}` has no geometries with a CRS"
    if isinstance(data, dict):
        return False, f"`{name}` is not a column of a table"
    match = _contract_key_match(data, around, name)
    if match is None:
        return False, f"no column says which `{params['around']}` feature each row is"
    column, rows, _ = match
    utm = around.estimate_utm_crs()
    places = around.to_crs(utm).geometry.values
    others = counted.to_crs(utm).geometry.values
    values = pd.to_numeric(data[name], errors="coerce").tolist()
    wrong = []
    for i, (v, r) in enumerate(zip(values, rows)):
        d = shapely.distance(places[r], others)
        low, high = int((d <= reach * 0.995).sum()), int((d <= max(reach * 1.005, 0.01)).sum())
        if v != v or not low <= v <= high:
            wrong.append((data[column].iloc[i], v, low))
    seen = (
        f"{len(values) - len(wrong)} of {len(values)} counts are the `{params['counted']}` features within {reach:g} m"
    )
    if not wrong:
        return True, seen
    k, v, n = wrong[0]
    return False, seen + f"; e.g. `{column}` {k!r} has {v!r} where {n} lie within {reach:g} m"


_COUNTING = re.compile(r"\b(?:count\w*|how\s+many|number\s+of)\b", re.I)
# Words that may narrow what is counted beyond the distance (a selection the check does not apply)
_NARROWED = re.compile(
    r"\b(?:except|exclud\w*|without|not(?!\s+(?:be\s+)?(?:disappear\w*|dropped|removed|lost|left\s+out|missing)\b)|"
    r"only(?!\s+(?:partly|partially|in\s+part)\b)|just|where|whose|unless|other\s+than|apart\s+from|but|if)\b|n't\b",
    re.I,
)
# "how many parcels intersect the flood zone", "the number of fields overlapping each plot"
_INTERSECTING = re.compile(r"\b(?:intersect\w*|overlap\w*)\b", re.I)
# a share of the feature, containment or centres: not every intersecting feature
_PARTLY = re.compile(
    r"\b(?:more\s+than|at\s+least|half|most(?:ly)?|percent|entirely|completely|fully|wholly|within|inside|"
    r"contain\w*|centr\w*|centroids?)\b|%",
    re.IGNORECASE,
)
# the value a sentence defines: "- polygons: how many ...", "n_parcels (the number of ...)", "hits = how many ..."
_DEFINED = re.compile(
    r"^\s*(?:[-*\u2022]\s*|\d{1,2}[.)]\s*)?[`\"']?(?P<name>[A-Za-z_]\w*)[`\"']?\s*(?::|=|\(|\u2014|\u2013|\s-\s)\s*"
    r"(?:the\s+)?(?:how\s+many|number\s+of|count\s+of)\b"
)


def _located(facts: dict) -> bool:
    return bool(facts.get("geometry_type") or facts.get("epsg") or facts.get("layers"))


def read_counts_within(request: RequestView, b: Builder) -> None:
    """One distance said with a counting word in the same sentence, two inputs with geometries: the
    one sharing a column with the output is what the rows are, the other is counted; the output's
    one column that no input has (or, of several, the one named by the distance's number or as a
    count) is the count. Sure unless the request names a value of the counted input or has a word that
    may narrow what is counted."""
    located = [p for p, facts in request.inputs.items() if file_format(p) in SPATIAL | {"parquet"} and _located(facts)]
    if len(located) != 2:
        return
    said = set()
    sentence = ""
    for s, _, _ in request.sentences:
        if not _COUNTING.search(s):
            continue
        for pattern in _CAPS:
            for m in pattern.finditer(s):
                unit = _LENGTH_UNITS[m.group("unit").lower()]
                said.add(round(float(m.group("number").replace(",", "")) * (1000 if unit == "km" else 1), 6))
                sentence = sentence or s
    if not said:
        _intersect_counts(request, b, located)
    if len(said) != 1:
        return
    reach = said.pop()
    inputs_columns = {p: set(request.inputs[p].get("columns") or []) for p in located}
    for out in request.outputs:
        columns = b.columns_of(out)
        sharing = [p for p in located if inputs_columns[p] & set(columns)]
        if len(sharing) != 1:
            continue
        around = sharing[0]
        counted = next(p for p in located if p != around)
        own = [c for c in columns if not any(c in cs for cs in inputs_columns.values())]
        if len(own) > 1:
            own = [c for c in own if re.search(rf"(?<!\d){reach:g}(?!\d)|(?:^|_)(?:count|n|num|number)(?:_|$)|^n_", c)]
        if len(own) != 1:
            continue
        sure = not _names_a_value(request, counted, None) and not _NARROWED.search(request.text)
        b.reading(sentence, sure).add(
            out,
            "counts_within",
            f"`{own[0]}` is the number of `{counted}` features within {reach:g} m of each row's `{around}` feature",
            name=own[0],
            around=around,
            counted=counted,
            distance_m=reach,
        )


def _intersect_counts(request: RequestView, b: Builder, located: list[str]) -> None:
    """A value a sentence defines as how many of the other input's features intersect (overlap) each
    row's feature, with no distance said: the count within 0 m. The rows are the input sharing a
    column with the output; sure as a count within a distance is."""
    inputs_columns = {p: set(request.inputs[p].get("columns") or []) for p in located}
    for sentence, outs, _ in request.sentences:
        defined = _DEFINED.match(sentence)
        if not defined or not _INTERSECTING.search(sentence) or _PARTLY.search(sentence):
            continue
        name = defined.group("name")
        for out in outs or (list(request.outputs) if len(request.outputs) == 1 else []):
            columns = b.columns_of(out)
            sharing = [p for p in located if inputs_columns[p] & set(columns)]
            if name not in columns or any(name in cs for cs in inputs_columns.values()) or len(sharing) != 1:
                continue
            around = sharing[0]
            counted = next(p for p in located if p != around)
            sure = not _names_a_value(request, counted, None) and not _NARROWED.search(request.text)
            b.reading(sentence, sure).add(
                out,
                "counts_within",
                f"`{name}` is the number of `{counted}` features that intersect each row's `{around}` feature",
                name=name,
                around=around,
                counted=counted,
                distance_m=0.0,
            )


COUNTS_WITHIN = RequirementKind(
    name="counts_within",
    params=CountsWithinParams,
    check=_kind_counts_within,
    reads="column",
    advice=(
        "count with distances in metres: project both layers to the local UTM zone (or measure on the ellipsoid), "
        "then count the features with distance <= the distance (sjoin_nearest / dwithin / buffer in metres, "
        "never a buffer in degrees); keep a 0 for a feature with none"
    ),
    read=read_counts_within,
)
