"""Each value is its feature's geodesic area, length or perimeter in the unit its name says (its
own geometry, or its input feature's by a key)."""

from typing import Literal

from ..checker import (
    _CONTRACT_UNIT_FACTOR,
    _contract_geodesic,
    _contract_has_geometry,
    _contract_input,
    _contract_key,
    _contract_key_match,
    _contract_rounding_step,
)
from ..formats import UNIT_IN_BASE
from ._kind import VALUE_MENDS, ColumnParams, RequirementKind
from ._mending import embedded, read


class MeasureUnitsParams(ColumnParams):
    measure: Literal["area", "length", "perimeter"]
    unit: str  # km2, m2, ha, km, m (formats.UNIT_IN_BASE)
    input: str | None = None  # the input whose features the rows are, by a key


def _contract_unit_guess(ratio):
    """What a value/true-measure ratio far from 1 suggests."""
    import math

    for factor, said in (
        (1e6, "m² written as km²"),
        (1e-6, "km² written as m²"),
        (100, "hectares written as km²"),
        (1e-2, "km² written as hectares"),
        (1e4, "m² written as hectares"),
        (1e-4, "hectares written as m²"),
        (1e3, "metres written as km"),
        (1e-3, "km written as metres"),
    ):
        if abs(math.log10(ratio / factor)) < 0.05:
            return f": looks like {said}"
    if ratio < 1e-3:
        return ": far too small, as if measured in degrees (a geographic CRS)"
    return ": measured in a CRS that distorts it here (Web Mercator?) or not this feature's measure"


