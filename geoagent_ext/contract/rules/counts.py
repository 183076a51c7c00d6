"""Counts: a column the request describes as a number of things holds whole numbers; a JSON
summary value that is the number of an input's features; things counted once each; and the points
of one layer counted in each polygon of another.
"""

from __future__ import annotations

import re

from ..formats import layer_kinds as _layer_kinds
from .builder import _Builder
from .words import _COUNT_NAME, _FILE, _PER_GROUP, _base, _category_of, _format, _noun_names, _sentence_at, _singular

_GENERIC_COUNTED = {"", "point", "feature", "record", "row", "item", "count", "total"}


def _point_count_rules(b: _Builder, outputs: list[str], inputs: dict[str, dict], named: list[str]) -> None:
    """A count column ("station_count", "n_stations") of a table when the request names one polygon
    layer and the point layer counted (the one whose name holds the count's noun, or the only one):
    each row's value is the number of those points inside its polygon, every polygon with a row (a
    count taken by location, which no attribute of the points can stand in for)."""
    kinds = {p: _layer_kinds(inputs[p]) for p in named if p in inputs}
    polygons = [p for p, k in kinds.items() if k and k <= {"Polygon", "MultiPolygon"}]
    points = [p for p, k in kinds.items() if k and k <= {"Point", "MultiPoint"}]
    if len(polygons) != 1 or not points:
        return
    for req in [r for r in b.requirements if r.kind == "columns" and _format(r.output) != "json"]:
        b.reading(req.said, req.sure)
        for name in req.params["names"]:
            if not _COUNT_NAME.search(name) or _PER_GROUP.match(name):
                continue
            noun = re.sub(r"(^|_)(count|n|num|number)(_|$)", "_", name.lower()).strip("_").rstrip("s")
            counted = [p for p in points if noun and noun in _base(p).lower()]
            if not counted and noun in _GENERIC_COUNTED and len(points) == 1:
                counted = points
            if len(counted) == 1:
                b.add(
                    req.output,
                    "point_counts",
                    f"`{name}` is the number of `{counted[0]}` points inside each polygon "
                    f"of `{polygons[0]}` (one row for every polygon, 0 where none)",
                    name=name,
                    points=counted[0],
                    polygons=polygons[0],
                    **_polygon_key(req.params["names"], inputs[polygons[0]].get("columns") or []),
                )


def _polygon_key(names: list[str], columns: list[str]) -> dict[str, str]:
    """{"key": the polygons' column a count table keys its rows by} — the first of the output's
    columns the polygon layer has — or {} when none: the advice's code names the real column, since
    a small model copies a placeholder name as it stands."""
    key = next((n for n in names if n in columns), None)
    return {"key": key} if key else {}


# "the number of polygons", "count the localities", '"clinics": <int>': a column of whole counts.
_NOT_A_COUNT = re.compile(r"\s*(?:per|/|density|share|percent|ratio|rate)\b", re.IGNORECASE)


# "buildings: number of buildings", "\"n\": <the number of stations>", "named: how many have a name_primary"
_SUMMARY_COUNT = re.compile(
    r"[\"'`]?(?P<key>[A-Za-z_]\w*)[\"'`]?\s*(?::|=)\s*<?\s*(?:the\s+)?(?:(?:total\s+)?(?:number|count)\s+of\s+"
    r"(?:all\s+)?(?:the\s+)?(?P<noun>[a-z]+)(?P<after>[^\n,;>]{0,16})|how\s+many\s+(?:of\s+them\s+)?(?:have|has)\s+"
    r"(?:a|an|any)\s+(?:non-?(?:empty|blank)\s+)?`?(?P<column>[A-Za-z_]\w*)`?)",
    re.IGNORECASE,
)
# "number of towers taller than 50 m", "... in each ward": a count of some of them, or per group
_QUALIFIED = re.compile(
    r"\s*(?:per|in|of|on|at|with|that|which|who|whose|where|over|under|above|below|more|less|\w+er\s+than)\b",
    re.IGNORECASE,
)
# What makes a count of an input's features count fewer of them than it has
_COUNTS_FEWER = re.compile(
    r"\b(filter\w*|select\w*|only|exclud\w*|except|without|whose|where|dedup\w*|duplicat\w*|distinct|unique|"
    r"clip\w*|valid|invalid|within|inside|starting|per)\b",
    re.IGNORECASE,
)


