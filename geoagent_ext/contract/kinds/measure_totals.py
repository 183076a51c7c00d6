"""A measure totalled over an input's features: each row's value is the geodesic area or length (in
the unit its name or the request gives) summed over the input features whose group key equals the
row's ("the total road length per highway class in km"), or one summary value is the total of
every feature ("total_footprint_m2")."""

from __future__ import annotations

import re
from typing import Literal

from ..checker import (
    _CONTRACT_UNIT_FACTOR,
    _contract_geodesic,
    _contract_has_geometry,
    _contract_input,
    _contract_key,
    _contract_numbers,
    _contract_rounding_step,
)
from ..formats import SPATIAL, file_format, layer_kinds
from ._kind import Builder, ColumnParams, RequestView, RequirementKind
from .measure_units import _contract_unit_guess


class MeasureTotalsParams(ColumnParams):
    measure: Literal["area", "length"]
    unit: str  # km2, m2, ha, km, m (formats.UNIT_IN_BASE)
    input: str  # the input whose features are summed
    group: str | None = None  # the key column the rows and the input share (None: one total of every feature)


def _contract_union_measure(geoms, measure):
    """The geodesic measure of the union of lon/lat geometries (features that overlap counted once)."""
    import shapely
    from pyproj import Geod

    whole = shapely.union_all([g for g in geoms if g is not None and not g.is_empty])
    geod = Geod(ellps="WGS84")
    return abs(geod.geometry_area_perimeter(whole)[0]) if measure == "area" else geod.geometry_length(whole)


