"""Each row's distance to, or a column of, the nearest feature of another layer (from the row's own
geometry, or its input feature's by a key)."""

from typing import Literal

from ..checker import (
    _CONTRACT_UNIT_FACTOR,
    _contract_has_geometry,
    _contract_input,
    _contract_key,
    _contract_key_match,
    _contract_short,
    _contract_wkt_view,
)
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


def _contract_nearest_metres(origin, target):
    """Metres from each geometry of the GeoSeries ``origin`` to the nearest feature of the frame
    ``target`` (None where it has none), measured in ``origin``'s UTM zone: a straight line, within a
    fraction of a percent of the geodesic at a region's scale. The contract's mend embeds it."""
    import geopandas as gpd

    utm = origin.estimate_utm_crs()
    a = gpd.GeoDataFrame(geometry=origin.to_crs(utm).values, crs=utm)
    a = a[~(a.geometry.isna() | a.geometry.is_empty)]
    b = gpd.GeoDataFrame(geometry=target.geometry.to_crs(utm).values, crs=utm)
    b = b[~(b.geometry.isna() | b.geometry.is_empty)]
    found = gpd.sjoin_nearest(a, b, distance_col="_contract_d")["_contract_d"].groupby(level=0).min()
    return [None if v != v else float(v) for v in found.reindex(range(len(origin))).tolist()]


def _contract_row_origins(params, data, sources, name):
    """(GeoSeries of each row's feature, "") — the file's own geometries, else the input feature of
    the same key — or (None, why not)."""
    import geopandas as gpd

    if _contract_has_geometry(data) and data.crs is not None:
        return gpd.GeoSeries(data.geometry.values, crs=data.crs), ""
    src = _contract_input(params["input"], sources)
    src = src if _contract_has_geometry(src) else _contract_wkt_view(src)  # geometry written as WKT text
    match = _contract_key_match(data, src, name) if _contract_has_geometry(src) and src.crs is not None else None
    if not match:
        return None, f"cannot check `{name}`: the rows have no geometry and no key of `{params['input']}`"
    return gpd.GeoSeries(src.geometry.values[match[1]], crs=src.crs), ""


def _contract_nearest_rows(origin, target):
    """For each geometry of the GeoSeries ``origin``: the positions in the frame ``target`` of its
    nearest features (the nearest first, then any within 0.5 % or 1 m of it: ties), measured in
    ``origin``'s UTM zone; [] where it has none. The contract's mend embeds it."""
    import numpy as np
    import shapely

    utm = origin.estimate_utm_crs()
    a, b = origin.to_crs(utm).to_numpy(), target.geometry.to_crs(utm).to_numpy()
    present = ~(shapely.is_missing(b) | shapely.is_empty(b))
    tree = shapely.STRtree(np.where(present, b, None))
    found = [[] for _ in range(len(a))]
    ok = np.flatnonzero(~(shapely.is_missing(a) | shapely.is_empty(a)))
    if not len(ok) or not present.any():
        return found
    (i, j), d = tree.query_nearest(a[ok], return_distance=True, all_matches=False)
    near = dict(zip(ok[i].tolist(), zip(j.tolist(), d.tolist())))
    reach = np.array([near[k][1] + max(1.0, 0.005 * near[k][1]) for k in ok])
    ii, jj = tree.query(shapely.buffer(a[ok], reach), predicate="intersects")
    for k, t in zip(ok[ii].tolist(), jj.tolist()):
        first, dmin = near[k]
        if t != first and shapely.distance(a[k], b[t]) <= dmin + max(1.0, 0.005 * dmin):
            found[k].append(t)
    for k, (first, _) in near.items():
        found[k].insert(0, first)
    return found


