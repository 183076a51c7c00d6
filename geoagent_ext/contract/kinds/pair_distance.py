"""A distance column is the straight-line distance between the two places its row names: the row's
feature (its own geometry, or its input feature by a key) and a feature of another layer named by
an id column (``hospital_id``, ``nearest_station_id``), or a point the request gives by its
coordinates. With "the k nearest", each feature has its k rows and they are its k nearest."""

import re
from typing import Literal

from ..checker import _CONTRACT_UNIT_FACTOR, _contract_input, _contract_key, _contract_short
from ..formats import layer_kinds
from ._kind import Builder, ColumnParams, RequestView, RequirementKind
from .nearest import _contract_row_origins


class PairDistanceParams(ColumnParams):
    unit: Literal["m", "km"]
    input: str  # the layer whose features the rows are
    to: str | None = None  # the layer the other place is a feature of, named by ``to_key``
    to_key: str | None = None  # the output column naming that feature
    to_column: str | None = None  # the column of ``to`` its values are
    point: list[float] | None = None  # [lon, lat]: the other place is this point (WGS84)
    other: bool = False  # the other feature is never the row's own (same layer)
    k: int | None = None  # each feature has its k nearest of ``to``, one row each


def _contract_pair_targets(params, data, sources, crs):
    """(the other place of each row as geometries in ``crs`` (None where the row names none), the
    frame of ``to`` in ``crs`` or None, why not) for a pair-distance check."""
    import geopandas as gpd
    import pandas as pd
    import shapely

    if params.get("point"):
        lon, lat = params["point"]
        where = gpd.GeoSeries([shapely.Point(lon, lat)], crs=4326).to_crs(crs).iloc[0]
        return [where] * len(data), None, ""
    to, column, key = params["to"], params["to_column"], params["to_key"]
    target = _contract_input(to, sources)
    if key not in data.columns or column not in getattr(target, "columns", []):
        return None, None, f"cannot measure `{params['name']}`: `{key}` or `{to}`'s `{column}` is missing"
    keys = [_contract_key(v) for v in target[column].tolist()]
    if len(set(keys)) != len(keys):
        return None, None, f"cannot measure `{params['name']}`: `{to}`'s `{column}` is not unique"
    row_of = {k: i for i, k in enumerate(keys)}
    named = data[key].tolist()
    foreign = [v for v in named if not pd.isna(v) and _contract_key(v) not in row_of]
    if foreign:
        return (
            None,
            None,
            f"`{key}` names no feature of `{to}` on {len(foreign)} rows (e.g. {_contract_short(foreign[0], 30)})",
        )
    geoms = target.geometry.to_crs(crs).to_numpy()
    rows = [None if pd.isna(v) else row_of[_contract_key(v)] for v in named]
    return [None if r is None else geoms[r] for r in rows], target.to_crs(crs), ""


def _contract_k_nearest(params, origins, others, target):
    """Why the rows of some feature are not its k nearest of ``target`` (ties within 0.5 % or 1 m
    are interchangeable), or "" when every feature's rows are."""
    import shapely

    k = int(params["k"])
    every = target.geometry.to_numpy()
    groups = {}
    for p, q in zip(origins, others):
        if p is not None and q is not None:
            groups.setdefault(p.wkb, (p, []))[1].append(q)
    for p, listed in groups.values():
        around = sorted(float(d) for d in shapely.distance(p, every) if d == d)
        if params.get("other"):
            around = [d for d in around if d > 0] if around and around[0] == 0 else around
        want = min(k, len(around))
        if len(listed) != want:
            return f"a feature has {len(listed)} rows, not its {want} nearest"
        reach = around[want - 1] + max(1.0, 0.005 * around[want - 1])
        if any(float(shapely.distance(p, q)) > reach for q in listed):
            return f"a feature lists one farther than its {want} nearest ({reach:.1f} m)"
    return ""


