"""A statistic of a measure per group: the request defines a value as the average, median, smallest
or largest area or length of the features of each group ("mean_ha = average park area in hectares
per park_class", "longest_km: the longest segment of each route"), so each row's value is that
statistic of the geodesic measures of the input features of the row's group, in the unit its name
gives."""

from __future__ import annotations

import re
from typing import Literal

from ..checker import (
    _CONTRACT_UNIT_FACTOR,
    _contract_geodesic,
    _contract_has_geometry,
    _contract_input,
    _contract_key,
    _contract_rounding_step,
)
from ..formats import SPATIAL, file_format, layer_kinds
from ._kind import Builder, ColumnParams, RequestView, RequirementKind
from .measure_totals import _SELECTING, _group_of, _names_a_value, _selects, _unit_and_measure, add_group_total


class MeasureStatsParams(ColumnParams):
    measure: Literal["area", "length"]
    unit: str  # km2, m2, ha, km, m
    stat: Literal["mean", "median", "min", "max"]
    input: str  # the input whose features are measured
    group: str  # the key column the rows and the input share


def _kind_measure_stats(params, data, value, sources):
    """(passed, observed): each row's value is the statistic of the geodesic measures of its
    group's input features, within 0.5 % or half the rounding the values show."""
    import pandas as pd

    name, measure, unit, stat, group = (params[k] for k in ("name", "measure", "unit", "stat", "group"))
    src = _contract_input(params["input"], sources)
    if not _contract_has_geometry(src) or src.crs is None:
        return False, f"cannot measure: `{params['input']}` has no geometries with a CRS"
    if isinstance(data, dict) or group not in data.columns:
        return False, f"`{name}` has no `{group}` beside it to say whose features it is of"
    if group not in src.columns:
        return False, f"`{group}` is not a column of `{params['input']}`"
    factor = _CONTRACT_UNIT_FACTOR[unit]
    measures = [m or 0.0 for m in _contract_geodesic(src, measure)]
    members = {}
    for m, k in zip(measures, src[group].tolist()):
        if k is not None and k == k:
            members.setdefault(_contract_key(k), []).append(m * factor)
    values = pd.to_numeric(data[name], errors="coerce").tolist()
    slack = _contract_rounding_step([v for v in values if v == v]) / 2
    wrong = []
    for k, v in zip(data[group].tolist(), values):
        got = sorted(members.get(_contract_key(k)) or [])
        if not got or v != v:
            wrong.append((k, v, None))
            continue
        n = len(got)
        expected = {
            "mean": sum(got) / n,
            "median": (got[(n - 1) // 2] + got[n // 2]) / 2,
            "min": got[0],
            "max": got[-1],
        }[stat]
        if abs(v - expected) > 0.005 * abs(expected) + slack:
            wrong.append((k, v, expected))
    seen = f"{len(values) - len(wrong)} of {len(values)} rows are the {stat} geodesic {measure} in {unit}"
    seen += f" of their `{group}`"
    if not wrong:
        return True, seen
    k, v, e = wrong[0]
    return False, seen + (f"; e.g. {k!r}: {v!r} where it is {e:.6g}" if e is not None else f"; e.g. {k!r}: {v!r}")


_STATS = [
    (re.compile(r"\b(?:average|mean|avg)\b", re.I), "mean"),
    (re.compile(r"\bmedian\b", re.I), "median"),
    (re.compile(r"\b(?:smallest|minimum|min|shortest|tiniest)\b", re.I), "min"),
    (re.compile(r"\b(?:largest|biggest|maximum|max|longest)\b", re.I), "max"),
]
_STAT_TOKENS = {"mean", "avg", "average", "median", "min", "minimum", "max", "maximum", "smallest", "largest"}
_STAT_TOKENS |= {"biggest", "longest", "shortest"}
# "mean_ha = average park area in hectares", "- longest_km: the longest ...": a name and what it is
_DEFINED = re.compile(
    r"(?<![\w`])`?(?P<name>[a-z][a-z0-9]*(?:_[a-z0-9]+)+)`?\s*(?:=|:|\s[-\u2013\u2014])\s*(?P<what>[^;\n]+)"
)
_MEASURE_WORD = {
    "area": re.compile(r"\b(?:area|size|footprint)\b", re.I),
    "length": re.compile(r"\b(?:length|long)\b", re.I),
}
_LAYER_CLAUSE = re.compile(r"\blayers?\b", re.I)


def _stat_of(name: str, what: str) -> str | None:
    """The one statistic a definition says ("average ...", "the smallest ..."), or None."""
    said = {stat for pattern, stat in _STATS if pattern.search(what)}
    return said.pop() if len(said) == 1 else None


def _stat_named(name: str) -> str | None:
    """The one statistic a name says ("mean_area_ha", "max_length_km"), or None."""
    said = {stat for t in name.lower().split("_") for pattern, stat in _STATS if pattern.fullmatch(t)}
    return said.pop() if len(said) == 1 else None


def _may_select(request: RequestView, names: set[str]) -> bool:
    """A word in the request that may select the features measured: in a clause that is not a
    value's definition nor the choice of a layer (a named layer is what the check reads)."""
    for sentence, _, _ in request.sentences:
        for clause in re.split(r"[,;()\[\]{}]|\.(?:\s|$)|\n", sentence):
            defined = _DEFINED.search(clause)
            if (defined and defined.group("name") in names) or _LAYER_CLAUSE.search(clause):
                continue
            if _SELECTING.search(clause):
                return True
    return False


def read_measure_stats(request: RequestView, b: Builder) -> None:
    """A value defined as a statistic (average, median, smallest, largest) of the area or length of
    the features of each group of the one input with such geometries, its unit in its name: each
    row's value is that statistic of its group. Sure when the output has the group column (listed,
    or "one row per" it), no word may select the features and no input value is named."""
    text = " ".join(request.text.split())
    defined = {m.group("name"): m.group("what") for m in _DEFINED.finditer(request.text)}
    for out in request.outputs:
        columns = b.columns_of(out)
        names = list(dict.fromkeys([*columns, *defined]))
        for name in names:
            what = defined.get(name, "")
            stat = _stat_of(name, what) if what else _stat_named(name)
            rest = "_".join(t for t in name.split("_") if t.lower() not in _STAT_TOKENS)
            said = _unit_and_measure(rest, text) if stat and rest else None
            if said is None:
                continue
            unit, measure = said
            if not (
                _MEASURE_WORD[measure].search(what)
                or re.search(r"(?:^|_)(?:area|length|len)(?:_|$)", name)
                or (not what and measure == "area")
            ):
                continue
            kind = "Polygon" if measure == "area" else "LineString"
            measured = [
                p
                for p, facts in request.inputs.items()
                if file_format(p) in SPATIAL | {"parquet"} and any(kind in k for k in layer_kinds(facts))
            ]
            if len(measured) != 1:
                continue
            source = measured[0]
            source_columns = request.inputs[source].get("columns") or []
            group = _group_of(text, name, list(dict.fromkeys([*columns, *source_columns])), source_columns)
            if group is None:
                continue
            last = group.split("_")[-1]
            listed = group in columns or re.search(
                rf"\bone\s+(?:row|record|line|entry|element)\s+(?:per|for\s+each|for\s+every)\s+(?:the\s+)?"
                rf"(?:{re.escape(group)}|{re.escape(group.replace('_', ' '))}|{re.escape(last)})\b",
                text,
                re.I,
            )
            sure = bool(listed) and not _may_select(request, set(names)) and not _names_a_value(request, source, group)
            sentence = next((s for s, _, _ in request.sentences if name in s), text)
            b.reading(sentence, sure).add(
                out,
                "measure_stats",
                f"`{name}` is the {stat} {measure} in {unit} of the `{source}` features of each row's `{group}` "
                "(measured as on the ellipsoid)",
                name=name,
                measure=measure,
                unit=unit,
                stat=stat,
                input=source,
                group=group,
            )


# "how many kilometres of road", "how much square metres of roof": a quantity of the features in a unit
_HOW_MANY_UNITS = re.compile(
    r"\bhow\s+(?:many|much)\s+(?P<unit>square\s+kilomet(?:re|er)s|square\s+met(?:re|er)s|hectares|"
    r"kilomet(?:re|er)s|met(?:re|er)s|km²|km2|m²|m2|km|ha)\s+of\s+(?P<what>(?:[A-Za-z]+\s+){0,2})",
    re.I,
)
_UNIT_WORDS = {
    "square kilometres": "km2",
    "square kilometers": "km2",
    "square metres": "m2",
    "square meters": "m2",
    "hectares": "ha",
    "kilometres": "km",
    "kilometers": "km",
    "metres": "m",
    "meters": "m",
    "km²": "km2",
    "km2": "km2",
    "m²": "m2",
    "m2": "m2",
    "km": "km",
    "ha": "ha",
}
_NAME_UNITS = {"km2": "km2", "sqkm": "km2", "m2": "m2", "sqm": "m2", "ha": "ha", "km": "km", "m": "m"}


def read_unit_totals(request: RequestView, b: Builder) -> None:
    """ "how many kilometres of road per highway type": the request asks a quantity of the features in
    a unit, per group, and the output's one column named by that unit (alone, or with "total" or the
    words it is of: "km", "total_km", "road_km") holds it: each row is the total measure of its
    group's features. Sure when no word may select the features and no input value is named."""
    text = " ".join(request.text.split())
    asked: dict[str, set[str]] = {}
    for m in _HOW_MANY_UNITS.finditer(text):
        unit = _UNIT_WORDS[" ".join(m.group("unit").lower().split())]
        asked.setdefault(unit, set()).update(w.lower() for w in m.group("what").split())
    if len(asked) != 1:
        return
    ((unit, words),) = asked.items()
    measure = "area" if unit in ("km2", "m2", "ha") else "length"
    kind = "Polygon" if measure == "area" else "LineString"
    measured = [
        p
        for p, facts in request.inputs.items()
        if file_format(p) in SPATIAL | {"parquet"} and any(kind in k for k in layer_kinds(facts))
    ]
    if len(measured) != 1:
        return
    source = measured[0]
    source_columns = request.inputs[source].get("columns") or []
    words |= {w.rstrip("s") for w in words} | {"total", "sum", measure}
    for out in request.outputs:
        columns = b.columns_of(out)
        named = [
            c
            for c in columns
            if c not in source_columns
            and [_NAME_UNITS.get(t.lower()) for t in c.split("_") if t.lower() in _NAME_UNITS] == [unit]
            and all(t.lower() in words or t.lower() in _NAME_UNITS for t in c.split("_"))
        ]
        if len(named) != 1:
            continue
        name = named[0]
        group = _group_of(text, name, columns, source_columns)
        if group is None:
            continue
        others = {c for c in columns if c not in (name, group)}
        sure = not _selects(request, name, others) and not _names_a_value(request, source, group)
        sentence = next((s for s, _, _ in request.sentences if _HOW_MANY_UNITS.search(" ".join(s.split()))), text)
        add_group_total(b.reading(sentence, sure), out, name, measure, unit, source, group)


def read_measure_readings(request: RequestView, b: Builder) -> None:
    """A statistic of a measure per group, and a quantity in a unit asked per group."""
    read_measure_stats(request, b)
    read_unit_totals(request, b)


MEASURE_STATS = RequirementKind(
    name="measure_stats",
    params=MeasureStatsParams,
    check=_kind_measure_stats,
    reads="column",
    advice=(
        "measure each feature in a projected CRS in metres made for the data (never degrees or the layer's feet), "
        "convert to the unit the name says, then take the statistic the request names per group "
        "(groupby(GROUP)[...].mean() / .median() / .min() / .max()), not the sum"
    ),
    read=read_measure_readings,
)
