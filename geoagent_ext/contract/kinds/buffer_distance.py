"""The polygons cover what an input buffered by the distance (in true metres) covers."""

from ..checker import _contract_buffer_cover
from ._kind import Params, RequirementKind


class BufferDistanceParams(Params):
    input: str
    distance_m: float


def _kind_buffer_distance(params, data, sources):
    return _contract_buffer_cover(params, data, sources)


BUFFER_DISTANCE = RequirementKind(
    name="buffer_distance",
    params=BufferDistanceParams,
    check=_kind_buffer_distance,
    geometry=True,
    advice=(
        "buffer once, by exactly DIST metres (a radius, not a diameter), in a projected CRS in metres made "
        "for the data (not EPSG:4326's degrees, not Web Mercator): out = gdf.to_crs(gdf.estimate_utm_crs()) "
        "(or the advised CRS); out['geometry'] = out.buffer(DIST); then out.to_crs(...) if the file must "
        "be in another CRS"
    ),
)
