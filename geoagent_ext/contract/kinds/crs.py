"""The file's CRS: declared at all, a given EPSG code, or a projected CRS in metres whose area of
use holds the data."""

from pydantic import Field

from ..checker import _contract_crs_label, _contract_geo_bounds_wgs84
from ._kind import GEOMETRY_MENDS, Params, RequirementKind
from ._mending import embedded


class CrsEpsgParams(Params):
    epsg: int


class CrsProjectedMetresParams(Params):
    advised_epsg: int | None = Field(default=None, description="the CRS advisor's official grid: the mend's choice")
    name_has: str | None = Field(default=None, description="a word the CRS's name must hold ('UTM')")
    regional: bool = Field(
        default=False, description="the request names a national or official grid: a world-wide CRS is none"
    )


def _kind_crs_present(params, data, sources):
    return data.crs is not None, _contract_crs_label(data.crs)


def _kind_crs_epsg(params, data, sources):
    crs = data.crs
    return crs is not None and crs.to_epsg() == params["epsg"], _contract_crs_label(crs)


def _kind_crs_projected_metres(params, data, sources):
    crs = data.crs
    if crs is None or not crs.is_projected:
        return False, f"{_contract_crs_label(crs)}: not a projected CRS"
    units = {(a.unit_name or "").lower() for a in crs.axis_info}
    if not units <= {"metre", "meter", "m"}:
        return False, f"{_contract_crs_label(crs)}: units {sorted(units)}, not metres"
    family = params.get("name_has")
    if family and family.lower() not in crs.name.lower():
        return False, f"{_contract_crs_label(crs)}: not a {family} CRS"
    area, bounds = crs.area_of_use, _contract_geo_bounds_wgs84(data)
    if area is None or bounds is None:
        return True, f"{_contract_crs_label(crs)}, metres"
    w, s, e, n = area.bounds
    if params.get("regional") and w <= e and e - w >= 350:
        return False, (
            f"{_contract_crs_label(crs)}: a world-wide CRS (area of use {area.name}), not the national or "
            "official grid of the data's region"
        )
    # Areas of use are drawn loosely (a national grid's may stop at the coast): the data's
    # centre must lie within the area grown by a degree.
    cx, cy = bounds[4], bounds[5]
    lon_ok = (w - 1 <= cx <= e + 1) if w <= e else (cx >= w - 1 or cx <= e + 1)  # w > e: spans the antimeridian
    inside = lon_ok and s - 1 <= cy <= n + 1
    where = f"area of use {area.name} [{w:.1f}, {s:.1f}, {e:.1f}, {n:.1f}]"
    data_box = f"data [{bounds[0]:.2f}, {bounds[1]:.2f}, {bounds[2]:.2f}, {bounds[3]:.2f}]"
    return (
        inside,
        f"{_contract_crs_label(crs)}, metres; {where} {'fits' if inside else 'is far from'} the {data_box}",
    )


def _contract_degrees_as_projected(frame):
    """Whether ``frame`` holds lon/lat degrees under a projected CRS's label (``gdf.crs = 22992`` set
    on data never reprojected): its coordinates are degrees that fall in the CRS's area of use, and,
    read as the CRS's own coordinates, lie outside that area."""
    from pyproj import Transformer

    crs = frame.crs
    if crs is None or not crs.is_projected or crs.area_of_use is None or not len(frame):
        return False
    x0, y0, x1, y1 = (float(v) for v in frame.total_bounds)
    if not (max(abs(x0), abs(x1)) <= 180 and max(abs(y0), abs(y1)) <= 90):
        return False
    w, s, e, n = crs.area_of_use.bounds
    if w > e or not (w - 1 <= x0 and x1 <= e + 1 and s - 1 <= y0 and y1 <= n + 1):
        return False
    xs, ys = Transformer.from_crs(4326, crs, always_xy=True).transform([w, e, w, e], [s, s, n, n])
    return x1 < min(xs) or x0 > max(xs) or y1 < min(ys) or y0 > max(ys)


def _reprojected(epsg):
    """Reproject to ``epsg``. A frame labelled in degrees whose coordinates no degree has (built in
    metres and given crs=4326) has the wrong label, not the wrong coordinates: it is relabelled; one
    whose projected label sits on lon/lat degrees (``_contract_degrees_as_projected``) is read as
    degrees, then reprojected."""
    if not epsg:
        return []
    return [
        *embedded(_contract_degrees_as_projected),
        "_b = _mend.total_bounds",
        "if _mend.crs is not None and _mend.crs.is_geographic and "
        "(abs(_b[[0, 2]]).max() > 180 or abs(_b[[1, 3]]).max() > 90):",
        f"    _mend = _mend.set_crs(epsg={int(epsg)}, allow_override=True)",
        "elif _contract_degrees_as_projected(_mend):",
        f"    _mend = _mend.set_crs(epsg=4326, allow_override=True).to_crs(epsg={int(epsg)})",
        "elif _mend.crs is not None:",
        f"    _mend = _mend.to_crs(epsg={int(epsg)})",
    ]


CRS_PRESENT = RequirementKind(
    name="crs_present",
    params=Params,
    check=_kind_crs_present,
    geometry=True,
    advice=(
        "give the frame its CRS before writing: the input's (gdf.set_crs(src.crs) only when the "
        "coordinates are in it) or the one it was reprojected to with to_crs"
    ),
)
CRS_EPSG = RequirementKind(
    name="crs_epsg",
    params=CrsEpsgParams,
    check=_kind_crs_epsg,
    geometry=True,
    mend=lambda p, site: _reprojected(p.get("epsg")),
    mend_order=GEOMETRY_MENDS + 2,
    advice="reproject with gdf.to_crs(epsg=CODE) before writing (set_crs only labels, it does not convert)",
)
CRS_PROJECTED_METRES = RequirementKind(
    name="crs_projected_metres",
    params=CrsProjectedMetresParams,
    check=_kind_crs_projected_metres,
    geometry=True,
    mend=lambda p, site: _reprojected(p.get("advised_epsg")),  # the CRS advisor's official grid
    mend_order=GEOMETRY_MENDS + 3,
    advice=(
        "reproject with gdf.to_crs(...) to a projected CRS in metres made for this region "
        "(its national grid, or gdf.estimate_utm_crs()) before measuring and writing"
    ),
)
