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
    stat: Literal["mean", "median", "min", "max", "sum"]
    input: str  # the input whose features are measured
    group: str  # the key column the rows and the input share


def _contract_group_column(data, group, keys, name):
    """The file's column that says each row's group: ``group`` itself, else the one other column whose
    every value is one of the input's group ``keys``."""
    if group in data.columns:
        return group
    found = []
    for c in data.columns:
        if c == name or str(c) == "geometry":
            continue
        values = [v for v in data[c].tolist() if v is not None and v == v]
        if values and all(_contract_key(v) in keys for v in values):
            found.append(c)
    return found[0] if len(found) == 1 else None


def _kind_measure_stats(params, data, value, sources):
    """(passed, observed): each row's value is the statistic of the geodesic measures of its
    group's input features, within 0.5 % or half the rounding the values show."""

    name, measure, unit, stat, group = (params[k] for k in ("name", "measure", "unit", "stat", "group"))
    src = _contract_input(params["input"], sources)
    if not _contract_has_geometry(src) or src.crs is None:
        return False, f"cannot measure: `{params['input']}` has no geometries with a CRS"
    if group not in src.columns:
        return False, f"`{group}` is not a column of `{params['input']}`"
    if isinstance(data, dict):
        return False, f"`{name}` is not a column of a table"
    factor = _CONTRACT_UNIT_FACTOR[unit]
    measures = [m or 0.0 for m in _contract_geodesic(src, measure)]
    members = {}
    for m, k in zip(measures, src[group].tolist()):
        if k is not None and k == k:
            members.setdefault(_contract_key(k), []).append(m * factor)
    own = _contract_group_column(data, group, set(members), name)
    if own is None:
        return False, f"`{name}` has no `{group}` beside it to say whose features it is of"
    values, wrong = _contract_stat_mismatches(data, own, name, members, stat, 0.005, 0.0)
    seen = f"{len(values) - len(wrong)} of {len(values)} rows are the {stat} geodesic {measure} in {unit}"
    seen += f" of their `{group}`"
    return _contract_stat_verdict(seen, wrong)


def _contract_stat_mismatches(data, own, name, members, stat, relative, absolute):
    """(the column's values, [(group, value, expected or None)] for each row whose value is not the
    ``stat`` of its group's ``members`` within ``relative`` of it, the column's rounding and
    ``absolute``)."""
    import pandas as pd

    values = pd.to_numeric(data[name], errors="coerce").tolist()
    slack = _contract_rounding_step([v for v in values if v == v]) / 2
    wrong = []
    for k, v in zip(data[own].tolist(), values):
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
            "sum": sum(got),
        }[stat]
        if abs(v - expected) > relative * abs(expected) + slack + absolute:
            wrong.append((k, v, expected))
    return values, wrong


def _contract_stat_verdict(seen, wrong):
    """(passed, observed) of a per-group statistic: what held, and the first row that did not."""
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


_ADDED_UP = re.compile(r"\b(?:added\s+up|summed(?:\s+up)?|(?:the\s+)?sum\s+of\s+(?:the|its|their|all))\b", re.I)


def _stat_of(name: str, what: str) -> str | None:
    """The one statistic a definition says ("average ...", "the smallest ...", "... added up"), or None."""
    said = {stat for pattern, stat in _STATS if pattern.search(what)}
    if _ADDED_UP.search(what) and not said:
        said.add("sum")
    return said.pop() if len(said) == 1 else None


def _stat_named(name: str) -> str | None:
    """The one statistic a name says ("mean_area_ha", "max_length_km"), or None."""
    said = {stat for t in name.lower().split("_") for pattern, stat in _STATS if pattern.fullmatch(t)}
    return said.pop() if len(said) == 1 else None


def read_measure_stats(request: RequestView, b: Builder) -> None:
    """A value defined as a statistic (average, median, smallest, largest) of the area or length of
    the features of each group of the one input with such geometries, its unit in its name: each
    row's value is that statistic of its group. Sure when no word may select the features (a selection
    of the groups themselves keeps each kept group's features) and no input value is named."""
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
            # the check finds the group column by its values when it is named otherwise
            sure = not _selects_rows(request, set(names), group) and not _names_a_value(request, source, group)
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
    helpers=(_contract_group_column, _contract_stat_mismatches, _contract_stat_verdict),
    reads="column",
    advice=(
        "measure each feature in a projected CRS in metres made for the data (never degrees or the layer's feet), "
        "convert to the unit the name says, then take the statistic the request names per group "
        "(groupby(GROUP)[...].mean() / .median() / .min() / .max()), not the sum"
    ),
    read=read_measure_readings,
)


class ColumnStatsParams(ColumnParams):
    column: str  # the input column whose values the statistic is of
    stat: Literal["mean", "median", "min", "max"]
    input: str  # the input whose rows are grouped
    group: str  # the input's key column the rows are grouped by


