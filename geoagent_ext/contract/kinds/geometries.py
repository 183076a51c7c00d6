"""Every feature's geometry is there, valid, and unlike every other feature's."""

from typing import Literal

from ..checker import _contract_geodesic, _contract_has_geometry, _contract_input, _contract_key
from ._kind import GEOMETRY_MENDS, Params, RequirementKind
from ._mending import kept_first


class GeometriesValidParams(Params):
    input: str | None = None  # with ``key``: each invalid feature of that input kept by its key, repaired
    key: str | None = None


class KeptRowParams(Params):
    """Which row of duplicates the request keeps (``keep_by`` its column's min or max); "as_requested":
    a rule only the model can follow, no mend."""

    keep_by: str | None = None
    keep: Literal["min", "max", "as_requested"] | None = None
    input: str | None = None  # with ``key``: of each set of that input's features sharing a geometry, one kept
    key: str | None = None
    min_m2: float | None = None  # features below this area may go (the request discards them)


def _contract_invalid_kept(params, data, sources):
    """(passed, observed): every key of the input's invalid features is in the file (repaired,
    not dropped)."""
    src, key = _contract_input(params["input"], sources), params["key"]
    if not _contract_has_geometry(src) or key not in src.columns:
        return True, f"0 of {len(data)} geometries are invalid"
    present = src[src.geometry.notna() & ~src.geometry.is_empty]
    invalid = {_contract_key(v) for v in present.loc[~present.geometry.is_valid, key].tolist()}
    lost = sorted(invalid - {_contract_key(v) for v in data[key].tolist()})
    said = (
        f"0 of {len(data)} geometries are invalid; {len(invalid)} feature(s) of `{params['input']}` had "
        "invalid geometries"
    )
    if not lost:
        return True, said + (", each kept" if invalid else "")
    return False, (
        f"{said} and {len(lost)} of them are missing (`{key}` {', '.join(lost[:5])}): repair them with "
        "make_valid(), do not drop them"
    )


def _kind_geometries_present(params, data, sources):
    geoms = data.geometry
    bad = int((geoms.isna() | geoms.is_empty).sum())
    return bad == 0, f"{bad} of {len(data)} features have a null or empty geometry"


def _kind_geometries_valid(params, data, sources):
    geoms = data.geometry
    present = geoms[~(geoms.isna() | geoms.is_empty)]
    invalid = present[~present.is_valid]
    import shapely

    why = shapely.is_valid_reason(invalid.values[:1])[0] if len(invalid) else ""
    if not invalid.empty or not (params.get("input") and params.get("key") in data.columns):
        return invalid.empty, f"{len(invalid)} of {len(data)} geometries are invalid" + (
            f" (e.g. {why})" if why else ""
        )
    return _contract_invalid_kept(params, data, sources)


def _contract_copies_lost(params, data, sources):
    """The sets of the input's features sharing one geometry of which the file kept no copy, by key;
    judged only when the file kept every other feature (above the request's least area), so a file
    that also selects rows is never read as one that lost them."""
    src, key = _contract_input(params["input"], sources), params["key"]
    if not _contract_has_geometry(src) or key not in src.columns or key not in data.columns:
        return []
    present = src[src.geometry.notna() & ~src.geometry.is_empty & src.geometry.is_valid]
    shapes = present.geometry.normalize().to_wkb()
    shared = shapes.duplicated(keep=False).tolist()
    least = params.get("min_m2")
    kept = [least is None or (a is not None and a >= least) for a in _contract_geodesic(present, "area")]
    keys = {_contract_key(v) for v in data[key].tolist()}
    groups: dict = {}
    for value, shape, is_shared, is_kept in zip(present[key].tolist(), shapes.tolist(), shared, kept):
        if is_kept and not is_shared and _contract_key(value) not in keys:
            return []  # the file selects rows: which copies it left out is not this check's to say
        if is_kept and is_shared:
            groups.setdefault(shape, []).append(_contract_key(value))
    return [group for group in groups.values() if not set(group) & keys]


def _kind_geometries_unique(params, data, sources):
    geoms = data.geometry
    present = geoms[~(geoms.isna() | geoms.is_empty)]
    repeated = int(present.normalize().to_wkb().duplicated().sum())
    if repeated or not (params.get("input") and params.get("key")):
        return repeated == 0, f"{repeated} of {len(data)} features repeat an earlier feature's geometry"
    lost = _contract_copies_lost(params, data, sources)
    if lost:
        named = ", ".join("/".join(group[:2]) for group in lost[:4])
        return False, (
            f"0 features repeat a geometry, but of {len(lost)} set(s) of `{params['input']}` features sharing "
            f"one geometry no copy is left (`{params['key']}` {named}): keep one of each set, drop only the others"
        )
    return True, f"0 of {len(data)} features repeat an earlier feature's geometry; one of each repeated one kept"


def _unique_geometries(p, site):
    if p.get("keep") == "as_requested":
        return []
    return [*kept_first(p), "_mend = _mend[~_mend.geometry.normalize().to_wkb().duplicated()]"]


GEOMETRIES_PRESENT = RequirementKind(
    name="geometries_present",
    params=Params,
    check=_kind_geometries_present,
    geometry=True,
    mend=lambda p, site: ["_mend = _mend[~(_mend.geometry.isna() | _mend.geometry.is_empty)]"],
    mend_order=GEOMETRY_MENDS + 5,
    advice=("drop rows whose geometry is null or empty: gdf = gdf[~(gdf.geometry.isna() | gdf.geometry.is_empty)]"),
)
GEOMETRIES_VALID = RequirementKind(
    helpers=(_contract_invalid_kept,),
    name="geometries_valid",
    params=GeometriesValidParams,
    check=_kind_geometries_valid,
    geometry=True,
    mend=lambda p, site: [
        "_mend = _mend.set_geometry(_mend.geometry.make_valid(method='structure', keep_collapsed=False))"
    ],
    mend_order=GEOMETRY_MENDS + 6,
    advice=(
        "repair with gdf.geometry = gdf.geometry.make_valid() and keep only the wanted type "
        "(e.g. .collection_extract / explode and regroup), then check gdf.geometry.is_valid.all()"
    ),
)
GEOMETRIES_UNIQUE = RequirementKind(
    helpers=(_contract_copies_lost,),
    name="geometries_unique",
    params=KeptRowParams,
    check=_kind_geometries_unique,
    geometry=True,
    mend=_unique_geometries,
    mend_order=GEOMETRY_MENDS + 9,
    advice="drop repeated geometries: gdf = gdf[~gdf.geometry.normalize().to_wkb().duplicated()]",
)