def _kind_measure_totals(params, data, value, sources):
    """(passed, observed): each row's value is the sum of the geodesic measures of the input
    features of its group (or of their union: overlaps counted once), or the one value is that of
    every feature, within 0.5 % or half the rounding the values show."""
    import pandas as pd

    name, measure, unit, group = params["name"], params["measure"], params["unit"], params.get("group")
    label = {"km2": "km²", "sqkm": "km²", "m2": "m²", "sqm": "m²"}.get(unit, unit)
    src = _contract_input(params["input"], sources)
    if not _contract_has_geometry(src) or src.crs is None:
        return False, f"cannot measure: `{params['input']}` has no geometries with a CRS"
    factor = _CONTRACT_UNIT_FACTOR[unit]
    measures = [m or 0.0 for m in _contract_geodesic(src, measure)]
    if group:
        if isinstance(data, dict) or group not in data.columns:
            return False, f"`{name}` has no `{group}` beside it to say which features it sums"
        if group not in src.columns:
            return False, f"`{group}` is not a column of `{params['input']}`"
        members = {}
        for i, v in enumerate(src[group].tolist()):
            if v is not None and v == v:
                members.setdefault(_contract_key(v), []).append(i)
        keys = [_contract_key(v) for v in data[group].tolist()]
        values = pd.to_numeric(data[name], errors="coerce").tolist()
        how = f"the `{params['input']}` features of the same `{group}`"
    else:
        members = {"": list(range(len(measures)))}
        values = [pd.to_numeric(v, errors="coerce") for v in _contract_numbers(value)]
        keys = [""] * len(values)
        how = f"every feature of `{params['input']}`"
    if not values:
        return False, f"`{name}` holds no value"
    slack = _contract_rounding_step([v for v in values if v == v]) / 2
    lonlat = None
    wrong, ratios = [], []
    for k, v in zip(keys, values):
        rows = members.get(k)
        if rows is None or v != v:
            wrong.append((k, v, None))
            continue
        expected = sum(measures[i] for i in rows) * factor
        if expected:
            ratios.append(v / expected)
        if abs(v - expected) <= 0.005 * expected + slack:
            continue
        if lonlat is None:
            lonlat = src.geometry.to_crs(4326).values
        union = _contract_union_measure([lonlat[i] for i in rows], measure) * factor
        if abs(v - union) > 0.005 * union + slack:
            wrong.append((k, v, expected))
    median = sorted(ratios)[len(ratios) // 2] if ratios else float("nan")
    seen = (
        f"`{name}` is {median:.4g} × the summed geodesic {measure} of {how} in {label} "
        f"(median; {len(values) - len(wrong)} of {len(values)} within 0.5 %)"
    )
    if not wrong:
        return True, seen
    k, v, e = wrong[0]
    first = (
        f"no feature has the `{group}` {k!r}"
        if e is None and group and k not in members
        else f"e.g. {v!r} where the sum is {e:.6g}"
        if e is not None
        else f"e.g. {v!r}"
    )
    return False, seen + f"; {first}" + (_contract_unit_guess(median) if ratios and median > 0 else "")


# A measure's name: its unit and, or, its measure ("length_km", "hectares", "total_footprint_m2", "area").
_UNITS = {
    "km2": "km2",
    "sqkm": "km2",
    "m2": "m2",
    "sqm": "m2",
    "ha": "ha",
    "hectare": "ha",
    "hectares": "ha",
    "km": "km",
    "kilometres": "km",
    "kilometers": "km",
    "m": "m",
    "metres": "m",
    "meters": "m",
    "acres": "acre",
    "acre": "acre",
}
_AREA_UNITS = {"km2", "m2", "ha", "acre"}
_MEASURES = {"area": "area", "length": "length", "len": "length"}
# A name that is not a feature's own measure summed: another quantity (a distance, a floor area over
# storeys, a rate, a share) or another statistic.
_NOT_A_SUM = {
    "dist",
    "distance",
    "buffer",
    "radius",
    "width",
    "height",
    "depth",
    "elev",
    "elevation",
    "floor",
    "gfa",
    "per",
    "density",
    "share",
    "pct",
    "percent",
    "ratio",
    "avg",
    "mean",
    "median",
    "max",
    "min",
    "largest",
    "smallest",
    "overlap",
    "within",
    "inside",
    "perimeter",
}
_UNIT_SAID = [
    (re.compile(r"\b(?:square\s+kilomet(?:re|er)s?|sq\.?\s*km|km²|km2)\b", re.I), "km2"),
    (re.compile(r"\b(?:square\s+met(?:re|er)s?|sq\.?\s*m|m²|m2)(?!\w)", re.I), "m2"),
    (re.compile(r"\bhectares?\b", re.I), "ha"),
    (re.compile(r"\b(?:international\s+)?acres?\b", re.I), "acre"),
    (re.compile(r"\b(?:kilomet(?:re|er)s|km)\b(?![²2])", re.I), "km"),
    (re.compile(r"\b(?:met(?:re|er)s)\b", re.I), "m"),
]
_SUM_WORDS = re.compile(
    r"\b(?:total(?:led|s)?|sum(?:med|s)?|how\s+much|combined|altogether|in\s+all|add(?:ed|s)?\s+up|"
    r"added\s+together)\b",
    re.I,
)
_OTHER_STATISTIC = re.compile(r"\b(?:average|mean|median|maximum|minimum|typical|per\s+(?:feature|capita))\b", re.I)
# Words that select the features summed or change their shapes: the total is then of other features.
_SELECTING = re.compile(
    r"\b(?:leav(?:e|ing)\s+out|left\s+out|except|excluding|exclude[sd]?|without|ignor(?:e|ing)|skip(?:ping)?|"
    r"drop(?:ping)?|discard(?:ing)?|remov(?:e|ing)|omit(?:ting)?|other\s+than|apart\s+from|but\s+not|not|n't|"
    r"where|whose|filter\w*|just|at\s+least|at\s+most|more\s+than|less\s+than|fewer\s+than|(?:larger|smaller|"
    r"longer|shorter|greater|bigger)\s+than|above|below|exceed\w*|between|within|inside|outside|clip\w*|"
    r"intersect\w*|overlap\w*|buffer\w*|dissolv\w*|simplif\w*|selected|subset|unless|if|contain\w*|"
    r"(?:that|which|who)\s+(?:have|has|had|are|is|lie|lies|fall|falls)|with\s+(?:a|an|at|no|any|some|more|less|"
    r"fewer|one(?!\s+(?:row|record|line|entry)s?\s+(?:per|for)\b)|two|three)|having)\b|n't\b|\bonly\b(?!\s*(?:[,.;:)]|$|once\b|one\b|in\b|as\b|to\b))|[<>=≤≥]",
    re.I,
)
_GROUP_BY = (
    r"(?<!\w)(?<!sort )(?<!sorted )(?<!order )(?<!ordered )(?<!ties )"
    r"(?:per|for\s+(?:each|every)|by|each|every|grouped\s+by)\s+(?:the\s+|a\s+)?`?"
)


def _unit_and_measure(name: str, request: str) -> tuple[str, str] | None:
    """(unit, measure) a name says, its unit from the request when the name gives only its measure."""
    tokens = [t.lower() for t in name.split("_") if t]
    if not tokens or set(tokens) & _NOT_A_SUM:
        return None
    units = {_UNITS[t] for t in tokens if t in _UNITS}
    measures = {_MEASURES[t] for t in tokens if t in _MEASURES}
    if len(units) > 1 or len(measures) > 1:
        return None
    if not units and measures:  # "length": the unit the request says, one of that measure's
        said = {code for pattern, code in _UNIT_SAID if pattern.search(request)}
        units = {u for u in said if (u in _AREA_UNITS) == (measures == {"area"})}
        if len(units) != 1:
            return None
    if not units:
        return None
    unit = units.pop()
    measure = "area" if unit in _AREA_UNITS else "length"
    if measures and measures != {measure}:
        return None
    if measure == "length" and not measures and not _LENGTH_DESCRIBED(name).search(request):
        return None  # "distance_km", "km": a length of what is not said (unless its description says "length")
    return unit, measure


def _LENGTH_DESCRIBED(name: str) -> re.Pattern:
    """ "network_km = its routes' lengths summed": the name's own description says it is a length."""
    return re.compile(
        rf"(?<![\w`]){re.escape(name)}`?\s*(?:=|:|\(|\u2014|\u2013|\s-\s|\bis\b)[^.;()=]{{0,80}}?\blengths?\b", re.I
    )


# A clause that says what another value is ('"stations": <n>', "stations = 0 where there is none").
_SAID_OF = re.compile(r"\s*[`\"']?([A-Za-z_]\w*)[`\"']?\s*(?:==?|:)")
# "overlaps counted twice is fine": how the features are summed (the check takes the sum or the union), not which
_HOW_OVERLAPS_COUNT = re.compile(
    r"\boverlap(?:s|ping\s+\w+)?\s+(?:are\s+|get\s+|being\s+)?counted\s+(?:twice|double|once|only\s+once)\b",
    re.IGNORECASE,
)
_EXTREME = re.compile(
    r"\b(?:largest|biggest|smallest|longest|shortest|widest|narrowest|highest|lowest)\b"
    r"(?!(?:\s+[\w-]+){0,3}?\s+(?:first|last)\b)",
    re.IGNORECASE,
)
_BULLET = re.compile(r"\s*([-*\u2022]\s*|\d{1,2}[.)]\s*)?[`\"']?([A-Za-z_]\w*)[`\"']?\s*(?::(?!\S)|=(?!=))")
# "0 when it has none", "zero where there are none": how an empty group is written, not which features
_ZERO_FILL = re.compile(
    r"\b(?:0|zero|none)\s+(?:if|where|when)\s+(?:it|they|there)\s+(?:has|have|is|are)\s+(?:none|no\s+\w+)\b", re.I
)
# "=" that compares: after a column's name ("park_class = 'park'")


def _clauses(text: str) -> list[str]:
    return [c for c in re.split(r"[,;()\[\]{}]|\.(?:\s|$)|\n", text) if c.strip()]


def _equals_not_compared(clause: str, columns: set[str]) -> str:
    """The clause with each "=" that follows no input column's name written "is": "two visits on one
    day = 1 day" says how a value counts; "park_class = 'park'" still selects."""

    def compared(m: re.Match) -> str:
        before = re.search(r"([A-Za-z_]\w*)[`\"']?\s*$", clause[: m.start()])
        return m.group(0) if before and before.group(1) in columns else " is "

    return re.sub(r"(?<![<>!=])==?(?!=)", compared, clause)


def _selects(request: RequestView, name: str, others: set[str]) -> bool:
    """Whether the request's words may select the features summed, or ask another statistic of them:
    a selecting word, or an extreme that is not an order ("the largest park's area", not "largest
    first"), in a clause that is not another value's ("- named_buildings: ...", "stations = 0 where
    there is none"). An "=" compares only after an input column's name."""
    columns = {c for facts in request.inputs.values() for c in facts.get("columns") or []}
    for sentence, _, _ in request.sentences:
        bullet = _BULLET.match(sentence)  # "- named_buildings: how many have ...": about another value
        if bullet and bullet.group(2) != name and (bullet.group(2) in others or bullet.group(1)):
            continue
        sentence = _HOW_OVERLAPS_COUNT.sub(" ", re.sub(r"<\s*\w*\s*>", " ", sentence))  # "<n>": a placeholder
        sentence = _ZERO_FILL.sub(" ", sentence)
        if others:  # "big_ones (plots whose area > 1 ha)": the description of another value
            names = "|".join(re.escape(o) for o in sorted(others, key=len, reverse=True))
            sentence = re.sub(rf"(?<![\w`])`?(?:{names})`?\s*\([^()]*\)", " ", sentence)
        for clause in _clauses(sentence):
            said = _SAID_OF.match(clause)
            if said and said.group(1) in others:
                continue
            if said and said.group(1) == name:  # "network_km = ...": what the value is, its words read on
                clause = clause[said.end() :]
            clause = _equals_not_compared(clause, columns)
            if _SELECTING.search(clause) or _EXTREME.search(clause):
                return True
    return False


def _names_a_value(request: RequestView, source: str, group: str | None) -> bool:
    """An input category value (other than the group column's) named in the request's words."""
    text = re.sub(r"[\w./-]+\.\w+", " ", request.text)  # file names aside
    for column, values in (request.inputs[source].get("categories") or {}).items():
        if column == group:
            continue
        for v in values:
            if re.search(rf"(?<![\w-]){re.escape(v)}(?![\w-])", text, re.IGNORECASE):
                return True
    return False


def _group_of(text: str, name: str, columns: list[str], source_columns: list[str]) -> str | None:
    """The one output column, also the input's, that the request groups by ("per highway class",
    "for each park_class", "by district")."""
    found = set()
    for column in [c for c in columns if c != name and c in source_columns]:
        stem = re.sub(r"_(?:id|code|name|key)$", "", column, flags=re.I)  # "per ward": ward_id
        stems = (stem,) if stem != column and len(stem) >= 3 and stem not in source_columns else ()
        for said in dict.fromkeys((column, column.replace("_", " "), *stems)):
            if re.search(_GROUP_BY + re.escape(said) + r"`?(?![\w-])", text, re.IGNORECASE):
                found.add(column)
    return found.pop() if len(found) == 1 else None


def _one_row_per(group: str) -> re.Pattern:
    """ "one row per <group>": the output holds the group column."""
    return re.compile(
        rf"\bone\s+(?:row|record|line|entry)\s+(?:per|for\s+each|for\s+every)\s+(?:the\s+)?"
        rf"(?:{re.escape(group)}|{re.escape(group.replace('_', ' '))})\b",
        re.I,
    )


def add_group_total(b: Builder, out: str, name: str, measure: str, unit: str, source: str, group: str) -> None:
    """``name`` of ``out`` is the total ``measure`` of ``source``'s features of each row's ``group``, as
    read by the words ``b`` holds."""
    b.add(
        out,
        "measure_totals",
        f"`{name}` is the total {measure} in {unit} of the `{source}` features of each row's `{group}` "
        "(all of them, measured as on the ellipsoid)",
        name=name,
        measure=measure,
        unit=unit,
        input=source,
        group=group,
    )


def read_measure_totals(request: RequestView, b: Builder) -> None:
    """A measure column of per-group rows that the request says is a total per group ("the total road
    length per highway class", "how much park land ... per park_class"): each row is the sum over
    its group's features of the one input with geometries of that measure; a summary value named a
    total ("total_footprint_m2") in a JSON document: the sum over every feature. Sure only when no
    word may select the features summed (a filter the check does not apply)."""
    text = " ".join(request.text.split())
    for out in request.outputs:
        columns = b.columns_of(out)
        for name in columns:
            said = _unit_and_measure(name, text)
            if said is None:
                continue
            unit, measure = said
            kind = "Polygon" if measure == "area" else "LineString"
            measured = [
                p
                for p, facts in request.inputs.items()
                if file_format(p) in SPATIAL | {"parquet"} and any(kind in k for k in layer_kinds(facts))
            ]
            if len(measured) != 1 or _OTHER_STATISTIC.search(text):
                continue
            source = measured[0]
            source_columns = request.inputs[source].get("columns") or []
            group = _group_of(text, name, columns, source_columns)
            if group is None:  # "one row per operator": the input's column the rows are of, beside the value
                group = _group_of(text, name, source_columns, source_columns)
                group = group if group and _one_row_per(group).search(text) else None
            total_name = name.lower().startswith(("total_", "sum_"))
            if group is None and not (total_name and file_format(out) == "json"):
                continue
            if group is not None and not (total_name or _SUM_WORDS.search(text)):
                continue
            others = {c for c in columns if c not in (name, group)}
            sure = (
                not _selects(request, name, others)
                and not _names_a_value(request, source, group)
                and (group is None or file_format(out) != "json")
            )
            sentence = next((s for s, _, _ in request.sentences if name in s), text)
            b.reading(sentence, sure)
            if group:
                add_group_total(b, out, name, measure, unit, source, group)
            else:
                b.add(
                    out,
                    "measure_totals",
                    f"`{name}` is the total {measure} in {unit} of every feature of `{source}` "
                    "(measured as on the ellipsoid)",
                    name=name,
                    measure=measure,
                    unit=unit,
                    input=source,
                )


MEASURE_TOTALS = RequirementKind(
    helpers=(_contract_unit_guess, _contract_union_measure),
    name="measure_totals",
    params=MeasureTotalsParams,
    check=_kind_measure_totals,
    reads="column",
    advice=(
        "measure each feature in a projected CRS in metres made for the data (an equal-area one for areas, "
        "the local UTM zone for lengths), never in degrees or the layer's own feet, sum over every feature of "
        "the group (groupby(GROUP)[...].sum()), then convert to the unit the name says (m² / 1e4 = ha, m / 1000 = km)"
    ),
    read=read_measure_totals,
)
