"""A table's geometry written as WKT text in a column (a CSV has no other way to carry it): the
column holds parseable WKT of the geometry type asked for, in lon/lat when the request says so.
The checker reads such a column as the table's geometry (``checker._contract_wkt_view``), so the
geometry requirements read here (where the data lies) hold of it as of a layer's."""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass

from ..checker import _contract_short
from ..formats import file_format
from ._kind import Builder, Params, RequestView, RequirementKind


class WktGeometryParams(Params):
    name: str | None = None  # the column (None: the table's one column holding WKT text)
    types: list[str] = []  # OGC type names the geometries may have ([]: any)
    lonlat: bool = False  # coordinates within lon/lat's ranges (WKT carries no CRS)


def _kind_wkt_geometry(params, data, sources):
    """(passed, observed): the column holds WKT text that parses, of the types asked for, with
    lon/lat coordinates when asked; empty cells are features without a geometry."""
    import shapely

    name = params.get("name")
    if name is None:
        found = [c for c in data.columns if is_wkt_text(next(iter(data[c].dropna().tolist()), None))]  # noqa: F821
        if len(found) != 1:
            return False, f"{len(found)} columns hold WKT text ({', '.join(map(str, found))}), not one"
        name = found[0]
    elif name not in data.columns:
        return False, f"`{name}` is not in the file"
    cells = [v for v in data[name].tolist() if isinstance(v, str) and v.strip()]
    if not cells:
        return False, f"`{name}` holds no WKT text"
    geoms = shapely.from_wkt(cells, on_invalid="ignore")
    bad = [c for c, g in zip(cells, geoms) if g is None]
    if bad:
        first = _contract_short(bad[0], 60)
        return False, f"{len(bad)} of {len(cells)} values of `{name}` are not WKT (first: {first})"
    kinds = sorted({g.geom_type for g in geoms if not g.is_empty})
    allowed = params.get("types") or []
    wrong = [k for k in kinds if allowed and k not in allowed]
    if wrong:
        return False, f"`{name}` holds {', '.join(wrong)}, not {' or '.join(allowed)}"
    seen = f"`{name}` holds {len(cells)} WKT {'/'.join(kinds) or 'empty'} geometries"
    if params.get("lonlat"):
        x0, y0, x1, y1 = shapely.total_bounds(geoms)
        if not (-180 <= x0 and x1 <= 180 and -90 <= y0 and y1 <= 90):
            return False, (
                f"{seen} spanning x [{x0:.6g}, {x1:.6g}], y [{y0:.6g}, {y1:.6g}]: not lon/lat degrees "
                "(to_crs(4326) before to_wkt())"
            )
        seen += f" within lon [{x0:.4f}, {x1:.4f}], lat [{y0:.4f}, {y1:.4f}]"
    return True, seen


# "the outline as WKT", "geometry in WKT", "a WKT column": the table writes its geometry as WKT text
_AS_WKT = re.compile(
    r"\b(?:as|in)\s+(?:an?\s+)?(?:OGC\s+)?WKT\b|\bWKT\s+(?:text\s+|geometry\s+)?(?:column|field|strings?)\b",
    re.IGNORECASE,
)
# "in a column called wkt" / "a field named `geom_wkt`" near those words
_CALLED = re.compile(r"\b(?:column|field)\s+(?:called|named)\s+[`\"']?([A-Za-z_]\w*)", re.IGNORECASE)
# "wkt (the point as WKT, ...)": a listed column described by a parenthesis
_DESCRIBED = re.compile(r"`?([A-Za-z_]\w*)`?\s*\([^()]*?\bWKT\b", re.IGNORECASE)
_WKT_NAME = re.compile(r"(?:^|_)wkt(?:$|_)", re.IGNORECASE)
# "the point as WKT": the kind of geometry the column holds
_THING = re.compile(r"\b(points?|polygons?|lines?|linestrings?)\s+(?:\w+\s+){0,2}?as\s+(?:an?\s+)?WKT\b", re.IGNORECASE)
_TYPES = {
    "point": ["Point", "MultiPoint"],
    "polygon": ["Polygon", "MultiPolygon"],
    "line": ["LineString", "MultiLineString"],
    "linestring": ["LineString", "MultiLineString"],
}
_LONLAT = re.compile(
    r"\b(?:lon(?:gitude)?\s*/\s*lat(?:itude)?|lat(?:itude)?\s*/\s*lon(?:gitude)?|lon-?lat|lat-?lon|"
    r"longitude\s+and\s+latitude|WGS\s?-?84|EPSG\s*[: ]\s*4326|(?:in|as)\s+(?:decimal\s+)?degrees)\b",
    re.IGNORECASE,
)
# another CRS named beside them: the lon/lat words may be the input's
_OTHER_CRS = re.compile(
    r"\bEPSG\s*[: ]\s*(?!4326\b)\d{4,5}\b|\bUTM\b|\bmercator\b|\bgrid\b|\bprojected\b|\bstate\s+plane\b",
    re.IGNORECASE,
)


