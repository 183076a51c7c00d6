"""An area-weighted mean: each zone's value is the mean of a column of the polygons overlapping it,
each weighted by the area it shares with the zone (areal weighting), small polygons left out when
the request says so."""

import re
from typing import Literal

from ..checker import _contract_input, _contract_key, _contract_short
from ..formats import layer_kinds
from ._kind import Builder, ColumnParams, RequestView, RequirementKind


class AreaWeightedParams(ColumnParams):
    zones: str  # the layer of the zones the rows are (matched by ``key``)
    key: str  # the column naming each row's zone, in the file and in ``zones``
    source: str  # the layer whose polygons are averaged
    value: str  # the column of ``source`` averaged
    statistic: Literal["mean"] = "mean"
    min_area_m2: float | None = None  # polygons (or their pieces) smaller than this are left out


def _contract_area_weighted_means(params, data, sources):
    """({key: [mean with small polygons left out, with small pieces left out]}, "") for the zones of
    the file's rows, in a projected CRS made for the data; or (None, why not). A request's "polygons
    under N m²" may mean whole polygons or the pieces a zone cuts: both readings are computed."""
    import geopandas as gpd

    zones = _contract_input(params["zones"], sources)
    src = _contract_input(params["source"], sources)
    key, value = params["key"], params["value"]
    if key not in zones.columns or value not in src.columns or zones.crs is None or src.crs is None:
        return None, f"cannot compute: `{key}` of `{params['zones']}` or `{value}` of `{params['source']}` is missing"
    wanted = {_contract_key(v) for v in data[key].tolist()}
    crs = zones.estimate_utm_crs()
    mine = zones[[_contract_key(v) in wanted for v in zones[key].tolist()]][[key, zones.geometry.name]].to_crs(crs)
    polys = src[[value, src.geometry.name]].to_crs(crs)
    polys = polys[polys.geometry.notna() & ~polys.geometry.is_empty].copy()
    polys["_whole"] = polys.geometry.area
    polys = polys.dropna(subset=[value])
    pieces = gpd.overlay(mine, polys, how="intersection", keep_geom_type=True)
    pieces["_w"] = pieces.geometry.area
    least = params.get("min_area_m2") or 0.0
    means = {}
    for k, group in pieces.groupby(key):
        found = []
        for kept in (group[group["_whole"] >= least], group[group["_w"] >= least]):
            total = kept["_w"].sum()
            found.append(float((kept["_w"] * kept[value].astype(float)).sum() / total) if total > 0 else None)
        means[_contract_key(k)] = found
    return means, ""


def _kind_area_weighted(params, data, value, sources):
    import pandas as pd

    name, key = params["name"], params["key"]
    if isinstance(data, dict) or key not in getattr(data, "columns", []):
        return False, f"`{name}`: the rows have no `{key}` to find their zones by"
    means, why = _contract_area_weighted_means(params, data, sources)
    if means is None:
        return False, why
    wrong = []
    for k, v in zip(data[key].tolist(), pd.to_numeric(data[name], errors="coerce").tolist()):
        expected = [e for e in means.get(_contract_key(k), []) if e is not None]
        if expected and not (v == v and any(abs(v - e) <= max(1e-9, 0.005 * abs(e)) for e in expected)):
            wrong.append((k, v, expected[0]))
    if wrong:
        k, v, e = wrong[0]
        return False, (
            f"`{name}` is not the area-weighted mean of `{params['value']}` on {len(wrong)} of {len(data)} rows "
            f"(e.g. {key} {_contract_short(k, 20)}: {_contract_short(v, 20)}, expected {e:.6g})"
        )
    return True, f"`{name}` is the area-weighted mean of `{params['value']}` on all {len(data)} rows"


_AREA_WEIGHTED = re.compile(r"\barea[\s-]+weight\w*\s+(?:mean|average)\b", re.IGNORECASE)
_SMALL = re.compile(
    r"\b(?:under|below|smaller\s+than|less\s+than)\s+(\d+(?:\.\d+)?)\s*(m²|m2|sq\.?\s*m|square\s+met(?:re|er)s?|ha|hectares?)",
    re.IGNORECASE,
)


def _polygons(facts: dict) -> bool:
    kinds = layer_kinds(facts)
    return bool(kinds) and kinds <= {"Polygon", "MultiPolygon"}


def read_area_weighted(request: RequestView, b: Builder) -> None:
    """ "the area-weighted mean population density across overlapping land-use polygons": a column
    named for it, of zones from one polygon layer (by the key the output lists), averaging the one
    numeric column of the other polygon layer."""
    said = _AREA_WEIGHTED.search(request.text)
    layers = [p for p, facts in request.inputs.items() if _polygons(facts) and facts.get("columns") is not None]
    if not said or len(layers) != 2:
        return
    small = _SMALL.search(request.text)
    least = None
    if small:
        least = float(small.group(1)) * (1e4 if small.group(2).lower().startswith(("ha", "hect")) else 1.0)
    for out in request.outputs:
        listed = b.columns_of(out)
        named = [c for c in listed if re.search(r"weight|mean|avg|average", c, re.IGNORECASE)]
        for zones in layers:
            source = next(p for p in layers if p != zones)
            keys = [c for c in listed if c in request.inputs[zones]["columns"]]
            facts = request.inputs[source]
            numbers = [c for c in facts["columns"] if c not in (facts.get("text_columns") or []) and c not in keys]
            if len(named) != 1 or len(keys) != 1 or len(numbers) != 1:
                continue
            b.reading(next((s for s, _, _ in request.sentences if _AREA_WEIGHTED.search(s)), said.group(0)), True)
            b.add(
                out,
                "area_weighted",
                f"`{named[0]}` is the mean of `{numbers[0]}` of the `{source}` polygons overlapping each zone "
                f"of `{zones}`, weighted by the area each shares with it"
                + (f" (polygons under {least:g} m² left out)" if least else ""),
                name=named[0],
                zones=zones,
                key=keys[0],
                source=source,
                value=numbers[0],
                min_area_m2=least,
            )


AREA_WEIGHTED = RequirementKind(
    helpers=(_contract_area_weighted_means,),
    name="area_weighted",
    params=AreaWeightedParams,
    check=_kind_area_weighted,
    reads="column",
    advice=(
        "intersect in a projected CRS in metres: pieces = gpd.overlay(zones, polys, how='intersection'); "
        "w = pieces.area; mean = (w * value).groupby(key).sum() / w.groupby(key).sum(); leave out the "
        "small polygons the request names by their area in m², measured in that CRS, not in degrees"
    ),
    read=read_area_weighted,
)
