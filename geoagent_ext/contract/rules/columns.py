"""The columns an output carries from its inputs: those a sentence says to keep, every column
of a mended copy, a text column holding its input's values, the same columns as another output;
no stray geometry or row-index column in a CSV (nor, after a closed list, a column the request does
not name, in a CSV or a spatial file); each column's provenance; and a requirement on a column made
sure by the output that surely has it.
"""

from __future__ import annotations

import re

from ..formats import SPATIAL
from ..provenance import column_provenance
from .builder import _Builder, _output_words
from .column_names import _WORD
from .words import _FILE, _SNAKE, _TICKED, _affirmed, _base, _files, _format

# "2. `b.geojson` -- the same attributes plus the points": the columns asked of the other output
_SAME_AS_OTHER = re.compile(r"\bthe\s+same\s+(?:attributes|columns|fields|properties)\b(?!\s+as\b)", re.IGNORECASE)


def _same_as_another_output(
    b: _Builder, attributed: list[tuple[str, list[str], bool]], input_by_base: dict[str, str]
) -> None:
    """An output said to have "the same attributes", in a sentence about it alone that names no
    input, has the columns the request surely asks of the one other output that has a list."""
    for sentence, outs, sure in attributed:
        if not sure or len(outs) != 1 or not _SAME_AS_OTHER.search(sentence):
            continue
        if any(_base(f) in input_by_base for f in _files(sentence)):
            continue
        lists = {
            r.output: r.params["names"]
            for r in b.requirements
            if r.kind == "columns" and r.sure and r.output != outs[0] and r.output in b.outputs
        }
        if len(lists) != 1:
            continue
        other, names = next(iter(lists.items()))
        b.reading(sentence, True).add(
            outs[0], "columns", f"has the columns of `{other}`: {', '.join(names)}", names=list(names)
        )


def _bound_by_column(b: _Builder) -> None:
    """A requirement on a column's values read where the request had not yet said which output it is
    about ("tag each group with `source`, one of ...") is sure for an output the request surely
    gives that column: the column says where it belongs."""
    surely_has = {(r.output, n) for r in b.requirements if r.kind == "columns" and r.sure for n in r.params["names"]}
    for r in b.requirements:
        if not r.sure and r.kind != "columns" and (r.output, r.params.get("name")) in surely_has:
            r.sure = True


def _keeps(b: _Builder, out: str, name: str | None, inputs: dict[str, dict], required: bool = True) -> None:
    """``name`` is carried from the one input that has it: the output has it (unless not
    ``required``), with that input's values."""
    holders = [p for p, facts in inputs.items() if name and name in (facts.get("columns") or [])]
    if len(holders) == 1:
        if required:
            b.add(out, "columns", f"has the column {name}", names=[name])
            b.add(
                out,
                "values_from_input",
                f"`{name}` keeps the original values of `{holders[0]}`",
                name=name,
                input=holders[0],
            )
        else:
            b.add(
                out,
                "values_from_input",
                f"`{name}`, where present, keeps the original values of `{holders[0]}`",
                name=name,
                input=holders[0],
                if_present=True,
            )


def _nearest_name(sentence: str, start: int, end: int, after: bool) -> str | None:
    """The backticked or snake_case name closest to a phrase, after it ("keep `connector_id`")
    or before it ("parcel_id (the join key)")."""
    best, distance = None, 10**9
    for m in list(_TICKED.finditer(sentence)) + list(_SNAKE.finditer(sentence)):
        gap = m.start() - end if after else start - m.end()
        if 0 <= gap <= 40 and gap < distance:
            best, distance = m.group(1), gap
    return best


# "include the geometry as WKT", "a geometry column": the CSV carries its geometry on purpose
_GEOMETRY_WANTED = re.compile(r"\bwkt\b|(?<!\bno\s)\bgeometry\s+(?:column|as)\b", re.IGNORECASE)


# A geometry or row-index column a table gets by writing a (Geo)DataFrame whole ("Unnamed: 0" too):
# carried in ``params.no_stray`` to the in-kernel check and to the mend, which both read it there.
STRAY_COLUMNS = ("geometry", "geom", "the_geom", "wkt", "geometry_wkt", "index", "level_0", "index_right", "index_left")

