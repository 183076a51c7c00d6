"""Each row's distance to, or a column of, the nearest feature of another layer (from the row's own
geometry, or its input feature's by a key)."""

from typing import Literal

from ..checker import _contract_nearest_attribute, _contract_nearest_distance
from ..formats import UNIT_IN_BASE
from ._kind import VALUE_MENDS, ColumnParams, RequirementKind
from ._mending import embedded, read, row_origins


class NearestDistanceParams(ColumnParams):
    unit: Literal["m", "km"]
    input: str  # the layer whose features the rows are
    to: str  # the layer whose nearest feature is measured to


class NearestAttributeParams(ColumnParams):
    column: str  # the column of `to` each value is
    input: str
    to: str


def _kind_nearest_distance(params, data, value, sources):
    if isinstance(data, dict):
        return False, f"`{params['name']}` is a JSON value, not a column of features"
    return _contract_nearest_distance(params, data, sources)


def _kind_nearest_attribute(params, data, value, sources):
    if isinstance(data, dict):
        return False, f"`{params['name']}` is a JSON value, not a column of features"
    return _contract_nearest_attribute(params, data, sources)


def _nearest(p: dict, spatial: bool) -> list[str]:
    """Each row's straight-line distance to the nearest feature of the other layer, as the check
    measures it (``_contract_nearest_metres``, embedded): from the file's own geometries, else from
    the input feature of the same key (``_contract_key_match``, embedded)."""
    name, unit, source, to = (str(p.get(k) or "") for k in ("name", "unit", "input", "to"))
    if not (name and source and to) or unit not in UNIT_IN_BASE:
        return []
    return [
        *embedded("_contract_nearest_metres"),
        f"_to = {read(to)}",
        *row_origins(p, spatial, name),
        f"_mend[{name!r}] = [None if m is None else m / {UNIT_IN_BASE[unit]!r} "
        "for m in _contract_nearest_metres(_from, _to)]",
    ]


def _nearest_attribute(p: dict, spatial: bool) -> list[str]:
    """Each row's value of the nearest feature's column (the nearest first of ties), found as the
    check finds it (``_contract_nearest_rows``, embedded)."""
    name, column, source, to = (str(p.get(k) or "") for k in ("name", "column", "input", "to"))
    if not (name and column and source and to):
        return []
    return [
        *embedded("_contract_nearest_rows"),
        f"_to = {read(to)}",
        *row_origins(p, spatial, name),
        f"_mend[{name!r}] = [_to[{column!r}].iloc[r[0]] if r else None for r in _contract_nearest_rows(_from, _to)]",
    ]


NEAREST_DISTANCE = RequirementKind(
    name="nearest_distance",
    params=NearestDistanceParams,
    check=_kind_nearest_distance,
    reads="column",
    mend=lambda p, site: _nearest(p, site.spatial),
    mend_order=VALUE_MENDS + 2,
    advice=(
        "join in a projected CRS in metres made for the data and keep the join's own distance: "
        "a = rows.to_crs(rows.estimate_utm_crs()); j = gpd.sjoin_nearest(a, other.to_crs(a.crs), "
        "distance_col=COLUMN); not the distance of a geometry to itself (0), not degrees"
    ),
)
NEAREST_ATTRIBUTE = RequirementKind(
    name="nearest_attribute",
    params=NearestAttributeParams,
    check=_kind_nearest_attribute,
    reads="column",
    mend=lambda p, site: _nearest_attribute(p, site.spatial),
    mend_order=VALUE_MENDS + 3,
    advice=(
        "take it from the nearest join's own row: j = gpd.sjoin_nearest(rows, other.to_crs(rows.crs)); "
        "j[COLUMN] = j[<the other layer's column>] — never other[...] assigned by index"
    ),
)
