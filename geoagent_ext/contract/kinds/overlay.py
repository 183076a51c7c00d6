"""Where an overlay's result lies: the area covered by exactly one of two layers (their symmetric
difference), and points asked to fall inside another output's polygons, or those of the input
features they stand for (label anchors)."""

import posixpath
import re

from ..checker import _contract_input, _contract_key_match
from ..formats import SPATIAL, file_format, layer_kinds
from ._kind import Builder, Params, RequestView, RequirementKind
from .wkt_geometry import wkt_said


class SymmetricDifferenceParams(Params):
    input: str  # a file holding both layers, or the first of two files
    other: str | None = None  # the second file (None: the two layers of ``input``)


class PointsInsideParams(Params):
    polygons: str  # the output whose polygons the points fall in (with ``by_key``: the input)
    in_order: bool = False  # the i-th point falls in the i-th polygon (else: each polygon holds one point)
    by_key: bool = False  # ``polygons`` is an input: each point falls in the polygon its row's key names


def _contract_two_layers(params, sources):
    """The two layers the request compares, or None: two files, or the two layers of one."""
    if params.get("other"):
        return _contract_input(params["input"], sources), _contract_input(params["other"], sources)
    import geopandas as gpd
    import pyogrio

    names = [row[0] for row in pyogrio.list_layers(params["input"])]
    return tuple(gpd.read_file(params["input"], layer=n) for n in names) if len(names) == 2 else None


def _kind_symmetric_difference(params, data, sources):
    """(passed, observed): the file's polygons cover the area exactly one of the two layers covers,
    within 2 % of it (slivers dropped, parts merged), measured in a projected CRS made for the data."""
    layers = _contract_two_layers(params, sources)
    if layers is None or any(getattr(x, "crs", None) is None for x in layers) or data.crs is None:
        return False, f"cannot compare: `{params['input']}` does not give two layers with a CRS"
    import shapely

    crs = layers[0].estimate_utm_crs()
    a, b, got = (shapely.union_all(x.to_crs(crs).geometry.make_valid().values) for x in (*layers, data))
    want = a.symmetric_difference(b)
    if want.area == 0:
        return False, "the two layers cover the same area: no difference to compare with"
    off = got.symmetric_difference(want).area / want.area
    return off <= 0.02, (
        f"the polygons cover {got.area / want.area:.3g} × the area covered by exactly one of the two layers; "
        f"{off:.1%} of it differs"
    )


def _kind_points_inside(params, data, sources):
    """(passed, observed): every point lies strictly inside its polygon of the other output (the one
    in the same row, or each polygon holding exactly one point)."""
    polygons = _contract_input(params["polygons"], sources)
    if data.crs is None or getattr(polygons, "crs", None) is None:
        return False, f"cannot compare: this file or `{params['polygons']}` has no CRS"
    points = data.to_crs(polygons.crs).geometry.reset_index(drop=True)
    shapes = polygons.geometry.reset_index(drop=True)
    if params.get("by_key"):
        return _contract_points_in_keyed(params, data, points, shapes, polygons)
    if params.get("in_order"):
        if len(points) != len(shapes):
            return False, f"{len(points)} points for {len(shapes)} polygons of `{params['polygons']}`"
        outside = [i for i, (p, g) in enumerate(zip(points, shapes)) if p is None or g is None or not g.contains(p)]
        return not outside, (
            f"{len(outside)} of {len(points)} points are not strictly inside the polygon of their row"
            + (f" (first: row {outside[0]})" if outside else "")
        )
    held = [sum(1 for p in points if p is not None and g is not None and g.contains(p)) for g in shapes]
    bad = [i for i, n in enumerate(held) if n != 1]
    return (
        not bad,
        f"{len(bad)} of {len(shapes)} polygons hold other than one point"
        if bad
        else "one point strictly inside each polygon",
    )


def _contract_points_in_keyed(params, data, points, shapes, polygons):
    """(passed, observed): each point lies strictly inside the polygon of the input feature its row
    names by a key column (the file may hold some of the input's features); without such a column,
    inside one of the input's polygons."""
    import shapely

    match = _contract_key_match(data, polygons, data.geometry.name)
    if match is None:
        tree = shapely.STRtree([g for g in shapes if g is not None])
        outside = [i for i, p in enumerate(points) if p is None or not len(tree.query(p, predicate="within"))]
        where = f"any polygon of `{params['polygons']}` (no column names its features)"
    else:
        column, rows, _ = match
        outside = [
            i
            for i, (p, r) in enumerate(zip(points, rows))
            if p is None or shapes[r] is None or not shapes[r].contains(p)
        ]
        where = f"the polygon of `{params['polygons']}` its `{column}` names"
    return not outside, (
        f"{len(outside)} of {len(points)} points are not strictly inside {where}"
        + (f" (first: row {outside[0]})" if outside else "")
    )


