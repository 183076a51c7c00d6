"""A bounding box ([minx, miny, maxx, maxy], min <= max; of an input's whole layer when the request
says so) and values within lon/lat ranges, in a table's column or a JSON document's key. Their
mends reshape a JSON document's value: a bbox written in another of pandas' shapes, or a whole
layer's bbox taken from the layer, as its check defines it."""

from ..checker import _contract_numbers, _contract_short, _contract_whole_bbox
from ._kind import ColumnParams, RequirementKind
from ._mending import embedded, layer_bbox


class BboxParams(ColumnParams):
    input: str | None = None  # the bounds of that input's whole layer (in its CRS, in lon/lat, or in ``epsg``)
    epsg: int | None = None
    wkt: str | None = None  # a table input's WKT column


def _kind_bbox(params, data, value, sources):
    import math

    name = params["name"]
    nums = _contract_numbers(value)
    if len(nums) != 4 or not all(isinstance(v, (int, float)) and math.isfinite(v) for v in nums):
        return False, f"`{name}` = {_contract_short(value)}: not 4 finite numbers"
    ok = nums[0] <= nums[2] and nums[1] <= nums[3]
    if not ok or not params.get("input"):
        return ok, f"`{name}` = {_contract_short(nums)}" + ("" if ok else ": min > max")
    return _contract_whole_bbox(name, nums, params, sources)


def _kind_lonlat(params, data, value, sources):
    name = params["name"]
    nums = [v for v in _contract_numbers(value) if isinstance(v, (int, float)) and not isinstance(v, bool)]
    if not nums:
        return False, f"`{name}` = {_contract_short(value)}: no numbers"
    lower = name.lower()
    if "lat" in lower and "lon" not in lower:
        bad = [v for v in nums if not -90 <= v <= 90]
    elif len(nums) == 4 and not hasattr(value, "tolist"):  # a bbox: x, y, x, y
        bad = [v for i, v in enumerate(nums) if not (-180 <= v <= 180 if i % 2 == 0 else -90 <= v <= 90)]
    else:
        bad = [v for v in nums if not -180 <= v <= 180]
    return not bad, f"`{name}` = {_contract_short(nums[:6])}" + (
        ": outside lon/lat range (metres? reproject to EPSG:4326 first)" if bad else ""
    )


def _whole_layer(name, site):
    """The lines taking a whole layer's bbox from the layer, when a bbox of the same name asks for
    one (in its EPSG code, else in lon/lat when a lon/lat requirement names it too)."""
    whole = next((p for kind, p in site.same_name if kind == "bbox" and p.get("input")), None)
    if whole is None:
        return None
    epsg = whole.get("epsg") or (4326 if any(kind == "lonlat" for kind, _ in site.same_name) else None)
    return layer_bbox(name, whole, epsg)


def _bbox_mend(p, site):
    name = str(p.get("name") or "")
    whole = _whole_layer(name, site)
    if whole is not None:
        return whole
    return [*embedded("_contract_bbox_list"), f"_mend[{name!r}] = _contract_bbox_list(_mend[{name!r}])"]


def _lonlat_mend(p, site):
    return _whole_layer(str(p.get("name") or ""), site) or []


BBOX = RequirementKind(
    name="bbox",
    params=BboxParams,
    check=_kind_bbox,
    reads="column",
    mend=_bbox_mend,
    mends_json=True,
    advice="use [minx, miny, maxx, maxy] = list(map(float, gdf.total_bounds))",
)
LONLAT = RequirementKind(
    name="lonlat",
    params=ColumnParams,
    check=_kind_lonlat,
    reads="column",
    mend=_lonlat_mend,
    mends_json=True,
    advice="reproject to EPSG:4326 first (gdf.to_crs(4326)) and take the values from that",
)
