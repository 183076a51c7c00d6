"""The polygons cover what an input buffered by the distance (in true metres) covers."""

from ..checker import _contract_beyond_lonlat, _contract_has_geometry, _contract_input
from ._kind import Params, RequirementKind


class BufferDistanceParams(Params):
    input: str
    distance_m: float
    selected: bool = False  # the request buffers some of the input's features: those the polygons hold


def _contract_buffered_selection(src, got, distance):
    """The input's features a buffer of a selection was made of: those whose buffer by 0.9 x the
    distance the file's polygons cover (a feature left out has no polygon around it)."""
    inner = src.geometry.buffer(0.9 * distance)
    return src[[bool(got.covers(g)) for g in inner.values]]


def _contract_buffer_cover(params, data, sources):
    """(passed, observed): the file's polygons against the input buffered by ``distance_m`` in the
    input's UTM zone, compared as regions (overlap over union), so per-feature or dissolved buffers
    both answer; an input of points also says the distance the file looks buffered by."""
    import math

    src, distance = _contract_input(params["input"], sources), float(params["distance_m"])
    if not _contract_has_geometry(src) or src.crs is None or data.crs is None:
        return False, f"cannot compare: the file or `{params['input']}` has no CRS"
    beyond = _contract_beyond_lonlat(data)
    if beyond:
        return False, beyond
    metric = src.estimate_utm_crs()
    got = data.to_crs(metric).geometry.make_valid().union_all()
    src = src.to_crs(metric)
    if params.get("selected"):
        src = _contract_buffered_selection(src, got, distance)
        if not len(src):
            return False, f"no feature of `{params['input']}` lies {distance:g} m deep inside the polygons"
    want = src.geometry.buffer(distance).union_all()
    union = want.union(got).area
    overlap = want.intersection(got).area / union if union else 0.0
    ratio = got.area / want.area if want.area else float("inf")
    seen = ""
    if set(src.geometry.geom_type.dropna()) <= {"Point"} and 0 < ratio < float("inf") and abs(ratio - 1) > 0.03:
        seen = f"; as if buffered by about {distance * math.sqrt(ratio):.4g} m"
    ok = overlap >= 0.95
    return ok, (
        f"the polygons cover {ratio:.3g} × the area of `{params['input']}` buffered by {distance:g} m, "
        f"{overlap:.0%} of the two overlapping" + ("" if ok else seen)
    )


def _kind_buffer_distance(params, data, sources):
    return _contract_buffer_cover(params, data, sources)


BUFFER_DISTANCE = RequirementKind(
    helpers=(_contract_buffer_cover, _contract_buffered_selection),
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
