"""Each value is its feature's geodesic area, length or perimeter in the unit its name says (its
own geometry, or its input feature's by a key)."""

from typing import Literal

from ..checker import _contract_measure_units
from ..formats import UNIT_IN_BASE
from ._kind import VALUE_MENDS, ColumnParams, RequirementKind
from ._mending import embedded, read


class MeasureUnitsParams(ColumnParams):
    measure: Literal["area", "length", "perimeter"]
    unit: str  # km2, m2, ha, km, m (formats.UNIT_IN_BASE)
    input: str | None = None  # the input whose features the rows are, by a key


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
        *embedded("_contract_key", "_contract_key_match", indent="    "),
        f"    _k, _rows, _ = _contract_key_match(_mend, _src, {name!r})",
        f"    _mend[{name!r}] = [_m[i] for i in _rows]",
    ]
    return lines


MEASURE_UNITS = RequirementKind(
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
