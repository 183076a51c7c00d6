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
    """A file that holds, row for row, the input's own shapes reprojected gets them back in the
    input's CRS."""
    if not p.get("input"):
        return []
    return [
        f"_src = {read(str(p['input']))}",
        "_back = _mend.geometry.to_crs(_src.crs) if _mend.crs is not None and _src.crs is not None else _mend.geometry",
        "_tol = 1e-7 if _src.crs is None or _src.crs.is_geographic else 1e-3",
        "if len(_back) == len(_src) and all(a is not None and b is not None and "
        "shapely.hausdorff_distance(a, b) <= _tol for a, b in zip(_back.values, _src.geometry.values)):",
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