_SYMMETRIC = re.compile(
    r"\bsymmetric(?:al)?\s+difference\b|\bclaimed\s+by\s+(?:exactly|only)\s+one\b|"
    r"\b(?:in|by|on)\s+(?:exactly|only)\s+one\s+(?:of\s+(?:the\s+)?(?:two|both)|side)\b|\bone\s+but\s+not\s+(?:both|the\s+other)\b|"
    r"\b(?:exactly|only)\s+one\s+of\s+(?:the\s+)?(?:two|both)\s+\w+\s+(?:claims?|covers?|holds?|has)\b",
    re.IGNORECASE,
)
_INSIDE = re.compile(
    r"\bpoints?\b[^.;]{0,80}?\b(?:strictly\s+)?(?:inside|within|in\s+the\s+interior\s+of)\b", re.IGNORECASE
)
_IN_ORDER = re.compile(r"\b(?:matching|same|corresponding)\s+order\b|\bin\s+order\b", re.IGNORECASE)
_POINTISH = re.compile(r"point|anchor|label|marker|centroid", re.IGNORECASE)


def _layered(path: str) -> bool:
    """A file that may hold polygons or points (a plain Parquet file may be GeoParquet)."""
    return file_format(path) in SPATIAL | {"parquet"}


def read_overlay(request: RequestView, b: Builder) -> None:
    """The symmetric difference of the two layers a request compares, and label points inside
    another output's polygons, each read from the words that ask for it."""
    spatial = [o for o in request.outputs if _layered(o)]
    named = [
        p
        for p in request.inputs
        if posixpath.basename(p) in {posixpath.basename(f) for f in request.files(request.text)}
    ]
    layered = [p for p in named if (request.inputs[p].get("layers") or 1) == 2]
    files = [p for p in named if request.inputs[p].get("columns") is not None and _layered(p)]
    pointish = [o for o in spatial if _POINTISH.search(posixpath.basename(o))]
    shapes = [o for o in spatial if o not in pointish]
    for sentence, _, _ in request.sentences:
        if not _SYMMETRIC.search(request.affirmed(sentence)) or len(shapes) != 1:
            continue
        if len(layered) == 1:
            compared = {"input": layered[0]}
        elif len(files) == 2:
            compared = {"input": files[0], "other": files[1]}
        else:
            continue
        b.reading(sentence, True)
        b.add(shapes[0], "symmetric_difference", "covers the area exactly one of the two layers covers", **compared)
        break
    if len(spatial) != 2:
        _points_of_input_polygons(request, b, named)
        return
    for sentence, _, _ in request.sentences:
        if not _INSIDE.search(request.affirmed(sentence)) or len(pointish) != 1:
            continue
        in_order = any(_IN_ORDER.search(s) for s, _, _ in request.sentences)
        points, polygons = pointish[0], next(o for o in spatial if o != pointish[0])
        where = "the polygon of its row in" if in_order else "one polygon of"
        b.reading(sentence, True)
        b.add(
            points,
            "points_inside",
            f"each point lies strictly inside {where} `{polygons}`",
            polygons=polygons,
            in_order=in_order,
        )
        return


_DASH = re.compile(r"\s[-\u2013\u2014]{1,2}\s")
_WITHIN_DISTANCE = re.compile(r"\bwithin\s+(?:a\s+|an\s+)?\d", re.IGNORECASE)
_POLYGONS = {"Polygon", "MultiPolygon"}


def _points_of_input_polygons(request: RequestView, b: Builder, named: list[str]) -> None:
    """Points a CSV writes as WKT said to be lon/lat (WKT has no CRS: only then can its points be
    set on the polygons), asked to fall inside the polygons of the one polygon input the request
    names (label points of its features): each inside its own feature's polygon."""
    polygons = [p for p in named if layer_kinds(request.inputs[p]) and layer_kinds(request.inputs[p]) <= _POLYGONS]
    points = [
        o
        for o, said in wkt_said(request, b).items()
        if said.lonlat and (said.types == ["Point", "MultiPoint"] or _POINTISH.search(posixpath.basename(o)))
    ]
    if len(polygons) != 1 or len(points) != 1:
        return
    for sentence, outs, _ in request.sentences:
        plain = sentence
        for name in request.files(sentence):  # a file name's dots end no phrase
            plain = plain.replace(name, "the file")
        words = " ".join(request.affirmed(part) for part in _DASH.split(plain))
        # a sentence naming only inputs speaks of the request's one output
        about = points[0] in outs if outs else list(request.outputs) == [points[0]]
        if not about or not _INSIDE.search(words) or _WITHIN_DISTANCE.search(words):
            continue
        b.reading(sentence, True)
        b.add(
            points[0],
            "points_inside",
            f"each point lies strictly inside the polygon of the feature of `{polygons[0]}` it stands for",
            polygons=polygons[0],
            by_key=True,
        )
        return


SYMMETRIC_DIFFERENCE = RequirementKind(
    helpers=(_contract_two_layers,),
    name="symmetric_difference",
    params=SymmetricDifferenceParams,
    check=_kind_symmetric_difference,
    geometry=True,
    advice=(
        "take the area exactly one layer covers: gpd.overlay(a, b.to_crs(a.crs), how='symmetric_difference'), "
        "in a projected CRS, both layers whole (no side dropped)"
    ),
    read=read_overlay,
)
POINTS_INSIDE = RequirementKind(
    helpers=(_contract_points_in_keyed,),
    name="points_inside",
    params=PointsInsideParams,
    check=_kind_points_inside,
    geometry=True,
    advice=(
        "a point guaranteed inside its polygon is representative_point() (a centroid can fall outside a "
        "concave or multi-part shape): points = polys.geometry.representative_point(), one per polygon, same order"
    ),
)
