"""A bounding box ([minx, miny, maxx, maxy], min <= max; of an input's whole layer when the request
says so) and values within lon/lat ranges, in a table's column or a JSON document's key. Their
mends reshape a JSON document's value: a bbox written in another of pandas' shapes, or a whole
layer's bbox taken from the layer, as its check defines it."""

from ..checker import _contract_crs_label, _contract_has_geometry, _contract_input, _contract_numbers, _contract_short
from ._kind import ColumnParams, RequirementKind
from ._mending import embedded, layer_bbox


class BboxParams(ColumnParams):
    input: str | None = None  # the bounds of that input's whole layer (in its CRS, in lon/lat, or in ``epsg``)
    epsg: int | None = None
    wkt: str | None = None  # a table input's WKT column


def _contract_layer_bounds(params, sources):
    """[(where, [minx, miny, maxx, maxy])] of an input's whole layer: in its CRS, in lon/lat and in
    ``params["epsg"]``; a table's WKT column as written (it has no CRS)."""
    src = _contract_input(params["input"], sources)
    if _contract_has_geometry(src):
        geoms = src.geometry[~(src.geometry.isna() | src.geometry.is_empty)]
    else:
        import geopandas as gpd

        columns = _wkt_columns(src)  # noqa: F821 - _70_data_probes: the column input_facts named
        if not columns:
            return []
        geoms = gpd.GeoSeries.from_wkt(src[columns[0]].dropna())
    spans = [(_contract_crs_label(geoms.crs) if geoms.crs is not None else "as written", geoms.total_bounds)]
    if geoms.crs is not None:
        for code in dict.fromkeys(c for c in (4326, params.get("epsg")) if c and c != geoms.crs.to_epsg()):
            spans.append((f"EPSG:{code}", geoms.to_crs(code).total_bounds))
    return [(where, [float(v) for v in box]) for where, box in spans]


def _contract_whole_bbox(name, nums, params, sources):
    """A bbox that must be the bounds of a whole layer: equal to them in one of its CRSs, to
    1/10000 of the extent (rounding to metres or 6 decimals of a degree passes)."""
    spans = _contract_layer_bounds(params, sources)
    if not spans:
        return False, f"`{name}` = {_contract_short(nums)}; the extent of `{params['input']}` could not be read"
    for where, box in spans:
        tolerance = 1e-4 * max(box[2] - box[0], box[3] - box[1], 1e-6)
        if all(abs(a - b) <= tolerance for a, b in zip(nums, box)):
            return True, f"`{name}` = {_contract_short(nums)}: the whole layer of `{params['input']}` ({where})"
    seen = " or ".join(f"{[round(v, 6) for v in box]} ({where})" for where, box in spans)
    return False, f"`{name}` = {_contract_short(nums)}; the whole layer of `{params['input']}` spans {seen}"


def _contract_bbox_list(value):
    """[minx, miny, maxx, maxy] from the forms a bbox gets written in by mistake: named bounds
    ({"minx": ..}), a frame's per-feature bounds (``gdf.bounds.to_dict()``: {"minx": {i: ..}, ..})
    or a list of boxes; the box around them all. Anything else is returned as it was."""
    names = ("minx", "miny", "maxx", "maxy")
    if isinstance(value, dict) and set(names) <= set(value):
        cols = [list(value[n].values()) if isinstance(value[n], dict) else value[n] for n in names]
        cols = [c if isinstance(c, list) else [c] for c in cols]
    elif isinstance(value, list) and value and all(isinstance(b, (list, tuple)) and len(b) == 4 for b in value):
        cols = [[b[i] for b in value] for i in range(4)]
    else:
        return value
    return [float(min(cols[0])), float(min(cols[1])), float(max(cols[2])), float(max(cols[3]))]


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
    return [*embedded(_contract_bbox_list), f"_mend[{name!r}] = _contract_bbox_list(_mend[{name!r}])"]


def _lonlat_mend(p, site):
    return _whole_layer(str(p.get("name") or ""), site) or []


BBOX = RequirementKind(
    helpers=(
        _contract_layer_bounds,
        _contract_whole_bbox,
        _contract_bbox_list,
    ),
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
