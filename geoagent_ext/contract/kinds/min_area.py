"""Every polygonal feature's area on the ellipsoid is at least the area the request names."""

from ..checker import _contract_geodesic
from ._kind import GEOMETRY_MENDS, Params, RequirementKind
from ._mending import embedded


class MinAreaParams(Params):
    m2: float  # the least area, in square metres
    said: str  # the area as the request writes it ("1 ha")


def _kind_min_area(params, data, sources):
    small = [a for a in _contract_geodesic(data, "area") if a is not None and a < params["m2"]]
    return not small, (
        f"{len(small)} of {len(data)} features are smaller than {params['said']} (smallest {min(small):.3g} m²)"
        if small
        else f"no polygon is smaller than {params['said']}"
    )


def _dropped_small(p, site):
    """The polygons the request discards, measured as the check measures them."""
    if p.get("m2") is None:
        return []
    return [
        *embedded(_contract_geodesic),
        f"_mend = _mend[[a is None or a >= {float(p['m2'])!r} for a in _contract_geodesic(_mend, 'area')]]",
    ]


MIN_AREA = RequirementKind(
    name="min_area",
    params=MinAreaParams,
    check=_kind_min_area,
    geometry=True,
    mend=_dropped_small,
    mend_order=GEOMETRY_MENDS + 10,  # after the validity repair: an invalid polygon's area is not its area
    advice=(
        "drop the polygons below the area on the ellipsoid (or in an equal-area CRS): "
        "gdf = gdf[gdf.to_crs(gdf.estimate_utm_crs()).area >= N]"
    ),
)