UNSAID_CLAUSE = ", nor any column the request does not name"
STRAY_CLAUSE = ", and no geometry or row-index column beside them"


def _no_stray_columns(b: _Builder, request: str) -> None:
    """A CSV whose columns the request lists has no geometry or row-index column beside them
    (``params.no_stray``), as a ``to_csv`` of a whole joined GeoDataFrame leaves (`geometry`,
    `index_right`). Other extra columns are allowed (a column the rules did not read as asked for
    may still be one: "its id, name, and area_km2"), unless a sentence listed every column as a
    closed plain list of three names or more (``b.listed``): then a column of a table or of a
    spatial file that is neither listed nor a word of the request (``params.said_words``) is a
    leftover of a join or a scratch column. A spatial file's geometry column is its own: it is never
    one of them."""
    words = sorted({w.lower() for w in _WORD.findall(request)})
    wanted = _GEOMETRY_WANTED.search(_affirmed(request))  # "no geometry column, no WKT" wants none
    for req in [r for r in b.requirements if r.kind == "columns"]:
        fmt = _format(req.output)
        if fmt == "csv" and not wanted:
            req.params["no_stray"] = list(STRAY_COLUMNS)
            req.text += STRAY_CLAUSE
        if (fmt == "csv" or fmt in SPATIAL) and req.output in b.listed and req.sure:
            req.params["said_words"] = words
            req.text += UNSAID_CLAUSE


def _provenance(b: _Builder, inputs: dict[str, dict]) -> None:
    """Each requested column's source, in the requirement (and so in the planner's and coder's view)."""
    for req in [r for r in b.requirements if r.kind == "columns"]:
        sources = {n: column_provenance(n, inputs) for n in req.params["names"] if n != "geometry"}
        req.params["provenance"] = sources
        groups: dict[str, list[str]] = {}
        for name, source in sources.items():
            groups.setdefault(source, []).append(name)
        req.text += " (" + "; ".join(f"{', '.join(names)}: {source}" for source, names in groups.items()) + ")"


# "Keep hex_id", "keep every building with its feature_id", "retain `name` and `kind`": the input's
# columns the request says to keep are in the output. A name after a filtering word ("keep the rows
# whose kind ...", "with kind = 'x'", "without a name") says which rows, not which columns.
_KEEP_VERB = re.compile(r"\b(?:keep|keeping|retain|retaining|preserve|preserving|carry\s+over)\b", re.IGNORECASE)
_KEEP_CLAUSE_END = re.compile(r"[.;:!?]|\s(?:but|while|whereas|then|and\s+(?:then|write|save|export))\s", re.IGNORECASE)
_FILTER_WORD = re.compile(
    r"\b(?:where|whose|if|when|unless|that|which|having|without|no|not|except|only|rows?|records?|features?\s+(?:with|where))\b",
    re.IGNORECASE,
)
_COMPARED = re.compile(r"\s*(?:[<>=!]|is\b|are\b|equals?\b|of\b|above\b|below\b|over\b|under\b|greater\b|less\b|\d)")


def _kept_columns(b: _Builder, attributed: list[tuple[str, list[str], bool]], inputs: dict[str, dict]) -> None:
    """Input columns a sentence says to keep are required of the outputs it is about."""
    columns = {c for facts in inputs.values() for c in facts.get("columns") or []}
    for sentence, outs, sure in attributed:
        if not sure or not outs:
            continue
        for verb in _KEEP_VERB.finditer(sentence):
            tail = sentence[verb.end() :]
            end = _KEEP_CLAUSE_END.search(tail)
            clause = tail[: end.start()] if end else tail
            kept = []
            for m in re.finditer(r"`?([A-Za-z_]\w*)`?", clause):
                name = m.group(1)
                if name not in columns or name in kept:
                    continue
                if _FILTER_WORD.search(clause[: m.start()]) or _COMPARED.match(clause[m.end() :]):
                    break  # from here on the clause says which rows
                kept.append(name)
            if kept:
                b.reading(sentence, True)
                for out in outs:
                    b.add(out, "columns", f"has the columns {', '.join(kept)}", names=kept)


