"""Where an output lies: its CRS as a sentence names it (an EPSG code, Web Mercator, UTM, a
national or metric grid, WGS84, the input's own), as a sentence asks it of the one input, or kept
from the inputs when the request speaks of no coordinates; what every spatial output is unless the
request says otherwise (a declared CRS, where its input data lies); and bounds columns said to be
in degrees.
"""

from __future__ import annotations

import re

import pyproj

from ..formats import SPATIAL
from .builder import _Builder, _output_words
from .words import _EPSG, _FILE, _SENTENCE, _affirmed, _base, _files, _format

_METRIC_CRS = re.compile(
    r"\b(national\s+(?:metric\s+)?grid|national\s+(?:projected\s+)?(?:crs|projection|coordinate)|"
    r"official\s+(?:metric\s+|projected\s+)?(?:projection|crs|grid)|metric\s+(?:projection|grid|crs)|"
    r"projected\s+crs\s+in\s+met(?:re|er)s)\b",
    re.IGNORECASE,
)
_GEOGRAPHIC = re.compile(
    r"\b(?:in|to|as)\s+(?:WGS\s?-?84|lon(?:gitude)?\s*/\s*lat(?:itude)?|geographic coordinates)\b", re.IGNORECASE
)

_BOUND_NAME = re.compile(r"^(?:min|max)_?[xy]$|^[xy]_?(?:min|max)$|^(?:west|south|east|north)$", re.IGNORECASE)
_IN_DEGREES = re.compile(r"\b(?:degrees|longitudes?|latitudes?)\b|\blon\s*/\s*lat\b|\blat\s*/\s*lon\b", re.IGNORECASE)


def _bounds_in_degrees(b: _Builder, attributed: list[tuple[str, list[str], bool]]) -> None:
    """Bound columns ("minx, miny, maxx, maxy") in a sentence that says they are in degrees or
    longitude/latitude hold lon/lat values."""
    for sentence, outs, sure in attributed:
        if not _IN_DEGREES.search(_affirmed(sentence)):
            continue
        b.reading(sentence, sure)
        for out in outs:
            names = b.columns_of(out)
            for name in names:
                if _BOUND_NAME.match(name) and re.search(rf"(?<![\w`]){name}(?!\w)|`{name}`", sentence):
                    b.add(out, "lonlat", f"`{name}` holds longitude/latitude values (WGS84 degrees)", name=name)


_WEB_MERCATOR = re.compile(r"\b(?:web|pseudo)[\s-]*mercator\b", re.IGNORECASE)
_UTM = re.compile(r"\bUTM\b")
_LATLON = re.compile(
    r"\b(?:lat(?:itude)?\s*/\s*lon(?:gitude)?|lon(?:gitude)?\s*/\s*lat(?:itude)?|lat-?lon|lon-?lat|"
    r"WGS\s?-?84|geographic\s+coordinates)\b",
    re.IGNORECASE,
)
# "keep it in the file's own grid", "the CRS it came in", "do not reproject": the input's CRS
_OWN_CRS = re.compile(
    r"\b(?:own|original|source|same|existing|current)\s+(?:[\w'-]+\s+){0,2}?(?:crs|grid|projection|"
    r"coordinate\s+(?:reference\s+)?system)\b|\b(?:crs|grid|projection)\s+(?:it|they)\s+"
    r"(?:came|comes|arrived|arrives|is|are)\s+in\b|\b(?:do\s+not|don't|never|without)\s+reproject",
    re.IGNORECASE,
)


def _input_epsg(inputs: dict[str, dict]) -> int | None:
    """The one EPSG code the spatial inputs share, if they share one."""
    codes = {f.get("epsg") for p, f in inputs.items() if _format(p) in SPATIAL or f.get("epsg")}
    return codes.pop() if len(codes) == 1 and None not in codes else None


def _crs_rules(
    b: _Builder, out: str, fmt: str, sentence: str, official_crs: str = "", inputs: dict[str, dict] | None = None
) -> None:
    if fmt not in SPATIAL:
        return
    codes = [int(c) for c in _EPSG.findall(sentence)]
    said = _affirmed(sentence)
    own = _input_epsg(inputs or {})
    if len(set(codes)) == 1:
        b.add(out, "crs_epsg", f"is in EPSG:{codes[0]}", epsg=codes[0])
    elif _WEB_MERCATOR.search(said):
        b.add(out, "crs_epsg", "is in Web Mercator (EPSG:3857)", epsg=3857)
    elif _UTM.search(said):
        b.add(
            out,
            "crs_projected_metres",
            "is in the UTM zone of the data (a projected CRS in metres whose area of use contains it)",
            name_has="UTM",
        )
    elif _OWN_CRS.search(sentence) and own and not _METRIC_CRS.search(said) and not _LATLON.search(said):
        b.add(out, "crs_epsg", f"stays in the input's own CRS (EPSG:{own})", epsg=own)
    elif metric := _METRIC_CRS.search(sentence):
        advised = f"; the advisor's official grid for this data: {official_crs}" if official_crs else ""
        code = re.match(r"EPSG:(\d+)", official_crs)
        regional = bool(re.match(r"national|official", metric.group(0), re.IGNORECASE))
        b.add(
            out,
            "crs_projected_metres",
            f"is in a projected CRS in metres whose area of use contains the data (the region's grid"
            f"{', not a world-wide one' if regional else ''}{advised})",
            **({"advised_epsg": int(code.group(1))} if code else {}),
            **({"regional": True} if regional else {}),
        )
    elif _GEOGRAPHIC.search(sentence) or _LATLON.search(said):
        b.add(out, "crs_epsg", "is in WGS84 (EPSG:4326)", epsg=4326)


