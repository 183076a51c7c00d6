"""The data lies where its inputs lie: coordinates swapped, left in another unit or labelled with a
CRS they are not in put it somewhere else on Earth."""

from pydantic import Field

from ..checker import _contract_located
from ._kind import Params, RequirementKind


class LocatedParams(Params):
    bounds: list[float] = Field(description="[w, s, e, n] of the inputs in lon/lat", min_length=4, max_length=4)


def _kind_located(params, data, sources):
    return _contract_located(params, data)


LOCATED = RequirementKind(
    name="located",
    params=LocatedParams,
    check=_kind_located,
    geometry=True,
    advice=(
        "the coordinates are not where the input data is: check x/y order (lon, lat), the CRS the "
        "coordinates are really in (to_crs converts, set_crs only labels), and the unit"
    ),
)