def _kind_column_stats(params, data, value, sources):
    """(passed, observed): each row's value is the statistic of the input column's numeric values
    over the input rows of the row's group (blank values left out), within 0.1 % or half the
    rounding the values show."""
    import pandas as pd

    name, column, stat, group = (params[k] for k in ("name", "column", "stat", "group"))
    src = _contract_input(params["input"], sources)
    if column not in src.columns or group not in src.columns:
        return False, f"`{column}` or `{group}` is not a column of `{params['input']}`"
    if isinstance(data, dict):
        return False, f"`{name}` is not a column of a table"
    members = {}
    for k, v in zip(src[group].tolist(), pd.to_numeric(src[column], errors="coerce").tolist()):
        if k is not None and k == k and v == v:
            members.setdefault(_contract_key(k), []).append(float(v))
    own = _contract_group_column(data, group, set(members), name)
    if own is None:
        return False, f"`{name}` has no `{group}` beside it to say whose rows it is of"
    values, wrong = _contract_stat_mismatches(data, own, name, members, stat, 0.001, 1e-9)
    seen = f"{len(values) - len(wrong)} of {len(values)} rows are the {stat} `{column}` of their `{group}`"
    return _contract_stat_verdict(seen, wrong)


_COLUMN_STAT_WORDS = [
    (r"average|mean|avg", "mean"),
    (r"median", "median"),
    (r"smallest|minimum|min|lowest", "min"),
    (r"largest|biggest|maximum|max|highest", "max"),
]
# Negated statistics ("median, not average")
# and the layout of the table ("with one row per district"): words that select none of the rows
_NOT_A_SELECTION = re.compile(
    r"\b(?:not|rather\s+than|instead\s+of)\s+(?:the\s+|an?\s+)?(?:average|mean|median|sum|total)\b|"
    r"\bwith\s+one\s+(?:row|line|record|entry)\b",
    re.I,
)


def _stat_bound(what: str, column: str) -> set[str]:
    """The statistics a definition puts on ``column`` ("the median of pop_density", "highest rent")."""
    col = r"`?" + re.escape(column) + r"`?(?![\w`])"
    said = set()
    for words, stat in _COLUMN_STAT_WORDS:
        if re.search(
            rf"\b(?:{words})\b\s+(?:(?:value|values|figure)\s+)?(?:of\s+)?(?:the\s+|all\s+)?{col}", what, re.I
        ):
            said.add(stat)
    return said


def _group_words(group: str) -> str:
    """A pattern for the group column as the request may name it, singular or plural."""
    last = re.escape(group.split("_")[-1])
    return rf"(?:{re.escape(group)}|{re.escape(group.replace('_', ' '))}|{last})(?:e?s)?"


def _selects_rows(request: RequestView, names: set[str], group: str) -> bool:
    """A word that may select the input rows a statistic is over: in a clause that is not a value's
    definition nor a layer's choice, nor a selection of the groups themselves ("only the classes with
    at least 30 ...": a group kept keeps its rows), nor the dropping of rows with no group ("the rows
    without a district are left out"), nor a statistic refused ("median, not average")."""
    words = _group_words(group)
    of_groups = re.compile(
        rf"\b(?:only|just|keep(?:ing)?)\s+(?:the\s+|those\s+)?{words}\b|"
        rf"\b(?:without|with\s+no|missing|lacking|no)\s+(?:an?\s+|any\s+)?{words}\b",
        re.I,
    )
    for sentence, _, _ in request.sentences:
        for clause in re.split(r"[,;()\[\]{}]|\.(?:\s|$)|\n", sentence):
            defined = _DEFINED.search(clause)
            if (defined and defined.group("name") in names) or _LAYER_CLAUSE.search(clause):
                continue
            if of_groups.search(clause):
                continue
            if _SELECTING.search(_NOT_A_SELECTION.sub(" ", clause)):
                return True
    return False


def read_column_stats(request: RequestView, b: Builder) -> None:
    """A value defined as a statistic (average, median, lowest, highest) of one input's numeric column
    ("median_rent = the median of rent over its flats", "top_score: highest score"), the request
    grouping by another column of that input ("per district", "for each class"): each row's value is
    that statistic of its group's rows. Sure when no word may select the rows (a selection of the
    groups themselves keeps each kept group's rows) and no input value is named."""
    text = " ".join(request.text.split())
    defined = {m.group("name"): m.group("what") for m in _DEFINED.finditer(request.text)}
    tabular = [p for p in request.inputs if file_format(p) != "json"]
    for out in request.outputs:
        columns = b.columns_of(out)
        names = [n for n in defined if n in columns or len(request.outputs) == 1]
        for name in names:
            what = request.affirmed(defined[name])
            bound = [
                (p, c, stat)
                for p in tabular
                for c in request.inputs[p].get("columns") or []
                if c != name and c not in (request.inputs[p].get("categories") or {})
                for stat in _stat_bound(what, c)
            ]
            if len(bound) != 1:
                continue
            source, column, stat = bound[0]
            source_columns = request.inputs[source].get("columns") or []
            group = _group_of(text, name, [c for c in source_columns if c != column], source_columns)
            if group is None:
                continue
            sure = not _selects_rows(request, set(defined), group) and not _names_a_value(request, source, group)
            sentence = next((s for s, _, _ in request.sentences if name in s), text)
            b.reading(sentence, sure).add(
                out,
                "column_stats",
                f"`{name}` is the {stat} of `{source}`'s `{column}` over the rows of each row's `{group}`",
                name=name,
                column=column,
                stat=stat,
                input=source,
                group=group,
            )


