"""Every feature's shape, back in the input's CRS, is one of the input's features' or of their parts'
(within 1 m): reprojection and explode allowed, reshaping not."""

from ..checker import _CONTRACT_SHAPE_SAMPLE, _contract_input
from ._kind import GEOMETRY_MENDS, Params, RequirementKind
from ._mending import embedded, read


class ShapesKeptParams(Params):
    input: str


def _contract_shape_index(crs, src):
    """{dimension: (STRtree, shapes)} of the input's shapes and each of their parts, in ``crs`` as a
    step would reproject them (back the other way PROJ may pick another datum transformation:
    EPSG:22992 to WGS84 lands 130 m off the forward one). By dimension: a polygon's outline as a
    line is at Hausdorff distance 0 from it, and is not its shape."""
    import numpy as np
    import shapely

    theirs = src.geometry
    if src.crs is not None and crs is not None and not crs.equals(src.crs):
        theirs = theirs.to_crs(crs)
    theirs = np.asarray(theirs[~(theirs.isna() | theirs.is_empty)].values)
    shapes = np.concatenate([theirs, shapely.get_parts(theirs)])
    dims = shapely.get_dimensions(shapes)
    return {int(d): (shapely.STRtree(shapes[dims == d]), shapes[dims == d]) for d in set(dims.tolist())}


def _contract_nearest_shape(shape, index):
    """(the input's shape nearest ``shape``, their Hausdorff distance) among the input's shapes of its
    dimension whose bounds meet it (else the nearest one); (None, inf) when the input has none."""
    import shapely

    found = index.get(int(shapely.get_dimensions(shape)))
    if found is None:
        return None, float("inf")
    tree, shapes = found
    near = tree.query(shape)
    near = near if len(near) else tree.query_nearest(shape)
    j, off = min(((int(j), float(shapely.hausdorff_distance(shape, shapes[j]))) for j in near), key=lambda t: t[1])
    return shapes[j], off


def _contract_shape_tolerance(crs):
    """(how far a kept shape may be, its unit): 1 m, or 1e-5 degrees in lon/lat."""
    return (1e-5, "°") if crs is None or crs.is_geographic else (1.0, " m")


def _contract_restorable(shape, near, off, tolerance):
    """Whether ``shape`` is ``near`` (the input's shape nearest it) reshaped in place, so that the
    mend may put ``near`` back: their bounds meet, or it lies within 100 tolerances of it. A shape
    far from every input shape (coordinates in another CRS than their label says) was moved, not
    reshaped: the nearest input shape is some other feature's."""
    import shapely

    return off <= 100 * tolerance or bool(shapely.intersects(shapely.box(*shape.bounds), shapely.box(*near.bounds)))


def _contract_shapes_kept(params, data, sources):
    """(passed, observed): each feature's shape is within the tolerance (Hausdorff distance) of one
    of the input's features or of their parts (of the same dimension), the input in the file's CRS."""
    import numpy as np

    src = _contract_input(params["input"], sources)
    mine = data.geometry
    crs = mine.crs if mine.crs is not None else src.crs
    mine = mine[~(mine.isna() | mine.is_empty)]
    index = _contract_shape_index(crs, src)
    if not len(mine) or not index:
        return True, "no features to compare"
    tolerance, unit = _contract_shape_tolerance(crs)
    picked = mine.values[np.linspace(0, len(mine) - 1, min(len(mine), _CONTRACT_SHAPE_SAMPLE)).astype(int)]
    changed = [
        (i, off)
        for i, shape in enumerate(picked)
        for off in [_contract_nearest_shape(shape, index)[1]]
        if off > tolerance
    ]
    if not changed:
        return True, f"every feature's shape is one of {params['input']}'s or a part of one"
    moved = [off for _, off in changed if off < float("inf")]
    seen = ([f"off by up to {max(moved):.6g}{unit}"] if moved else []) + (
        [f"{len(changed) - len(moved)} of a kind (point, line, polygon) it has none of"]
        if len(moved) < len(changed)
        else []
    )
    return False, (
        f"{len(changed)} of {len(picked)} features' shapes are none of {params['input']}'s (nor a part of "
        f"one): {'; '.join(seen)} (e.g. feature {changed[0][0]})"
    )


def _kind_shapes_kept(params, data, sources):
    return _contract_shapes_kept(params, data, sources)


def _nearest_kept(p, site):
    """Each feature off the input's shapes becomes the input's shape or part nearest it, in the
    file's CRS, found as the check finds it, when it is that shape reshaped in place
    (``_contract_restorable``); a moved feature is left for the check to report."""
    if not p.get("input"):
        return []
    return [
        *embedded(_contract_shape_index, _contract_nearest_shape, _contract_shape_tolerance, _contract_restorable),
        f"_src = {read(str(p['input']))}",
        "_crs = _mend.crs if _mend.crs is not None else _src.crs",
        "_index, _tol = _contract_shape_index(_crs, _src), _contract_shape_tolerance(_crs)[0]",
        "_kept = []",
        "for _g in _mend.geometry.values:",
        "    _near, _off = (None, 0.0) if _g is None or _g.is_empty else _contract_nearest_shape(_g, _index)",
        "    _back = _near is not None and _off > _tol and _contract_restorable(_g, _near, _off, _tol)",
        "    _kept.append(_near if _back else _g)",
        "_mend[_mend.geometry.name] = gpd.GeoSeries(_kept, index=_mend.index, crs=_mend.crs)",
    ]


SHAPES_KEPT = RequirementKind(
    helpers=(
        _contract_shape_index,
        _contract_nearest_shape,
        _contract_shape_tolerance,
        _contract_restorable,
        _contract_shapes_kept,
    ),
    name="shapes_kept",
    params=ShapesKeptParams,
    check=_kind_shapes_kept,
    geometry=True,
    mend=_nearest_kept,
    mend_order=GEOMETRY_MENDS + 4,
    advice=(
        "keep each feature's geometry as read: reproject with to_crs and split multi-parts with "
        "explode where asked, but no simplify, buffer, make_valid, rounding or coordinate edits"
    ),
)
