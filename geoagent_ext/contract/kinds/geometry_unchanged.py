"""The request leaves the geometry alone: the same CRS as the input, and every geometry one of the
input's (ring order aside)."""

from ..checker import _contract_crs_label, _contract_input
from ._kind import GEOMETRY_MENDS, Params, RequirementKind
from ._mending import read


class GeometryUnchangedParams(Params):
    input: str


def _kind_geometry_unchanged(params, data, sources):
    src = _contract_input(params["input"], sources)
    if src.crs != data.crs:
        return False, f"{_contract_crs_label(data.crs)}; the input is in {_contract_crs_label(src.crs)}"
    import shapely

    known = set(shapely.to_wkb(shapely.set_precision(shapely.normalize(src.geometry.values), 1e-9)).tolist())
    mine = shapely.to_wkb(shapely.set_precision(shapely.normalize(data.geometry.values), 1e-9)).tolist()
    moved = sum(w not in known for w in mine)
    return moved == 0, (
        f"{moved} of {len(data)} geometries differ from every geometry of {params['input']}"
        if moved
        else f"every geometry is one of {params['input']}'s, same CRS"
    )


def _put_back(p, site):
    """The input's own shapes, in its CRS, on a file that holds them row for row reprojected, or
    that lost every geometry (a frame rebuilt from its columns) while its rows stay the input's, in
    order: a column whose input values are all distinct reads the same, row for row."""
    if not p.get("input"):
        return []
    return [
        f"_src = {read(str(p['input']))}",
        "_back = _mend.geometry.to_crs(_src.crs) if _mend.crs is not None and _src.crs is not None else _mend.geometry",
        "_tol = 1e-7 if _src.crs is None or _src.crs.is_geographic else 1e-3",
        "_same_rows = len(_mend) == len(_src) and any(c in _src.columns and c != _mend.geometry.name "
        "and _src[c].nunique() == len(_src) and [str(v) for v in _mend[c]] == [str(v) for v in _src[c]] "
        "for c in _mend.columns)",
        "if len(_back) == len(_src) and all(a is not None and b is not None and "
        "shapely.hausdorff_distance(a, b) <= _tol for a, b in zip(_back.values, _src.geometry.values)) "
        "or (len(_mend) and _mend.geometry.isna().all() and _same_rows):",
        "    _mend = _mend.set_geometry(gpd.GeoSeries(_src.geometry.values, index=_mend.index, crs=_src.crs))",
    ]


GEOMETRY_UNCHANGED = RequirementKind(
    name="geometry_unchanged",
    params=GeometryUnchangedParams,
    check=_kind_geometry_unchanged,
    geometry=True,
    mend=_put_back,
    mend_order=GEOMETRY_MENDS,
    advice=(
        "keep the geometry column as read from the input: no to_crs, buffer, simplify or "
        "make_valid; change only the attributes the request names"
    ),
)
