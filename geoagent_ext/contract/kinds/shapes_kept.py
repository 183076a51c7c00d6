"""Every feature's shape, back in the input's CRS, is one of the input's features' or of their parts'
(within 1 m): reprojection and explode allowed, reshaping not."""

from ..checker import _contract_shapes_kept
from ._kind import GEOMETRY_MENDS, Params, RequirementKind
from ._mending import embedded, read


class ShapesKeptParams(Params):
    input: str


def _kind_shapes_kept(params, data, sources):
    return _contract_shapes_kept(params, data, sources)


def _nearest_kept(p, site):
    """Each feature off the input's shapes becomes the input's shape or part nearest it, in the
    file's CRS, found as the check finds it."""
    if not p.get("input"):
        return []
    return [
        *embedded("_contract_shape_index", "_contract_nearest_shape", "_contract_shape_tolerance"),
        f"_src = {read(str(p['input']))}",
        "_crs = _mend.crs if _mend.crs is not None else _src.crs",
        "_index, _tol = _contract_shape_index(_crs, _src), _contract_shape_tolerance(_crs)[0]",
        "_kept = []",
        "for _g in _mend.geometry.values:",
        "    _near, _off = (None, 0.0) if _g is None or _g.is_empty else _contract_nearest_shape(_g, _index)",
        "    _kept.append(_g if _near is None or _off <= _tol else _near)",
        "_mend[_mend.geometry.name] = gpd.GeoSeries(_kept, index=_mend.index, crs=_mend.crs)",
    ]


SHAPES_KEPT = RequirementKind(
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
