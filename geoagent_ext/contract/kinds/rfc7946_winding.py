"""GeoJSON polygons follow RFC 7946's right-hand rule: exteriors counter-clockwise, holes clockwise."""

from ..checker import _contract_winding_faults
from ._kind import GEOMETRY_MENDS, Params, RequirementKind


def _kind_rfc7946_winding(params, path, fmt, layers):
    wrong, total = _contract_winding_faults(path)  # read from the JSON text: a reader may reorient rings
    return wrong == 0, (
        f"{wrong} of {total} polygons wound against RFC 7946 (exterior clockwise or a hole counter-clockwise)"
        if wrong
        else f"all {total} polygons follow the right-hand rule"
    )


def _oriented(params, site):
    return [
        "_mend = _mend.set_geometry(gpd.GeoSeries(shapely.orient_polygons(_mend.geometry.values, "
        "exterior_cw=False), index=_mend.index, crs=_mend.crs))"
    ]


RFC7946_WINDING = RequirementKind(
    name="rfc7946_winding",
    params=Params,
    check=_kind_rfc7946_winding,
    reads="file",
    geometry=True,
    mend=_oriented,
    mend_order=GEOMETRY_MENDS + 11,
    advise_up_front=True,
    advice=(
        "orient the rings without moving a vertex: gdf.geometry = shapely.orient_polygons("
        "gdf.geometry.values, exterior_cw=False) (or write in EPSG:4326 with "
        "gdf.to_file(path, driver='GeoJSON', RFC7946='YES')); do not simplify, buffer or make_valid"
    ),
)
