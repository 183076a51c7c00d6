"""What the input data says, not the request: a defect ``input_facts`` found in an input (its
geometry kept as WKT text, features jumping over the antimeridian, rings wound against RFC 7946,
numbers written as text) must not reach a deliverable made from it.
"""

from __future__ import annotations

import re

from ..formats import SPATIAL
from .builder import _Builder, _output_words
from .rows import _every_row_kept
from .words import _FILE, _format, _said_of, _sentence_at

_NUMERIC_WORDS = re.compile(r"\b(numeric(?:al)?|numbers?|d?types?|typed|typing)\b", re.IGNORECASE)

# Words of a request about how the data draws ("render correctly", "viewers", "holes appear filled",
# "arcs across the globe"): then the inputs' drawing defects must not reach the output.
_HOLES = ("hole", "holes")
_DRAWING = re.compile(
    r"\b(render\w*|viewers?|display\w*|draw\w*|shad\w*|rfc\s*7946|right-hand|winding|orient\w*|"
    r"clockwise|anticlockwise|counter-?clockwise|holes?|antimeridian|dateline|180|arcs?|wrap\w*|"
    r"globe\w*|span\w*)\b",
    re.IGNORECASE,
)


def _defect_rules(b: _Builder, outputs: list[str], inputs: dict[str, dict], request: str = "") -> None:
    """What the input data says, not the request: a defect found in an input's geometries (by
    ``input_facts``) must not reach a spatial deliverable made from it. Geometry kept as WKT text
    in a column is parsed into the file's geometry, not carried beside it. Features jumping over the
    antimeridian are cut at +-180 (RFC 7946 section 3.1.9; in GeoJSON always, in other formats when
    they stay in lon/lat); GeoJSON polygons follow RFC 7946's right-hand rule (section 3.1.6)."""

    def where(defect: str) -> str:
        return ", ".join(
            f"{facts['defects'][defect]} in `{path}`"
            for path, facts in inputs.items()
            if (facts.get("defects") or {}).get(defect)
        )

    crossing, wound = where("antimeridian"), where("winding")
    wkt_columns = [c for facts in inputs.values() for c in (facts.get("defects") or {}).get("wkt_text") or []]
    wkt = ", ".join(
        f"`{path}` writes it in {', '.join(f'`{c}`' for c in facts['defects']['wkt_text'])}"
        for path, facts in inputs.items()
        if (facts.get("defects") or {}).get("wkt_text")
    )
    # Holes alone are the data's structure ("courtyard holes not counted"), not how it draws.
    drawing = next((m for m in _DRAWING.finditer(_FILE.sub(" ", request)) if m.group(0).lower() not in _HOLES), None)
    for out in outputs:
        fmt = _format(out)
        # A defect the request does not ask to mend is a standard's, not the user's: shown, not gating.
        b.reading(_output_words(b, out))
        named = set(b.columns_of(out))
        if wkt and fmt in SPATIAL and not named & set(wkt_columns):  # unless the request keeps that column
            b.add(
                out,
                "geometry_once",
                f"the geometry is stored once, as the file's geometry: no column repeats it "
                f"as WKT text ({wkt}; drop it once parsed)",
                name=wkt_columns[0],
            )
        if crossing and fmt in SPATIAL:
            b.add(
                out,
                "antimeridian_cut",
                f"no feature jumps over the antimeridian: those that cross it ({crossing}) are cut at ±180° "
                f"into multi-part geometries, one feature each (RFC 7946 §3.1.9)",
                lonlat_only=fmt != "geojson",
            )
        if wound and fmt == "geojson":
            # A line over +-180 is wrong in any CRS; a ring's order is the standard's, binding when the
            # request speaks of how the data draws.
            b.reading(_sentence_at(request, drawing.start()) if drawing else _output_words(b, out), sure=bool(drawing))
            b.add(
                out,
                "rfc7946_winding",
                f"polygon rings follow RFC 7946's right-hand rule: exteriors counter-clockwise, holes clockwise "
                f"(the input's are wound the other way: {wound})",
            )
            _rewound_whole(b, out, inputs, request)