def _contract_measure_units(params, data, sources):
    """(passed, observed) of a measure column against the geodesic measure of each row's feature:
    its own geometry, else the input feature with the same key (a column unique in the input), else
    (rows not matched) the sum against the input's total, within a wide band."""
    import pandas as pd

    name, measure, unit = params["name"], params["measure"], params["unit"]
    label = {"km2": "km²", "sqkm": "km²", "m2": "m²", "sqm": "m²"}.get(unit, unit)
    values = pd.to_numeric(data[name], errors="coerce").tolist()
    factor = _CONTRACT_UNIT_FACTOR[unit]
    expected, how = None, ""
    if _contract_has_geometry(data) and data.crs is not None:
        own = _contract_geodesic(data, measure)
        if any(e for e in own):
            expected, how = own, "each row's geometry"
    own_rows = expected is not None  # measured on the rows' own geometry, not the input's by a key
    if expected is None:  # the input is read only when the file's own geometry cannot answer
        src = _contract_input(params["input"], sources) if params.get("input") else None
        if src is None or not _contract_has_geometry(src) or src.crs is None:
            return (
                False,
                f"cannot measure `{name}`: neither the file nor `{params.get('input')}` has geometries with a CRS",
            )
        measures = _contract_geodesic(src, measure)
        shared = [k for k in data.columns if k != name and k in src.columns and k != src.geometry.name]
        for key in [[k] for k in shared] + ([shared] if len(shared) > 1 else []):  # one column, else all together
            if src[key].isna().any().any():
                continue
            keys = src[key].astype(str).agg("|".join, axis=1)
            if keys.duplicated().any():
                continue
            lookup = dict(zip(keys, measures))
            mine = data[key].apply(lambda column: column.map(str)).agg("|".join, axis=1).tolist()
            if mine and all(k in lookup for k in mine):
                expected, how = (
                    [lookup[k] for k in mine],
                    f"the `{params['input']}` feature of the same `{'`, `'.join(key)}`",
                )
                break
        if expected is None:  # rows that are not the input's features (groups, a selection): the scale only.
            # The band: not more than the input has, and not as small as square degrees are of km² (about
            # 8e-5 / cos(latitude), under 5e-4 up to 80°); a selection of less than 0.05 % of the whole is rare.
            total = sum(e for e in measures if e) * factor
            mine = sum(v for v in values if v == v)
            ratio = mine / total if total else float("inf")
            ok = 5e-4 <= ratio <= 1.05
            return ok, (
                f"`{name}` sums to {ratio:.3g} × the geodesic {measure} of all of `{params['input']}` in {label}"
                + ("" if ok else _contract_unit_guess(ratio))
            )
    pairs = [(v, e * factor) for v, e in zip(values, expected) if e and v == v]
    if not pairs:
        return False, f"`{name}`: no row has both a number and a feature with a {measure}"
    # Within 3 % (another fitting CRS, a valid repair) or half the rounding the values show
    # ("integer hectares": 1 for a 1.4 ha parcel).
    slack = _contract_rounding_step([v for v, _ in pairs]) / 2
    close = sum(abs(v - e) <= 0.03 * e + slack for v, e in pairs) / len(pairs)
    median = sorted(v / e for v, e in pairs)[len(pairs) // 2]
    # A row's own geometry is the feature itself: a value under half or over twice its measure is
    # wrong whatever CRS was used (one measured before a repair, a zero). Rows matched by a key may be
    # the input's features reshaped since, so only the bulk is asked of them.
    far = [(v, e) for v, e in pairs if own_rows and not 0.5 * e - slack <= v <= 2 * e + slack]
    ok = close >= 0.9 and not far
    return ok, (
        f"`{name}` is {median:.4g} × the geodesic {measure} of {how} in {label} (median; {close:.0%} of "
        f"{len(pairs)} rows within 3 %{' or the rounding' if slack else ''})"
        + (
            f"; {len(far)} row(s) under half or over twice their own geometry's {measure} "
            f"(e.g. {far[0][0]:.4g} where it is {far[0][1]:.4g})"
            if far
            else ""
        )
        + ("" if close >= 0.9 else _contract_unit_guess(median))
    )


def _kind_measure_units(params, data, value, sources):
    if isinstance(data, dict):
        return False, f"`{params['name']}` is a JSON value, not a column of features"
    return _contract_measure_units(params, data, sources)


def _measured(p, site):
    return _measures(p, site.spatial)


def _measures(p: dict, spatial: bool) -> list[str]:
    """Each feature's area, perimeter or length on the WGS84 ellipsoid in the unit asked for (what
    the check compares with): the file's own geometries, else the input feature of the same key,
    matched by the check's own ``_contract_key_match`` (embedded)."""
    name, measure, unit, source = (str(p.get(k) or "") for k in ("name", "measure", "unit", "input"))
    if not (name and source) or unit not in UNIT_IN_BASE or measure not in ("area", "perimeter", "length"):
        return []
    how = {
        "area": "abs(_geod.geometry_area_perimeter(g)[0])",
        "perimeter": "_geod.geometry_area_perimeter(g)[1]",
        "length": "_geod.geometry_length(g)",
    }[measure]
    kinds = ("LineString", "MultiLineString") if measure == "length" else ("Polygon", "MultiPolygon")
    own = f"_mend.crs is not None and _mend.geom_type.isin({kinds!r}).any()" if spatial else "False"
    lines = [
        "import pyproj",
        "_geod = pyproj.Geod(ellps='WGS84')",
        f"_src = _mend if {own} else {read(source)}",
        f"_m = [{how} / {UNIT_IN_BASE[unit]!r} if g is not None and not g.is_empty else None "
        "for g in _src.geometry.to_crs(4326)]",
        "if _src is _mend:",
        f"    _mend[{name!r}] = _m",
        "else:",
        *embedded(_contract_key, _contract_key_match, indent="    "),
        f"    _k, _rows, _ = _contract_key_match(_mend, _src, {name!r})",
        f"    _mend[{name!r}] = [_m[i] for i in _rows]",
    ]
    return lines


MEASURE_UNITS = RequirementKind(
    helpers=(
        _contract_unit_guess,
        _contract_measure_units,
    ),
    name="measure_units",
    params=MeasureUnitsParams,
    check=_kind_measure_units,
    reads="column",
    mend=_measured,
    mend_order=VALUE_MENDS + 1,
    advice=(
        "measure in a projected CRS in metres made for the data (an equal-area one for areas, the "
        "local UTM zone or national grid for lengths), never in degrees or Web Mercator, then convert "
        "to the unit the name says (m² / 1e6 = km², m² / 1e4 = ha, m / 1000 = km)"
    ),
)
