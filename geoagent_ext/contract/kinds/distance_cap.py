"""A distance column capped by the request: the request bounds how far the row's other place may be
("within 700 m", "800 m or closer", "no farther than 2 km", "at most 1.5 km away"), so no value of
the output's one distance column is beyond that distance (blank rows, where nothing is that near,
make no claim)."""

from __future__ import annotations

import re
from typing import Literal

from ..checker import _CONTRACT_UNIT_FACTOR, _contract_numbers, _contract_rounding_step
from ._kind import Builder, ColumnParams, RequestView, RequirementKind


class DistanceCapParams(ColumnParams):
    unit: Literal["m", "km"]  # the column's unit
    cap_m: float  # the largest distance the request allows, in metres


def _kind_distance_cap(params, data, value, sources):
    """(passed, observed): every number of the column is at most the cap (in the column's unit),
    within 0.5 % or half the rounding the values show; blank cells pass."""
    import pandas as pd

    name, unit = params["name"], params["unit"]
    cap = params["cap_m"] * _CONTRACT_UNIT_FACTOR[unit]
    values = pd.to_numeric(pd.Series(_contract_numbers(value), dtype=object), errors="coerce").dropna().tolist()
    slack = _contract_rounding_step(values) / 2 if values else 0.0
    beyond = [v for v in values if v > cap * 1.005 + slack]
    seen = f"{len(values)} distances in `{name}`, the largest {max(values):.6g} {unit}" if values else ""
    if not values:
        return True, f"`{name}` holds no distance (nothing to check)"
    if beyond:
        return False, f"{seen}: {len(beyond)} beyond the cap of {cap:.6g} {unit} (e.g. {beyond[0]:.6g})"
    return True, seen + f", none beyond {cap:.6g} {unit}"


_LENGTH_UNITS = {
    "m": "m",
    "metre": "m",
    "metres": "m",
    "meter": "m",
    "meters": "m",
    "km": "km",
    "kilometre": "km",
    "kilometres": "km",
    "kilometer": "km",
    "kilometers": "km",
}
_NUMBER = r"(?P<number>\d[\d,]*(?:\.\d+)?)\s*(?P<unit>km|kilomet(?:re|er)s?|m|met(?:re|er)s?)(?![\w²])"
# The words that bound a distance from above, around a length ("within 700 m", "700 m or closer").
_CAPS = [
    re.compile(r"\bwithin\s+(?:a\s+(?:radius|distance)\s+of\s+|a\s+)?" + _NUMBER, re.I),
    re.compile(_NUMBER + r"\s+or\s+(?:closer|less|nearer|under|below)\b", re.I),
    re.compile(r"\b(?:no|not)\s+(?:farther|further|more)\s+(?:away\s+)?than\s+" + _NUMBER, re.I),
    re.compile(r"\b(?:closer|nearer)\s+than\s+" + _NUMBER, re.I),
    re.compile(
        r"\b(?:at\s+most|up\s+to|at\s+a\s+maximum\s+of|max(?:imum)?\s+(?:of\s+)?|less\s+than|under)\s+"
        + _NUMBER
        + r"\s+(?:away|from|of)\b",
        re.I,
    ),
    re.compile(r"\b(?:max(?:imum)?|search)\s+(?:distance|radius|range)\s+(?:of\s+|is\s+|=\s*|:\s*)?" + _NUMBER, re.I),
    re.compile(
        r"\b(?:cap(?:ped)?|limit(?:ed)?|cut-?off|threshold)\s+(?:of\s+|at\s+|is\s+|to\s+|=\s*|:\s*)?" + _NUMBER, re.I
    ),
]
# The distance past which nothing is given ("leave it blank if it is more than 500 m away"): a cap
# when the same sentence says what is left out and speaks of distance.
_BEYOND = re.compile(
    r"\b(?:(?:more|farther|further)\s+(?:away\s+)?than|beyond|over|past)\s+"
    + _NUMBER
    + r"(?!\s*(?:long|wide|high|tall|deep|in\s+length))",
    re.I,
)
_LEFT_OUT = re.compile(r"\b(?:blank|empty|null|none|nan|drop\w*|skip\w*|omit\w*|leav\w*|left)\b", re.I)
# Words that make a capped distance not the distance column's: a count or a flag of what is within
# the distance, a buffer of that size, or a negated or optional cap.
_OTHER_USE = re.compile(
    r"\b(?:count\w*|how\s+many|number\s+of|buffer\w*|flag\w*|whether|true|false|yes/no|boolean|mark(?:ed|ing|s)?|"
    r"not\s+within|regardless|ignor\w*|even\s+if|outside)\b",
    re.I,
)
_ABOUT_DISTANCE = re.compile(r"\b(?:nearest|closest|distance|dist|away|closer|farther|further|far)\b", re.I)


def _distance_unit(name: str) -> str | None:
    """The length unit of a column named as a distance ("distance_m", "dist_km"), or None."""
    tokens = [t.lower() for t in re.split(r"[_\W]+", name) if t]
    if not any(t in ("dist", "distance") or t.startswith("dist") for t in tokens):
        return None
    units = {_LENGTH_UNITS[t] for t in tokens if t in _LENGTH_UNITS}
    return units.pop() if len(units) == 1 else None


def read_distance_cap(request: RequestView, b: Builder) -> None:
    """One cap on distances said in the request (the same length wherever it is said), none of the
    words that make it another value's (a count, a flag, a buffer), and one output column named as a
    distance in a length unit: that column's values are at most the cap. Sure when the sentence that
    says the cap speaks of distance or the nearest feature."""
    caps, said = set(), []
    for sentence, outs, _ in request.sentences:
        beyond = [_BEYOND] if _LEFT_OUT.search(sentence) and _ABOUT_DISTANCE.search(sentence) else []
        for pattern in _CAPS + beyond:
            for m in pattern.finditer(sentence):
                metres = (
                    float(m.group("number").replace(",", ""))
                    / _CONTRACT_UNIT_FACTOR[_LENGTH_UNITS[m.group("unit").lower()]]
                )
                caps.add(round(metres, 6))
                said.append((sentence, outs))
    if len(caps) != 1 or _OTHER_USE.search(request.text):
        return
    cap = caps.pop()
    for out in request.outputs:
        distances = [(c, u) for c in b.columns_of(out) for u in [_distance_unit(c)] if u]
        if len(distances) != 1 or any(re.search(rf"(?<!\d){cap:g}", c) for c in b.columns_of(out)):
            continue
        name, unit = distances[0]
        about = [s for s, outs in said if out in outs or not outs]
        if not about:
            continue
        sure = any(_ABOUT_DISTANCE.search(s) or name in s for s in about)
        b.reading(about[0], sure).add(
            out,
            "distance_cap",
            f"no `{name}` is more than {cap:g} m (the request's cap); rows with nothing that near stay blank",
            name=name,
            unit=unit,
            cap_m=cap,
        )


DISTANCE_CAP = RequirementKind(
    name="distance_cap",
    params=DistanceCapParams,
    check=_kind_distance_cap,
    reads="column",
    advice=(
        "keep only the pairs within the cap (distance <= the cap, measured in metres in a projected CRS), "
        "and leave the distance (and the matched id) blank where nothing is that near"
    ),
    read=read_distance_cap,
)