COLUMN_STATS = RequirementKind(
    name="column_stats",
    params=ColumnStatsParams,
    check=_kind_column_stats,
    helpers=(_contract_group_column, _contract_stat_mismatches, _contract_stat_verdict),
    reads="column",
    advice=(
        "take the statistic the request names of the input column over each group's rows, as numbers "
        "(groupby(GROUP)[column].median() / .mean() / .min() / .max()); a median is not a mean"
    ),
    read=read_column_stats,
)


class ColumnSummaryParams(ColumnParams):
    table: str  # the other output whose column is summarised
    column: str  # that output's column
    stat: Literal["mean", "median", "min", "max"]


def _kind_column_summary(params, data, value, sources):
    """(passed, observed): the value is the statistic of the other written table's column (its numeric
    values), within 0.1 % or half the rounding the value shows."""
    import pandas as pd

    name, column, stat = params["name"], params["column"], params["stat"]
    try:
        table = _contract_input(params["table"], sources)
    except Exception as error:  # noqa: BLE001 - the other output is missing or unreadable
        return False, f"cannot read `{params['table']}`: {error}"
    if column not in table.columns:
        return False, f"`{column}` is not a column of `{params['table']}`"
    got = sorted(v for v in pd.to_numeric(table[column], errors="coerce").tolist() if v == v)
    if not got:
        return False, f"`{params['table']}`'s `{column}` holds no numbers"
    n = len(got)
    expected = {
        "mean": sum(got) / n,
        "median": (got[(n - 1) // 2] + got[n // 2]) / 2,
        "min": got[0],
        "max": got[-1],
    }[stat]
    items = value.tolist() if hasattr(value, "tolist") else value if isinstance(value, list) else [value]
    values = pd.to_numeric(pd.Series(items, dtype=object), errors="coerce").tolist()
    seen = f"`{name}` is {values[0] if len(values) == 1 else values!r}; the {stat} of `{params['table']}`'s `{column}`"
    seen += f" is {expected:.6g}"
    slack = 0.001 * abs(expected) + _contract_rounding_step([v for v in values if v == v]) / 2 + 1e-9
    return bool(values) and all(v == v and abs(v - expected) <= slack for v in values), seen


# "`median_km` (median of nearest_km)": a name and, in brackets after it, what it is
_DEFINED_IN_BRACKETS = re.compile(r"(?<![\w`])`?(?P<name>[A-Za-z_]\w*)`?\s*\((?P<what>[^()]+)\)")
_NAME_IN = re.compile(r"`([A-Za-z_]\w*)`|(?<![\w.`-])([a-z][a-z0-9]*(?:_[a-z0-9]+)+)(?![\w.`-])")


def read_column_summary(request: RequestView, b: Builder) -> None:
    """A value of one output defined as a statistic (average, median, lowest, highest) of a column of
    another output that is a table ("`median_km` (median of nearest_km)", "worst_delay: the maximum
    delay_min"): the value is that statistic of the written table's column, all its rows. Sure when the
    definition has no word that may select the rows."""
    tables = [o for o in request.outputs if file_format(o) in SPATIAL | {"csv", "parquet"}]
    if len(request.outputs) < 2 or not tables:
        return
    named_of = {o: set(b.columns_of(o)) for o in request.outputs}
    for sentence, outs, _ in request.sentences:
        if len(outs) == 1:
            named_of[outs[0]] |= {m.group(1) or m.group(2) for m in _NAME_IN.finditer(sentence)}
    for sentence, outs, _ in request.sentences:
        said = " ".join(sentence.split())
        defined = [*_DEFINED_IN_BRACKETS.finditer(said), *_DEFINED.finditer(said)]
        for m in defined:
            name, what = m.group("name"), request.affirmed(m.group("what"))
            holders = [o for o in request.outputs if name in b.columns_of(o)] or (outs if len(outs) == 1 else [])
            if len(holders) != 1:
                continue
            out = holders[0]
            bound = [
                (t, c, stat)
                for t in tables
                if t != out
                for c in named_of[t]
                if c != name and c not in {x for f in request.inputs.values() for x in f.get("columns") or []}
                for stat in _stat_bound(what, c)
            ]
            if len(bound) != 1:
                continue
            table, column, stat = bound[0]
            sure = not _SELECTING.search(_NOT_A_SELECTION.sub(" ", what))
            b.reading(sentence, sure).add(
                out,
                "column_summary",
                f"`{name}` is the {stat} of the `{column}` column of `{table}` (all its rows)",
                name=name,
                table=table,
                column=column,
                stat=stat,
            )


COLUMN_SUMMARY = RequirementKind(
    name="column_summary",
    params=ColumnSummaryParams,
    check=_kind_column_summary,
    reads="column",
    advice=(
        "compute the summary value from the table you write, over all its rows, with the statistic the request "
        "names (a median is not a mean), in the same unit as the column"
    ),
    read=read_column_summary,
)