# the parts of a sentence a phrase belongs to; and words that take a column away
_PARTS = re.compile(r"[,;:()]|\s[-\u2013\u2014]{1,2}\s")
_DROPPED = re.compile(r"\b(?:drop\w*|remov\w*|delet\w*|strip\w*|omit\w*|exclud\w*|leave\s+out|rid\s+of)\b", re.I)


@dataclass(frozen=True)
class WktSaid:
    """What a request says of a CSV output's WKT column: its name (None: not named), the geometry
    types it holds ([]: not said), whether in lon/lat, and the sentence that says so."""

    name: str | None
    types: list[str]
    lonlat: bool
    sentence: str


def wkt_said(request: RequestView, b: Builder) -> dict[str, WktSaid]:
    """{CSV output: what the request says of its WKT column} for each CSV output a sentence surely
    about it (and no other CSV output) asks to write its geometry as WKT: in a part of the sentence
    that negates nothing, names no input and takes no column away."""
    found: dict[str, WktSaid] = {}
    inputs = {posixpath.basename(p) for p in request.inputs}
    for sentence, outs, sure in request.sentences:
        csvs = [o for o in outs if file_format(o) == "csv"]
        parts = [p for p in _PARTS.split(sentence) if _AS_WKT.search(p) and request.affirmed(p).strip()]
        if not sure or len(csvs) != 1 or len(parts) != 1 or csvs[0] in found:
            continue
        part, said = parts[0], request.affirmed(sentence)
        if _DROPPED.search(part) or {posixpath.basename(f) for f in request.files(part)} & inputs:
            continue
        out = csvs[0]
        carried = b.columns_of(out)
        names = set(_CALLED.findall(part))
        names |= {n for n in _DESCRIBED.findall(sentence) if n in carried}
        if not names:
            names = {n for n in carried if _WKT_NAME.search(n)}
        thing = _THING.search(said)
        types = _TYPES.get(thing.group(1).lower().rstrip("s"), []) if thing else []
        lonlat = bool(_LONLAT.search(said)) and not _OTHER_CRS.search(said)
        found[out] = WktSaid(names.pop() if len(names) == 1 else None, types, lonlat, sentence)
    return found


def _input_bounds(request: RequestView) -> list[float] | None:
    """[w, s, e, n] in lon/lat around the inputs the request names (else all), when each is known."""
    named = {posixpath.basename(f) for f in request.files(request.text)}
    chosen = [p for p in request.inputs if posixpath.basename(p) in named] or list(request.inputs)
    found = [request.inputs[p].get("bounds_wgs84") for p in chosen]
    boxes = [box for box in found if box and box[0] <= box[2]]
    if not boxes or len(boxes) != len(found):
        return None
    return [min(x[0] for x in boxes), min(x[1] for x in boxes), max(x[2] for x in boxes), max(x[3] for x in boxes)]


def read_wkt_geometry(request: RequestView, b: Builder) -> None:
    """A CSV output asked to write its geometry as WKT: the column holds WKT (of the type, in lon/lat
    when said), and, in lon/lat, the geometry lies where the inputs lie."""
    bounds = _input_bounds(request)
    for out, said in wkt_said(request, b).items():
        b.reading(said.sentence, True)
        column = f"`{said.name}`" if said.name else "a column"
        what = " or ".join(said.types) if said.types else "the"
        where = ", in lon/lat (x within ±180, y within ±90)" if said.lonlat else ""
        b.add(
            out,
            "wkt_geometry",
            f"{column} holds {what} geometries as WKT text{where}",
            **({"name": said.name} if said.name else {}),
            **({"types": said.types} if said.types else {}),
            **({"lonlat": True} if said.lonlat else {}),
        )
        if said.lonlat and bounds:
            b.add(
                out,
                "located",
                "its WKT geometries (lon/lat) lie where its input data lies",
                bounds=bounds,
            )


WKT_GEOMETRY = RequirementKind(
    name="wkt_geometry",
    params=WktGeometryParams,
    check=_kind_wkt_geometry,
    advice=(
        "write the geometry as WKT text in its column: df[COLUMN] = gdf.geometry.to_crs(4326).to_wkt() for "
        "lon/lat (to_crs converts; set_crs only labels), the geometry type asked for"
    ),
    read=read_wkt_geometry,
)