# Words of a request about coordinates: with any of them, the output's CRS is the request's business.
_CRS_WORDS = re.compile(
    r"\b(?:crs|epsg|srid|projections?|project(?:ed|ing)?|re-?project\w*|coordinate|datum|grid|utm|mercator|wgs\s?-?84|"
    r"lon(?:gitude)?|lat(?:itude)?|degrees?|geodesic|ellipsoid\w*)\b",
    re.IGNORECASE,
)
# Words about measures: an input in degrees may be reprojected to measure them, and a right answer may
# keep the metric CRS it measured in; an input already in metres is measured where it is.
_MEASURE_WORDS = re.compile(
    r"\b(?:metres?|meters?|metric|km|kilomet\w*|m2|m²|km2|km²|hectares?|ha|feet|"
    r"area\w*|length\w*|distance\w*|buffer\w*|perimeter\w*|nearest|closest|within)\b",
    re.IGNORECASE,
)


def _in_metres(epsg: int) -> bool:
    """Whether EPSG:``epsg`` is a projected CRS whose axes are in metres (pyproj's database)."""
    try:
        crs = pyproj.CRS.from_epsg(epsg)
    except pyproj.exceptions.CRSError:
        return False
    return crs.is_projected and all(a.unit_name in ("metre", "meter") for a in crs.axis_info)


_ASKING = re.compile(
    r"\b(?:can|could)\s+(?:i|we|you)\b|\b(?:i|we)(?:'d|\s+would)?\s+(?:need|want|like)\b", re.IGNORECASE
)


def _crs_asked_of_an_input(b: _Builder, request: str, outputs: list[str], inputs: dict[str, dict]) -> None:
    """ "Can I have `in.geojson` in EPSG:31256? `out.geojson`.": a sentence asking for the one input
    in a CRS it is not in asks it of the one spatial output (when nothing else said its CRS)."""
    spatial = [o for o in outputs if _format(o) in SPATIAL]
    if len(spatial) != 1 or any(r.output == spatial[0] and r.kind.startswith("crs_") for r in b.requirements):
        return
    by_base = {_base(p): p for p in inputs}
    for sentence in _SENTENCE.split(request):
        named = [by_base[_base(f)] for f in _files(sentence) if _base(f) in by_base]
        codes = {int(c) for c in _EPSG.findall(_affirmed(sentence))}
        if len(named) != 1 or len(codes) != 1 or not _ASKING.search(sentence) or len(_files(sentence)) != 1:
            continue
        code = codes.pop()
        if code != inputs[named[0]].get("epsg"):
            b.reading(sentence, True)
            b.add(spatial[0], "crs_epsg", f"is in EPSG:{code}", epsg=code)
            return


def _crs_kept_rules(b: _Builder, request: str, outputs: list[str], inputs: dict[str, dict], named: list[str]) -> None:
    """A GeoPackage, GeoParquet (…) made from layers of one CRS by a request that speaks of no
    coordinates (clean, fix, deduplicate, split, convert the format) stays in that CRS; so does one
    that speaks of measures when that CRS is already in metres. GeoJSON is left out: RFC 7946 asks
    for lon/lat, so either may be right."""
    own = _input_epsg({p: inputs[p] for p in (named or list(inputs)) if p in inputs})
    words = _FILE.sub(" ", request)
    if not own or _CRS_WORDS.search(words) or (_MEASURE_WORDS.search(words) and not _in_metres(own)):
        return
    for out in outputs:
        crs_said = any(
            r.output == out and r.kind.startswith("crs_") and r.kind != "crs_present" for r in b.requirements
        )
        if _format(out) in SPATIAL - {"geojson"} and not crs_said:
            b.reading(_output_words(b, out))
            b.add(out, "crs_epsg", f"stays in the input's CRS (EPSG:{own}): the request asks for no other", epsg=own)


def _place_rules(b: _Builder, outputs: list[str], inputs: dict[str, dict], named: list[str]) -> None:
    """What every spatial output is, unless the request says otherwise: in a declared CRS (GeoJSON's is
    always lon/lat), and where its inputs are (a deliverable made from the data lies where the data does)."""
    spatial = [p for p in (named or list(inputs)) if inputs.get(p, {}).get("bounds_wgs84")]
    boxes = [inputs[p]["bounds_wgs84"] for p in spatial]
    for out in outputs:
        fmt = _format(out)
        if fmt not in SPATIAL:
            continue
        b.reading(_output_words(b, out))
        if fmt != "geojson":
            b.add(out, "crs_present", "declares its CRS")
        if boxes and all(w <= e for w, _, e, _ in boxes):
            bounds = [
                min(x[0] for x in boxes),
                min(x[1] for x in boxes),
                max(x[2] for x in boxes),
                max(x[3] for x in boxes),
            ]
            b.add(
                out,
                "located",
                f"lies where its input data lies ({', '.join(f'`{p}`' for p in spatial)})",
                bounds=bounds,
            )