def _summary_counts(b: _Builder, request: str, inputs: dict[str, dict]) -> None:
    """A JSON summary value the request defines as the number of the one input's features (the noun
    names that file), or of those with a value in one of its columns, equals that count; never when
    the request selects features."""
    with_rows = [p for p in inputs if inputs[p].get("rows") is not None]
    json_outs = [o for o in b.outputs if _format(o) == "json"]
    if len(with_rows) != 1 or len(json_outs) != 1:
        return
    source, facts = with_rows[0], inputs[with_rows[0]]
    for m in _SUMMARY_COUNT.finditer(request):
        if m.group("column"):
            if m.group("column") not in (facts.get("columns") or []):
                continue
            extra = {"non_empty": m.group("column")}
        elif _noun_names(_singular(m.group("noun")), source) and not _QUALIFIED.match(m.group("after")):
            extra = {}
        else:
            continue
        sentence = _sentence_at(request, m.start())
        if _COUNTS_FEWER.search(_FILE.sub(" ", re.sub(r"\bper[- ]\w+\s+rows\b", " ", request, flags=re.IGNORECASE))):
            return
        b.reading(sentence, True)
        b.add(
            json_outs[0],
            "count_of_input",
            f"`{m.group('key')}` is the number of features of `{source}`"
            + (f" with a `{m.group('column')}`" if m.group("column") else ""),
            name=m.group("key"),
            input=source,
            **extra,
        )


# "so that no facility is counted in two hexagons", "each school counted only once"
_ONCE = re.compile(
    r"\bno\s+[a-z]+\s+(?:is\s+|gets\s+|being\s+)?counted\s+(?:in\s+two|twice|more\s+than\s+once)|"
    r"\b(?:each|every)\s+[a-z]+\s+(?:is\s+)?counted\s+(?:only\s+|just\s+|exactly\s+)?once\b",
    re.IGNORECASE,
)
_QUOTED_VALUE = re.compile(r"[\"\u201c]([^\"\u201d\n]{1,40})[\"\u201d]")


def _counted_once(b: _Builder, request: str, inputs: dict[str, dict]) -> None:
    """Things the request says are counted once each: the output's one count column sums to at most
    as many as there are of them (the input's features of the categories the request quotes)."""
    m = _ONCE.search(request)
    if not m:
        return
    quoted = {v: _category_of(v, inputs) for v in _QUOTED_VALUE.findall(request)}
    columns = {c[0] for c in quoted.values() if c}
    if len(columns) != 1:
        return
    column = columns.pop()
    values = sorted(v for v, c in quoted.items() if c and c[0] == column)
    holders = [p for p, f in inputs.items() if column in (f.get("categories") or {})]
    if len(holders) != 1:
        return
    for out in b.outputs:
        counts = [
            r.params["name"]
            for r in b.requirements
            if r.output == out and r.kind == "integer" and r.sure and r.params.get("name") in b.columns_of(out)
        ]
        counts = [n for n in counts if n not in (inputs[holders[0]].get("columns") or [])]
        if len(counts) == 1:
            b.reading(_sentence_at(request, m.start()), True)
            b.add(
                out,
                "counted_once",
                f"`{counts[0]}` sums to at most the number of {' and '.join(values)} in `{holders[0]}`",
                name=counts[0],
                input=holders[0],
                column=column,
                values=values,
            )


def _said_counts(b: _Builder, request: str) -> None:
    """A column the request describes as a number of things holds whole numbers."""
    flat = " ".join(request.split())
    for req in [r for r in b.requirements if r.kind == "columns" and r.sure]:
        for name in req.params["names"]:
            word = re.escape(name)
            said = re.search(
                rf"(?<!average )(?<!mean )(?<!median )\b(?:number|count)\s+of\s+"
                rf"(?:the\s+)?`?{word}`?\b(?P<after>.{{0,12}})|"
                rf"\bcount(?:s|ing)?\s+(?:the\s+|all\s+)?`?{word}`?\b(?P<after2>.{{0,12}})|"
                rf"[\"']{word}[\"']\s*:\s*<\s*int(?:eger)?\s*>",
                flat,
                re.IGNORECASE,
            )
            if not said or _NOT_A_COUNT.match(said.group("after") or said.group("after2") or ""):
                continue
            b.reading(_sentence_at(flat, said.start()), True)
            b.add(req.output, "integer", f'`{name}` holds whole counts ("{said.group(0)[:40].strip()}")', name=name)