# Words that make an output's features fewer than its input's, beside the mending itself ("fix",
# "repair", "clean" the rings): a selection, a merge, a split, a sample ("inside out" is how such
# rings draw, and a "join key" names a column).
_FEWER_FEATURES = re.compile(
    r"\b(filter\w*|select\w*|only|drop\w*|remov\w*|exclud\w*|discard\w*|dedup\w*|duplicat\w*|clip\w*|subset|"
    r"sample\w*|top(?!-level)|first|largest|smallest|split\w*|dissolv\w*|aggregat\w*|merg\w*|explod\w*|"
    r"join\w*\b(?!\s+(?:key|column|field|attribute)s?\b)|"
    r"group\w*|per|summar\w*|count\w*|skip\w*|omit\w*|except|where|within|inside(?!\s+out)|outside|intersect\w*|"
    r"thresholds?|smaller|larger|less|more|above|below|under|over)\b",
    re.IGNORECASE,
)


def _rewound_whole(b: _Builder, out: str, inputs: dict[str, dict], request: str) -> None:
    """Rings rewound are the same features: a GeoJSON made from the one input whose rings are wound
    against RFC 7946, by a request that asks for nothing but mending it (no word that selects,
    merges or splits features), has every feature of that input. Gating as the winding is."""
    wound = [p for p, f in inputs.items() if (f.get("defects") or {}).get("winding") and f.get("rows") is not None]
    spatial = [p for p in inputs if _format(p) in SPATIAL]
    if len(wound) != 1 or spatial != wound or _FEWER_FEATURES.search(_FILE.sub(" ", request)):
        return
    _every_row_kept(b, out, wound[0], inputs[wound[0]]["rows"])


_IDENTIFIER = re.compile(r"(?:^|_)(?:id|code|key|uuid|ref|fid|no)$", re.IGNORECASE)

# Words of a request that changes numbers, not only their type (rounds, rescales, fills, converts a
# unit): then the typed numbers need not be the input's, and that requirement is shown, not gating.
_CHANGED_NUMBERS = re.compile(
    r"\b(round\w*|decimals?|scal\w*|multipl\w*|divid\w*|fill\w*|replac\w*|imput\w*|defaults?|zeros?|"
    r"clip\w*|cap|capp\w*|clamp\w*|normali[sz]\w*|percent\w*|units?|kelvin|celsius|fahrenheit|"
    r"metres?|meters?|feet|km|miles?|sentinels?|outliers?|invalid|negative)\b|°",
    re.IGNORECASE,
)


def _number_rules(b: _Builder, request: str, outputs: list[str], inputs: dict[str, dict]) -> None:
    """A request about numbers or types, over an input that writes numbers as text ("84.55"): in
    every typed output (not CSV, which has no types) that carries such a column, it holds numbers.
    When the request says which of them are numbers ("pm25 is stored as text, treat it as a
    number"), an identifier written in digits that it does not say so of ("station_id": "62") stays
    as the input writes it: a code is not a quantity. A request that names none ("fix whatever keeps
    the numbers from working") means them all."""
    words = _FILE.sub(" ", request)
    numbers_kept = not _CHANGED_NUMBERS.search(words)  # the request fixes their type, nothing else
    for path, facts in inputs.items():
        as_text = (facts.get("defects") or {}).get("numbers_as_text") or {}
        columns = set(facts.get("columns") or []) | set(as_text)
        said_numeric = {n for n in as_text if _NUMERIC_WORDS.search(_said_of(words, n, columns))}
        for name, kind in as_text.items():
            if said_numeric and name not in said_numeric and _IDENTIFIER.search(name):
                continue
            for out in outputs:
                if _format(out) in ("csv", "unknown"):
                    continue
                said = _output_words(b, out)
                b.reading(said)
                if kind == "integer":
                    b.add(
                        out,
                        "integer",
                        f"`{name}` holds integers, not text (`{path}` writes them as strings)",
                        name=name,
                        if_present=True,
                    )
                else:
                    b.add(
                        out,
                        "numeric",
                        f"`{name}` holds numbers, not text (`{path}` writes them as strings)",
                        name=name,
                        if_present=True,
                    )
                # A type fixed, not the numbers: each is one the input writes (none cut or rounded)
                b.reading(said, sure=numbers_kept)
                b.add(
                    out,
                    "values_from_input",
                    f"`{name}` holds the numbers `{path}` writes as text, read as numbers (none cut or rounded)",
                    name=name,
                    input=path,
                    as_type="float64" if kind != "integer" else "int64",
                    none_lost=False,
                    if_present=True,
                )
