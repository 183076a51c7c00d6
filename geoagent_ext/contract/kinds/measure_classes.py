"""A class column set from each feature's area or length by limits the request gives ("small"
under 200 m², "medium" from 200 up to 1000 m², "large" from 1000 m²): each row's class is the one
its geodesic measure falls in. A feature within 1 % of a limit is not judged (a projected measure
may land on either side)."""

import re
from typing import Literal

from pydantic import BaseModel

from ..checker import _CONTRACT_UNIT_FACTOR, _contract_geodesic
from ..formats import SPATIAL, file_format
from ._kind import Builder, ColumnParams, RequestView, RequirementKind


class MeasureClass(BaseModel):
    label: str
    low: float | None = None  # in the unit; None: no lower limit
    high: float | None = None  # exclusive; None: no upper limit


class MeasureClassesParams(ColumnParams):
    measure: Literal["area", "length"]
    unit: str  # km2, m2, ha, km, m
    classes: list[MeasureClass]


def _kind_measure_classes(params, data, value, sources):
    if data.crs is None:
        return False, "no CRS: the features cannot be measured"
    factor = _CONTRACT_UNIT_FACTOR[params["unit"]]
    measures = _contract_geodesic(data, params["measure"])
    classes = {c["label"]: c for c in params["classes"]}
    wrong = []
    for label, m in zip(value.astype(str).tolist(), measures):
        spec = classes.get(label)
        if spec is None:
            wrong.append((label, "not one of the classes"))
            continue
        if m is None:
            continue
        m = m * factor
        near = [x for x in (spec.get("low"), spec.get("high")) if x is not None and abs(m - x) <= 0.01 * x]
        low, high = spec.get("low"), spec.get("high")
        if not near and ((low is not None and m < low) or (high is not None and m >= high)):
            wrong.append((label, round(m, 3)))
    return not wrong, (
        f"{len(wrong)} row(s) in the wrong class for their {params['measure']} in {params['unit']}, e.g. {wrong[:3]}"
        if wrong
        else f"every class matches its feature's {params['measure']}"
    )


_UNIT = (
    r"(?P<unit>m²|m2|sq\.?\s*m|square\s+met(?:re|er)s?|ha\b|hectares?|km²|km2|sq\.?\s*km|square\s+kilomet(?:re|er)s?|"
    r"km\b|kilomet(?:re|er)s?|m\b|met(?:re|er)s?)"
)
_NUM = r"(\d+(?:[.,]\d+)?)"
# "small" under 200 m² / "medium" from 200 up to 1000 m² / "large" from 1000 m²
_CLASS = re.compile(
    r"[\"'\u201c](?P<label>[\w -]{1,30})[\"'\u201d]\s*(?:\(|:|=|for|if|when|is|are)?\s*(?:\w+\s+){0,2}?"
    rf"(?:(?P<below>under|below|less\s+than|up\s+to|<)\s*{_NUM}|"
    rf"(?:from|between|of)\s*{_NUM}\s*(?:{_UNIT.replace('?P<unit>', '?:')}\s*)?(?:up\s+to|to|and|-|\u2013)\s*"
    rf"(?:less\s+than\s+)?{_NUM}|"
    rf"(?P<above>from|over|above|at\s+least|more\s+than|>=?)\s*{_NUM})\s*{_UNIT}",
    re.IGNORECASE,
)
_UNITS = {
    "m²": ("area", "m2"),
    "m2": ("area", "m2"),
    "ha": ("area", "ha"),
    "hectare": ("area", "ha"),
    "km²": ("area", "km2"),
    "km2": ("area", "km2"),
    "km": ("length", "km"),
    "kilometre": ("length", "km"),
    "kilometer": ("length", "km"),
    "m": ("length", "m"),
    "metre": ("length", "m"),
    "meter": ("length", "m"),
}
_COLUMN = re.compile(r"(?:`(?P<t>[A-Za-z_]\w*)`|\b(?P<s>[a-z][a-z0-9]*(?:_[a-z0-9]+)+))\s+(?:column|field|attribute)\b")


def _unit_of(text: str) -> tuple[str, str] | None:
    t = re.sub(r"\s+", " ", text.lower()).strip().rstrip("s")
    t = {"sq m": "m2", "sq. m": "m2", "square metre": "m2", "square meter": "m2", "sq km": "km2"}.get(t, t)
    t = {"square kilometre": "km2", "square kilometer": "km2", "sq. km": "km2"}.get(t, t)
    return _UNITS.get(t)


def _classes_said(sentence: str) -> tuple[str, str, list[dict]] | None:
    """(measure, unit, classes) of two or more quoted classes with limits in one unit, or None."""
    found: list[dict] = []
    units: set[tuple[str, str]] = set()
    for m in _CLASS.finditer(sentence):
        unit = _unit_of(m.group("unit"))
        if unit is None:
            return None
        numbers = [float(g.replace(",", ".")) for g in m.groups()[2:] if g and re.fullmatch(r"\d+(?:[.,]\d+)?", g)]
        if m.group("below"):
            low, high = None, numbers[0]
        elif m.group("above"):
            low, high = numbers[-1], None
        else:
            low, high = numbers[0], numbers[1]
        units.add(unit)
        found.append({"label": m.group("label").strip(), "low": low, "high": high})
    labels = [c["label"] for c in found]
    if len(found) < 2 or len(units) != 1 or len(set(labels)) != len(labels):
        return None
    measure, unit_name = units.pop()
    return measure, unit_name, found


def read_measure_classes(request: RequestView, b: Builder) -> None:
    """Classes by area or length limits, on the one class column the sentence names, of a spatial
    output (the check measures the output's own features)."""
    for sentence, outs, sure in request.sentences:
        said = _classes_said(sentence) if sure else None
        columns = {m.group("t") or m.group("s") for m in _COLUMN.finditer(sentence)}
        if said is None or len(columns) != 1:
            continue
        measure, unit, classes = said
        name = columns.pop()
        b.reading(sentence, True)
        for out in outs:
            if file_format(out) in SPATIAL:
                b.add(
                    out,
                    "measure_classes",
                    f"`{name}` is the class of each feature's {measure} ({', '.join(c['label'] for c in classes)})",
                    name=name,
                    measure=measure,
                    unit=unit,
                    classes=classes,
                )


MEASURE_CLASSES = RequirementKind(
    name="measure_classes",
    params=MeasureClassesParams,
    check=_kind_measure_classes,
    reads="column",
    geometry=True,
    advice=(
        "classify by the true measure: area/length in a projected CRS in metres made for the data "
        "(gdf.to_crs(gdf.estimate_utm_crs()).area), converted to the request's unit, then pd.cut with its limits"
    ),
    read=read_measure_classes,
)