def _kind_pair_distance(params, data, value, sources):
    import pandas as pd
    import shapely

    name = params["name"]
    if isinstance(data, dict):  # one JSON object holding it: one row
        data = pd.DataFrame([{k: v for k, v in data.items() if not isinstance(v, (dict, list))}])
    given = pd.to_numeric(data[name], errors="coerce").notna()
    if not given.any():
        return False, f"`{name}` holds no distance"
    data = data[given]  # a blank row gives no distance to check (a request may leave it blank)
    origin, why = _contract_row_origins(params, data, sources, name)
    if origin is None:
        return False, why.replace("cannot check", "cannot measure")
    crs = origin.estimate_utm_crs()
    origins = list(origin.to_crs(crs).to_numpy())
    others, target, why = _contract_pair_targets(params, data, sources, crs)
    if others is None:
        return False, why
    factor = _CONTRACT_UNIT_FACTOR[params["unit"]]
    values = pd.to_numeric(data[name], errors="coerce").tolist()
    wrong, itself, pairs = [], 0, 0
    for v, p, q in zip(values, origins, others):
        if p is None or q is None or shapely.is_empty(p) or shapely.is_empty(q):
            continue
        pairs += 1
        expected = float(shapely.distance(p, q)) * factor
        itself += expected == 0
        if not (v == v and abs(v - expected) <= max(factor, 0.005 * expected)):
            wrong.append((v, expected))
    if wrong:
        v, e = wrong[0]
        return False, (
            f"`{name}` is not the straight-line distance between the row's two places on {len(wrong)} of {pairs} "
            f"rows (e.g. {_contract_short(v, 20)}, expected {e:.1f} {params['unit']}, measured in {crs.name})"
        )
    if params.get("other") and itself:
        return False, f"{itself} rows pair a feature with itself (distance 0): the other feature was asked for"
    if params.get("k") and target is not None:
        why = _contract_k_nearest(params, origins, others, target)
        if why:
            return False, why
    return True, f"`{name}` is the distance between each row's two places in {params['unit']} on all {pairs} rows"


# A distance column: "dist_m", "gap_km", "distance_to_centre_m", "spacing_m"; the unit its name ends with.
_DISTANCE_COLUMN = re.compile(r"(?:^|_)(?:dist|distance|gap|spacing|separation|away)(?:_\w+)?_(m|km)$", re.IGNORECASE)
_ALONG_A_NETWORK = re.compile(
    r"\b(?:road|roads|network|driving|drive|walking|walk|travel|route|routing|isochrones?|path)\b", re.IGNORECASE
)
_ID_NAME = re.compile(r"(?:^|_)(?:id|code|ref|uid|fid|no)$", re.IGNORECASE)
_OTHER = re.compile(r"\bother\b|\bnot\s+(?:to\s+)?itself\b|\bexcluding\s+itself\b|\bbesides\s+itself\b", re.IGNORECASE)
_NUMBER_WORDS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10}
_K_NEAREST = re.compile(
    r"\b(two|three|four|five|six|seven|eight|nine|ten|\d{1,2})\s+(?:nearest|closest)\b", re.IGNORECASE
)
_EACH = re.compile(r"\b(?:every|each|per)\s+([a-z]{3,})", re.IGNORECASE)
_NUMBER = r"(-?\d{1,3}(?:\.\d+)?)\s*°?\s*"
# "(16.37338 E, 48.20849 N)", "48.2085 N 16.3734 E", "lon 16.37338, lat 48.20849"
_POINT = re.compile(
    rf"{_NUMBER}(?P<h1>[EWNS])\b\s*,?\s*{_NUMBER}(?P<h2>[EWNS])\b|"
    rf"\b(?P<w1>lon|lng|longitude|lat|latitude)\s*[=:]?\s*(-?\d{{1,3}}(?:\.\d+)?)\s*,?\s*(?:and\s+)?"
    rf"(?P<w2>lon|lng|longitude|lat|latitude)\s*[=:]?\s*(-?\d{{1,3}}(?:\.\d+)?)",
)


