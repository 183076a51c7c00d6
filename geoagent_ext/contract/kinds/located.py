"""The data lies where its inputs lie: coordinates swapped, left in another unit or labelled with a
CRS they are not in put it somewhere else on Earth."""

from pydantic import Field

from ..checker import _contract_beyond_lonlat, _contract_crs_label, _contract_geo_bounds_wgs84
from ._kind import Params, RequirementKind


class LocatedParams(Params):
    bounds: list[float] = Field(description="[w, s, e, n] of the inputs in lon/lat", min_length=4, max_length=4)


def _contract_located(params, data):
    """(passed, observed): the data lies where its inputs lie (``params.bounds``, lon/lat, grown by
    their own size and at least two degrees): coordinates swapped, left in another unit or labelled
    with a CRS they are not in put it somewhere else on Earth. Data within those bounds still fails
    when it lies apart from the inputs (their bounds grown by their own size and 0.05°) and only its
    coordinates read as (y, x) meet them: x and y swapped where lon and lat are close in value.
    Coordinates no place on Earth has fail first, with what put them there."""
    box = _contract_geo_bounds_wgs84(data)
    if box is None:
        return False, "no CRS or no geometry to place it by"
    beyond = _contract_beyond_lonlat(data)
    if beyond:
        return False, beyond
    w, s, e, n = params["bounds"]
    grow_x, grow_y = max(2.0, e - w), max(2.0, n - s)
    inside = (
        box[1] <= n + grow_y
        and box[3] >= s - grow_y
        and (w > e or box[0] > box[2] or (box[0] <= e + grow_x and box[2] >= w - grow_x))
    )  # across +-180: lat only
    seen = f"data at lon/lat [{box[0]:.3f}, {box[1]:.3f}, {box[2]:.3f}, {box[3]:.3f}]"
    where = f"the inputs at [{w:.3f}, {s:.3f}, {e:.3f}, {n:.3f}]"
    if inside and w <= e and box[0] <= box[2]:
        # near, yet only with x and y read the other way round: where lon and lat are close in
        # value (30° E, 30° N), swapped coordinates still fall within two degrees of the inputs
        pad_x, pad_y = max(0.05, e - w), max(0.05, n - s)

        def meets(x0, y0, x1, y1):
            return x0 <= e + pad_x and x1 >= w - pad_x and y0 <= n + pad_y and y1 >= s - pad_y

        if not meets(box[0], box[1], box[2], box[3]) and meets(box[1], box[0], box[3], box[2]):
            return False, f"{seen}: x and y swapped of {where} (lat, lon written as lon, lat?)"
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
