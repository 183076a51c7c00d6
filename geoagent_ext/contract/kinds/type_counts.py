"""A count of one geometry family's features per group, of an input that mixes points, lines and
polygons: "gates (number of point features of the park)", "how many line features each district
has": each row's value is the number of the input's features of that family (single or multi-part)
whose group key is the row's, not every feature of the group."""

from __future__ import annotations

import re

from ..checker import _contract_input, _contract_key
from ..formats import layer_kinds
from ._kind import Builder, ColumnParams, RequestView, RequirementKind
from .measure_totals import _group_of, _one_row_per, _selects


class TypeCountsParams(ColumnParams):
    input: str  # the mixed input whose features are counted
    family: str  # "Point", "LineString" or "Polygon"
    group: str  # the key column the rows and the input share


def _kind_type_counts(params, data, value, sources):
    """(passed, observed): each row's value is the number of the input's features of the family
    whose group key is the row's."""
    import pandas as pd

    name, family, group = params["name"], params["family"], params["group"]
    if isinstance(data, dict) or group not in data.columns:
        return False, f"`{name}` has no `{group}` beside it to say whose features it counts"
    src = _contract_input(params["input"], sources)
    if group not in src.columns:
        return False, f"`{group}` is not a column of `{params['input']}`"
    kinds = src.geometry.geom_type.isin([family, "Multi" + family]).tolist()
    counts = {}
    for k, of_family in zip(src[group].tolist(), kinds):
        counts[_contract_key(k)] = counts.get(_contract_key(k), 0) + int(of_family)
    wrong = [
        (k, v, counts.get(_contract_key(k), 0))
        for k, v in zip(data[group].tolist(), pd.to_numeric(data[name], errors="coerce").tolist())
        if v != counts.get(_contract_key(k), 0)
    ]
    seen = f"{len(data) - len(wrong)} of {len(data)} rows count the {family} features of their `{group}`"
    if not wrong:
        return True, seen
    k, v, n = wrong[0]
    return False, seen + f"; e.g. {group} {k!r} has {v!r} where it has {n} {family} features"


_FAMILY = {"point": "Point", "line": "LineString", "linestring": "LineString", "polygon": "Polygon"}
# "number of POINT features", "how many line features", "the count of polygons"
_TYPE_COUNTED = re.compile(
    r"\b(?:how\s+many|number\s+of|count\s+of)\s+(?:the\s+|its\s+|their\s+)?(?P<family>point|line|linestring|polygon)"
    r"(?:s\b|\s+(?:features|geometries|records|rows)\b)",
    re.IGNORECASE,
)


def read_type_counts(request: RequestView, b: Builder) -> None:
    """An output column whose description counts one geometry family's features ("gates (number of
    point features of the park)"), of the one input mixing families, in rows grouped by a column of
    that input (one the output lists and the request groups by, or "one row per" it). Sure unless a
    word may select the features counted."""
    mixed = [
        p
        for p, f in request.inputs.items()
        if f.get("rows") is not None and len({k.removeprefix("Multi") for k in layer_kinds(f)}) > 1
    ]
    if len(mixed) != 1:
        return
    source = mixed[0]
    source_columns = request.inputs[source].get("columns") or []
    families = {k.removeprefix("Multi") for k in layer_kinds(request.inputs[source])}
    text = " ".join(request.text.split())
    for sentence, outs, _ in request.sentences:
        affirmed = " ".join(request.affirmed(sentence).split())
        for m in _TYPE_COUNTED.finditer(sentence):
            family = _FAMILY[m.group("family").lower()]
            if family not in families or " ".join(m.group(0).split()) not in affirmed:
                continue
            before = sentence[: m.start()]
            for out in outs or (list(request.outputs) if len(request.outputs) == 1 else []):
                columns = b.columns_of(out)
                named = re.search(
                    r"[`\"']?([A-Za-z_]\w*)[`\"']?\s*(?:\(|:|=|\u2014|\u2013|\s-\s|\bis\b)\s*(?:the\s+)?$", before
                )
                name = named.group(1) if named else None
                if name not in columns or name in source_columns:
                    continue
                group = _group_of(text, name, columns, source_columns)
                if group is None:
                    group = _group_of(text, name, source_columns, source_columns)
                    group = group if group and _one_row_per(group).search(text) else None
                if group is None:
                    continue
                others = {c for c in columns if c not in (name, group)}
                b.reading(sentence, not _selects(request, name, others)).add(
                    out,
                    "type_counts",
                    f"`{name}` is the number of {family} features of `{source}` per `{group}` (not every feature)",
                    name=name,
                    input=source,
                    family=family,
                    group=group,
                )


TYPE_COUNTS = RequirementKind(
    name="type_counts",
    params=TypeCountsParams,
    check=_kind_type_counts,
    reads="column",
    advice=(
        "count only the features of the geometry type asked (gdf[gdf.geom_type.isin(['X', 'MultiX'])]) per "
        "group, and write 0 for a group with none"
    ),
    read=read_type_counts,
)