def _request_point(text: str) -> list[float] | None:
    """The one point the request gives by coordinates, as [lon, lat]; None when none or several."""
    found = set()
    for m in _POINT.finditer(text):
        if m.group("h1"):
            pairs = [(m.group("h1"), float(m.group(1))), (m.group("h2"), float(m.group(3)))]
            lon = [v * (-1 if h == "W" else 1) for h, v in pairs if h in "EW"]
            lat = [v * (-1 if h == "S" else 1) for h, v in pairs if h in "NS"]
        else:
            pairs = [(m.group("w1").lower(), float(m.group(6))), (m.group("w2").lower(), float(m.group(8)))]
            lon = [v for w, v in pairs if w.startswith(("lon", "lng"))]
            lat = [v for w, v in pairs if w.startswith("lat")]
        if len(lon) == 1 and len(lat) == 1 and abs(lon[0]) <= 180 and abs(lat[0]) <= 90:
            found.add((lon[0], lat[0]))
    return list(found.pop()) if len(found) == 1 else None


def _points(facts: dict) -> bool:
    """Whether an input's layer holds points only (distances between points have one meaning)."""
    kinds = layer_kinds(facts)
    return bool(kinds) and kinds <= {"Point", "MultiPoint"}


def _named_other(listed, name, source, layers, inputs):
    """(layer, output column, its column) of the other feature a row names by an id column: the
    column of that name, or a name ending in it ("nearest_station_id" -> ``station_id``); a column
    the row's own layer has names the row's own feature, not the other one."""
    own = {c for c in listed if c in inputs[source]["columns"]}
    for column in [c for c in listed if c != name]:
        for layer in layers:
            for key in inputs[layer]["columns"]:
                named = column == key or column.endswith("_" + key)
                if named and _ID_NAME.search(key) and column not in own:
                    return layer, column, key
    return None


def read_pair_distance(request: RequestView, b: Builder) -> None:
    """A straight-line distance column of a table of point features, when the row also names the
    other point: a feature of a point layer by an id column the output lists, or the one point the
    request writes in coordinates. Records nested in a JSON document's rows count as rows, each
    with its parent's values (its key). Not for distances along a network, nor between shapes."""
    if _ALONG_A_NETWORK.search(request.text):
        return
    layers = [p for p, facts in request.inputs.items() if _points(facts) and facts.get("columns")]
    point = _request_point(request.text)
    k_said = _K_NEAREST.search(request.text)
    k = None if not k_said else int(_NUMBER_WORDS.get(k_said.group(1).lower(), k_said.group(1)))
    for out in request.outputs:  # a JSON document's nested records are read with their parent's values
        listed = b.columns_of(out)
        for name in listed:
            unit = _DISTANCE_COLUMN.search(name)
            if not unit:
                continue
            sources = [p for p in layers if any(c in request.inputs[p]["columns"] for c in listed if c != name)]
            each = [p for p in sources for noun in _EACH.findall(request.text) if noun.lower().rstrip("s") in p.lower()]
            if len(sources) > 1 and len(set(each)) == 1:  # "for every address": the addresses are the rows
                sources = each[:1]
            if not sources:
                continue
            source = sources[0]
            target = _named_other(listed, name, source, layers, request.inputs)
            if len(sources) > 1 and (target is None or target[0] not in sources):
                continue
            b.reading(next((s for s, outs, _ in request.sentences if out in outs and name in s), request.text), True)
            if target:
                layer, column, key = target
                other = f"the feature of `{layer}` its `{column}` names"
                params = {"to": layer, "to_key": column, "to_column": key, "k": k if layer != source else None}
                params["other"] = layer == source and bool(_OTHER.search(request.text))
            elif point is not None:
                other, params = f"the point ({point[0]}, {point[1]}) the request gives", {"point": point}
            else:
                continue
            words = "metres" if unit.group(1) == "m" else "km"
            b.add(
                out,
                "pair_distance",
                f"`{name}` is the straight-line distance in {words} from each row's feature of `{source}` to {other}",
                name=name,
                unit=unit.group(1).lower(),
                input=source,
                **params,
            )


PAIR_DISTANCE = RequirementKind(
    helpers=(_contract_pair_targets, _contract_k_nearest),
    name="pair_distance",
    params=PairDistanceParams,
    check=_kind_pair_distance,
    reads="column",
    advice=(
        "measure between the row's two places in a projected CRS in metres made for the data "
        "(crs = a.estimate_utm_crs(); a.to_crs(crs).distance(b.to_crs(crs))), never in degrees or "
        "Web Mercator, then write it in the unit the name says (m / 1000 = km)"
    ),
    read=read_pair_distance,
)