# A request to mend a file ("fix whatever breaks the averages", "clean it up", "repair the rings").
_MEND_VERB = re.compile(r"\b(?:fix|repair|clean|coerc|mend|sanitis|sanitiz)\w*", re.IGNORECASE)
# Words that make an output other than the mended file: fewer columns or rows, or other records.
_NOT_A_COPY = re.compile(
    r"\b(?:only|drop\w*|remov\w*|delet\w*|discard\w*|exclud\w*|without|select\w*|subset|rename\w*|"
    r"aggregat\w*|dissolv\w*|group\w*|per|summar\w*|count\w*|join\w*|merg\w*|split\w*|explod\w*|"
    r"clip\w*|dedup\w*|duplicat\w*|nearest|closest|buffer\w*|centroids?|table|report|list)\b",
    re.IGNORECASE,
)


def _mended_copy(b: _Builder, request: str, outputs: list[str], inputs: dict[str, dict], named: list[str]) -> None:
    """A request to mend one file into one file of the same kind, that names at most one of its
    columns and says nothing of fewer columns or rows, asks for the same records mended: every
    column of the input is still there (a WKT copy of the geometry aside)."""
    sources = [p for p in (named or list(inputs)) if inputs.get(p, {}).get("columns")]
    words = _FILE.sub(" ", request)
    if len(outputs) != 1 or len(sources) != 1 or not _MEND_VERB.search(words) or _NOT_A_COPY.search(words):
        return
    out, source = outputs[0], sources[0]
    if (_format(out) in SPATIAL) != (_format(source) in SPATIAL) or _format(out) == "json":
        return
    facts = inputs[source]
    wkt = set((facts.get("defects") or {}).get("wkt_text") or [])
    names = [c for c in facts["columns"] if c not in wkt]
    if not names or sum(bool(re.search(rf"\b{re.escape(c)}\b", words)) for c in names) > 1:
        return
    b.reading(_output_words(b, out))
    b.add(out, "columns", f"keeps every column of `{source}` ({', '.join(names)}): a mended copy", names=names)
    b.carried |= {(out, n) for n in names}


# Words that ask for a text column's values to change: then its values are no longer the input's.
_VALUES_CHANGE = re.compile(
    r"\b(?:fix\w*|repair\w*|clean\w*|correct\w*|mojibake|encod\w*|decod\w*|normali[sz]\w*|standardi[sz]\w*|"
    r"upper\w*|lower\w*|capitali[sz]\w*|title|trim\w*|strip\w*|translat\w*|renam\w*|replac\w*|recod\w*|"
    r"re-?map\w*|re-?format\w*|convert\w*|coerc\w*|abbreviat\w*|spell\w*|typos?|concat\w*|combin\w*|prefix\w*|suffix\w*)\b",
    re.IGNORECASE,
)


def _carried_text(b: _Builder, request: str, outputs: list[str], inputs: dict[str, dict]) -> None:
    """A text column an output is asked for that exactly one input has (a name, a class, a code
    written as text; not numbers written as text, which a right answer may cast) holds that input's
    values, unless the request asks to change values: another column's values under its name (ids
    for names) is the mistake this catches."""
    if _VALUES_CHANGE.search(_FILE.sub(" ", request)):
        return
    for out in outputs:
        for name in b.columns_of(out):
            holders = [p for p, facts in inputs.items() if name in (facts.get("columns") or [])]
            facts = inputs[holders[0]] if len(holders) == 1 else {}
            numbers = (facts.get("defects") or {}).get("numbers_as_text") or {}
            if name not in (facts.get("text_columns") or []) or name in numbers:  # numbers as text may be cast
                continue
            if any(
                r.output == out and r.kind == "values_from_input" and r.params.get("name") == name
                for r in b.requirements
            ):
                continue
            columns = next(
                r for r in b.requirements if r.output == out and r.kind == "columns" and name in r.params["names"]
            )
            b.reading(columns.said, columns.sure)
            b.add(
                out,
                "values_from_input",
                f"`{name}` holds the values of `{holders[0]}`'s `{name}` (not another column's)",
                name=name,
                input=holders[0],
                as_key=True,
            )