def _contract_nearest_attribute(params, data, sources):
    """(passed, observed) of a column naming each row's nearest feature of ``params["to"]``: its
    value is ``params["column"]`` of that feature (or of one tied with it)."""
    name, to, column = params["name"], params["to"], params["column"]
    origin, why = _contract_row_origins(params, data, sources, name)
    target = _contract_input(to, sources)
    target = target if _contract_has_geometry(target) else _contract_wkt_view(target)  # WKT text: its geometry
    if origin is None:
        return False, why
    if not _contract_has_geometry(target) or target.crs is None or column not in target.columns:
        return False, f"cannot check `{name}`: `{to}` has no geometry with a CRS or no `{column}`"
    values = target[column].tolist()
    wrong = [
        (v, rows)
        for v, rows in zip(data[name].tolist(), _contract_nearest_rows(origin, target))
        if rows and _contract_key(v) not in {_contract_key(values[t]) for t in rows}
    ]
    if wrong:
        v, rows = wrong[0]
        return False, (
            f"`{name}` is not the `{column}` of the nearest feature of `{to}` on {len(wrong)} of {len(data)} "
            f"rows (e.g. '{_contract_short(v, 30)}', nearest '{_contract_short(values[rows[0]], 30)}')"
        )
    return True, f"`{name}` is the `{column}` of the nearest feature of `{to}` on all {len(data)} rows"


def _contract_nearest_distance(params, data, sources):
    """(passed, observed) of a distance column against the distance from each row's feature (its
    own geometry, else the input feature of the same key) to the nearest feature of ``params["to"]``,
    within 0.5 % or 1 m."""
    import pandas as pd

    name, unit, to = params["name"], params["unit"], params["to"]
    origin, why = _contract_row_origins(params, data, sources, name)
    if origin is None:
        return False, why.replace("cannot check", "cannot measure")
    target = _contract_input(to, sources)
    target = target if _contract_has_geometry(target) else _contract_wkt_view(target)  # WKT text: its geometry
    if not _contract_has_geometry(target) or target.crs is None or origin.crs is None:
        return False, f"cannot measure `{name}`: `{to}` or the rows have no geometry with a CRS"
    factor = _CONTRACT_UNIT_FACTOR[unit]
    expected = [None if m is None else m * factor for m in _contract_nearest_metres(origin, target)]
    values = pd.to_numeric(data[name], errors="coerce").tolist()
    wrong = [
        (v, e)
        for v, e in zip(values, expected)
        if e is not None and not (v == v and abs(v - e) <= max(factor, 0.005 * e))
    ]
    if wrong:
        v, e = wrong[0]
        return False, (
            f"`{name}` differs from the distance to the nearest feature of `{to}` on {len(wrong)} of "
            f"{len(values)} rows (e.g. {_contract_short(v, 20)}, expected {e:.1f} {unit})"
        )
    return True, f"`{name}` is the distance to the nearest feature of `{to}` in {unit} on all {len(values)} rows"


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
    if not (name and source and to) or unit not in UNIT_IN_BASE or to.lower().endswith(".csv"):
        return []  # a table of WKT text is no layer to read here
    return [
        *embedded(_contract_nearest_metres),
        f"_to = {read(to)}",
        *row_origins(p, spatial, name),
        f"_mend[{name!r}] = [None if m is None else m / {UNIT_IN_BASE[unit]!r} "
        "for m in _contract_nearest_metres(_from, _to)]",
    ]


def _nearest_attribute(p: dict, spatial: bool) -> list[str]:
    """Each row's value of the nearest feature's column (the nearest first of ties), found as the
    check finds it (``_contract_nearest_rows``, embedded)."""
    name, column, source, to = (str(p.get(k) or "") for k in ("name", "column", "input", "to"))
    if not (name and column and source and to) or to.lower().endswith(".csv"):
        return []
    return [
        *embedded(_contract_nearest_rows),
        f"_to = {read(to)}",
        *row_origins(p, spatial, name),
        f"_mend[{name!r}] = [_to[{column!r}].iloc[r[0]] if r else None for r in _contract_nearest_rows(_from, _to)]",
    ]


NEAREST_DISTANCE = RequirementKind(
    helpers=(_contract_nearest_metres, _contract_row_origins, _contract_nearest_distance),
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
    helpers=(_contract_row_origins, _contract_nearest_rows, _contract_nearest_attribute),
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
