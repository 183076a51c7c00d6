"""The data lies where its inputs lie: coordinates swapped, left in another unit or labelled with a
CRS they are not in put it somewhere else on Earth."""

from pydantic import Field

from ..checker import _contract_crs_label, _contract_geo_bounds_wgs84
from ._kind import Params, RequirementKind


class LocatedParams(Params):
    bounds: list[float] = Field(description="[w, s, e, n] of the inputs in lon/lat", min_length=4, max_length=4)


def _contract_located(params, data):
    """(passed, observed): the data lies where its inputs lie (``params.bounds``, lon/lat, grown by
    their own size and at least two degrees): coordinates swapped, left in another unit or labelled
    with a CRS they are not in put it somewhere else on Earth."""
    box = _contract_geo_bounds_wgs84(data)
    if box is None:
        return False, "no CRS or no geometry to place it by"
    w, s, e, n = params["bounds"]
    grow_x, grow_y = max(2.0, e - w), max(2.0, n - s)
    inside = (
        box[1] <= n + grow_y
        and box[3] >= s - grow_y
        and (w > e or box[0] > box[2] or (box[0] <= e + grow_x and box[2] >= w - grow_x))
    )  # across +-180: lat only
    seen = f"data at lon/lat [{box[0]:.3f}, {box[1]:.3f}, {box[2]:.3f}, {box[3]:.3f}]"
    where = f"the inputs at [{w:.3f}, {s:.3f}, {e:.3f}, {n:.3f}]"
    return inside, f"{seen}: {'near' if inside else 'far from'} {where} (CRS {_contract_crs_label(data.crs)})"


def _kind_located(params, data, sources):
    return _contract_located(params, data)


LOCATED = RequirementKind(
    helpers=(_contract_located,),
    name="located",
    params=LocatedParams,
    check=_kind_located,
    geometry=True,
    advice=(
        "the coordinates are not where the input data is: check x/y order (lon, lat), the CRS the "
        "coordinates are really in (to_crs converts, set_crs only labels), and the unit"
    ),
)
