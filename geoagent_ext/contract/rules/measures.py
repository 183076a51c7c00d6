"""Measures a name does not spell out: a column whose description says it is the feature's
area, perimeter or length "in <unit>" (or whose name gives an imperial unit), and a rate per unit of
a measure ("stations_per_10km2") beside its count and its measure.
"""

from __future__ import annotations

import re

from ..formats import SPATIAL, UNIT_IN_BASE
from .builder import _Builder
from .names import _MEASURE_UNIT, _MEASURED_TYPES, _PART_OR_SUM, _in_sketched_records
from .words import _COUNT_NAME, _UNIT_WORDS, _format, _said_of

# "stations_per_10km2": a rate per (a multiple of) a unit of a measure; the units in m² or m.
_DENSITY = re.compile(r"^(\w+?)_per_(\d+(?:\.\d+)?)?_?(km2|sqkm|m2|sqm|ha|km|m)$", re.IGNORECASE)


def _density_rules(b: _Builder) -> None:
    """A rate per unit of a measure beside its count and its measure in the same file
    ("stations_per_10km2" with `station_count` and `area_km2`): each row's value is the count over
    the measure, scaled to the unit the name says (not the count over 10, not per km² when it
    says per 10 km²)."""
    for req in [r for r in b.requirements if r.kind == "columns"]:
        b.reading(req.said, req.sure)
        names = req.params["names"]
        for name in names:
            m = _DENSITY.match(name)
            if not m:
                continue
            noun, scale, unit = m.group(1).lower().rstrip("s"), float(m.group(2) or 1), m.group(3).lower()
            counts = [n for n in names if n != name and _COUNT_NAME.search(n) and noun in n.lower()]
            measures = [
                (n, u.group(2).lower())
                for n in names
                if (u := _MEASURE_UNIT.match(n))
                and (u.group(1).lower() == "area") == (unit not in ("km", "m"))
                and (u.group(2).lower() in ("km", "m")) == (unit in ("km", "m"))
            ]
            if len(counts) != 1 or len(measures) != 1:
                continue
            measure, measure_unit = measures[0]
            factor = scale * UNIT_IN_BASE[unit] / UNIT_IN_BASE[measure_unit]  # value = count / measure * factor
            said = f"{m.group(2) or ''} {_UNIT_WORDS[unit]}".strip()
            b.add(
                req.output,
                "density",
                f"`{name}` is `{counts[0]}` per {said} of `{measure}` (`{counts[0]}` / `{measure}` × {factor:g})",
                name=name,
                count=counts[0],
                measure=measure,
                factor=factor,
            )


# A measure's unit as words say it after "in" ("in international acres", "in square metres", "in km²")
_UNIT_IN_WORDS = [
    (r"(?:international\s+|statute\s+|us\s+)?acres?", "acre"),
    (r"square\s+(?:feet|foot)|sq\.?\s*ft|ft²|ft2", "ft2"),
    (r"square\s+miles?|sq\.?\s*mi|mi²|mi2", "mi2"),
    (r"hectares?|ha", "ha"),
    (r"square\s+kilomet(?:re|er)s?|sq\.?\s*km|km²|km2", "km2"),
    (r"square\s+met(?:re|er)s?|sq\.?\s*m|m²|m2", "m2"),
    (r"kilomet(?:re|er)s?|km", "km"),
    (r"met(?:re|er)s?|m", "m"),
    (r"miles?", "mi"),
    (r"feet|ft", "ft"),
]
_IN_UNIT = re.compile(
    r"\bin\s+(?:the\s+)?(?:" + "|".join(f"(?P<u{i}>{w})" for i, (w, _) in enumerate(_UNIT_IN_WORDS)) + r")(?![\w²])",
    re.IGNORECASE,
)
_AREA_UNITS_SAID = {"acre", "ft2", "mi2", "ha", "km2", "m2"}
# What a description says is measured: the feature's area, its outline, or its length.
_MEASURE_SAID = [
    (re.compile(r"\b(?:area|footprint|surface)\b", re.IGNORECASE), "area"),
    (re.compile(r"\b(?:perimeter|outline|boundary|circumference)\b", re.IGNORECASE), "perimeter"),
    (re.compile(r"\blength\b|\blong\b", re.IGNORECASE), "length"),
]


# A measure named with an imperial unit ("area_acres", "perimeter_ft", "length_mi")
_IMPERIAL_NAME = re.compile(
    r"^(?:\w+_)?(area|length|perimeter)_(acres?|ac|sqft|ft2|sqmi|mi2|mi|miles|ft|feet)$", re.IGNORECASE
)
_IMPERIAL_CODE = {
    "acres": "acre",
    "acre": "acre",
    "ac": "acre",
    "sqft": "ft2",
    "ft2": "ft2",
    "sqmi": "mi2",
    "mi2": "mi2",
}
_IMPERIAL_CODE.update({"mi": "mi", "miles": "mi", "ft": "ft", "feet": "ft"})


def _described_measures(b: _Builder, request: str, inputs: dict[str, dict]) -> None:
    """A column whose name does not give its unit and whose own description says it is the feature's
    area, perimeter or length "in <unit>" ("surface (the lake's area in acres)", "size:
    the footprint in square feet"): each value is that measure in that unit, as ``_name_rules`` reads
    a unit in a name. Never when the description sums, shares or clips (``_PART_OR_SUM``)."""
    spatial = [p for p in inputs if _format(p) in SPATIAL]
    for req in [r for r in b.requirements if r.kind == "columns"]:
        for name in req.params["names"]:
            out = req.output
            if (out, name) in b.carried or _MEASURE_UNIT.match(name) or name in _input_column_names(inputs):
                continue
            said = _said_of(request, name, req.params["names"])[:160]
            units = {
                code for m in _IN_UNIT.finditer(said) for i, (_, code) in enumerate(_UNIT_IN_WORDS) if m.group(f"u{i}")
            }
            measures = {measure for pattern, measure in _MEASURE_SAID if pattern.search(said)}
            if measures == {"perimeter", "length"}:  # "the length of its outline": the perimeter
                measures = {"perimeter"}
            named = _IMPERIAL_NAME.match(name)  # "area_acres", "length_mi": the name says both
            if named:
                units, measures = {_IMPERIAL_CODE[named.group(2).lower()]}, {named.group(1).lower()}
            if len(units) != 1 or len(measures) != 1 or _PART_OR_SUM.search(said):
                continue
            unit, measure = units.pop(), measures.pop()
            if (unit in _AREA_UNITS_SAID) != (measure == "area"):
                continue
            measured = [
                p
                for p in spatial
                if any(k in str(inputs[p].get("geometry_type") or "") for k in _MEASURED_TYPES[measure])
            ]
            if len(measured) != 1:
                continue
            b.reading(req.said, req.sure and (_format(out) != "json" or _in_sketched_records(request, name)))
            b.add(
                out,
                "measure_units",
                f"`{name}` is each feature's {measure} in {_UNIT_WORDS[unit]} "
                "(as on the ellipsoid: not in degrees, not in another unit)",
                name=name,
                measure=measure,
                unit=unit,
                input=measured[0],
            )


def _input_column_names(inputs: dict[str, dict]) -> set[str]:
    return {c for facts in inputs.values() for c in facts.get("columns") or []}
