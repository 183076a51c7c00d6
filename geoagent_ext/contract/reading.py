"""The model's reading of a request: a typed spec of each output file, filled by the model under a
JSON-schema grammar, and what of it becomes a requirement.

The rules (``rules/``) parse phrasings; the model may read what a phrasing the rules do not
know says (which output a sentence is about, a key or a sort in other words). Its answer is a
``RequestReading`` -- only fields an existing requirement kind checks -- and each field becomes a
requirement only when it is *grounded*: every name and code it carries is written in the request
as a name (backticks, underscores, an input's column), in a sentence with the words that ask for
it ("one row per" right before the key, "sorted by" the column, the CRS words in a clause that
negates nothing and is no source CRS, one geometry family), and the rules read that requirement
from a plain sentence of the field. A requirement that repeats or contradicts one the rules
derived is not added. A model that answers nonsense, or nothing, adds nothing.
"""

from __future__ import annotations

import json
import re
from typing import Literal

from pydantic import BaseModel, Field, ValidationError

from .model import Contract, Requirement
from .proposed import _contradiction, _in_request, _rules_read, _ungrounded
from .rules.words import _SENTENCE, _affirmed, _base, _files

# Whether what the reading adds gates ``succeeded`` (else shown and reported "not verified"):
# decided by the contract audit, on which every request stayed sound with it gating.
MODEL_READING_GATES = True


def reading_wanted(setting: bool | None, model: str) -> bool:
    """Whether a run asks its model to read the request: the setting when it is set; else yes, except
    for the bundled local models, whose reading caught 1 broken deliverable of 318 beyond the rules
    on the contract audit (``benchmarks/contract_audit.py --reader both``), for ~30 s a run on a CPU."""
    return setting if setting is not None else not model.startswith("local:")


GeometryType = Literal["Point", "LineString", "Polygon", "MultiPoint", "MultiLineString", "MultiPolygon"]


class OutputReading(BaseModel):
    """What the request says one output file must hold; null or [] for what it does not say."""

    path: str = Field(description="the output file, as the request names it")
    crs: str | None = Field(
        description="the CRS the file must be in, copied from the request ('EPSG:3857', 'WGS84', "
        "'the national grid'); null when the request names none for this file"
    )
    geometry_type: GeometryType | None = Field(description="the geometry type every feature must have, if said")
    columns_kept: list[str] = Field(description="input columns this file keeps, names copied from the request")
    columns_new: list[str] = Field(description="columns this file adds, names copied from the request")
    one_row_per: str | None = Field(description="the column with one row per value ('one row per district')")
    sort_by: str | None = Field(description="the column the rows are sorted by, if said")
    sort_order: Literal["ascending", "descending"] | None = Field(description="the sort order, if said")


class RequestReading(BaseModel):
    outputs: list[OutputReading] = Field(max_length=8)


def reading_schema() -> dict:
    """The JSON Schema the model's answer is generated under (every field present, in order: a
    small model fills a fixed form better than it chooses which keys to write)."""
    return RequestReading.model_json_schema()


def parse_reading(text: str) -> RequestReading | None:
    """The answer as a ``RequestReading``; None when it is no JSON of that shape (a cut answer,
    a model without a grammar that wrote prose)."""
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end <= start:
        return None
    try:
        return RequestReading.model_validate(json.loads(text[start : end + 1]))
    except (ValueError, ValidationError):
        return None


# "one row per district", "a single record for each `site_id`" -- and not "per address and rank"
_ONE_ROW_PER = (
    r"\b(?:one|a\s+single|exactly\s+one)\s+(?:row|record|line|feature|entry|object|item)\s+"
    r"(?:per|for\s+(?:each|every))\s+(?:the\s+|each\s+|every\s+)?`?(?:{names})`?(?!\w|\s*(?:and|,|/|&|x|per|pair|combination|-)\b)"
)
_UNIQUE_NEAR = (
    r"`?(?:{names})`?\s+(?:\w+\s+){{0,3}}?(?:is\s+|are\s+|must\s+be\s+|stays?\s+)?(?:unique|never\s+repeated|only\s+once)\b|"
    r"\b(?:unique|no\s+duplicate|de-?duplicate\w*\s+(?:on|by))\s+(?:\w+\s+){{0,2}}?`?(?:{names})`?(?!\w)"
)
_KEY_SUFFIX = re.compile(r"_(?:id|code|name|key|no|number|nr)$", re.IGNORECASE)


def _key_said(name: str, request: str) -> str:
    """The sentence that asks for one row per value of ``name``: "one row per" right before the
    name or the noun it is the key of (``district_code``: "district"), or "unique" beside it."""
    noun = _KEY_SUFFIX.sub("", name).replace("_", " ")
    names = "|".join(re.escape(n) + "s?" for n in dict.fromkeys([name, noun]) if n)
    cue = re.compile(_ONE_ROW_PER.format(names=names) + "|" + _UNIQUE_NEAR.format(names=names), re.IGNORECASE)
    return next((s for s in _sentences(request) if cue.search(" ".join(s.split()))), "")


# a CRS named as where the data comes from, not where it goes ("from WGS84", "currently in UTM")
_SOURCE_CRS = re.compile(
    r"\b(?:from|currently|originally|source|comes?\s+in|came\s+in|arrives?\s+in|stored\s+in)\s+"
    r"(?:[\w'-]+\s+){0,3}$",
    re.IGNORECASE,
)
_EPSG_DIGITS = re.compile(r"\b(\d{4,5})\b")
_FEATURE_WORDS = re.compile(r"\b(?:only|just|every|each|all|as|features?|geometr\w*)\b", re.IGNORECASE)
_PLAIN_TYPE = {
    "Point": r"points?",
    "LineString": r"lines?|linestrings?",
    "Polygon": r"polygons?",
}


def _squash(text: str) -> str:
    return " ".join(text.split()).lower()


def _sentences(request: str) -> list[str]:
    return [s for s in _SENTENCE.split(request) if s.strip()]


def _crs_grounding(words: str, request: str) -> str:
    """The request's sentence that asks for the CRS ``words`` for an output ('' when none does):
    the words are written in a clause that negates nothing, not as the data's source CRS."""
    wanted = _squash(words).strip(" .'\"`")
    if len(wanted) < 3:
        return ""
    for sentence in _sentences(request):
        flat = _squash(sentence)
        at = flat.find(wanted)
        if at < 0 or _SOURCE_CRS.search(flat[:at]) or wanted not in _squash(_affirmed(sentence)):
            continue
        return sentence
    return ""


def _families(text: str) -> set[str]:
    """The geometry families ("Point", "LineString", "Polygon") a text writes, by name or plain word."""
    return {
        base for base, plain in _PLAIN_TYPE.items() if re.search(rf"\b(?:(?:multi)?{base}s?|{plain})\b", text, re.I)
    }


def _geometry_grounding(kind: str, request: str) -> tuple[list[str], str]:
    """(allowed types, the sentence) for a geometry type the request asks of features: a sentence
    whose clauses that negate nothing write that family and no other ("only the line features",
    "as MultiPolygon"). Allowed: the family, single- or multi-part -- which of the two the request
    means is not read here. ([], '') when no sentence asks for it so."""
    base = kind.removeprefix("Multi")
    for sentence in _sentences(request):
        if _families(_affirmed(sentence)) == {base} and _FEATURE_WORDS.search(sentence):
            return [base, f"Multi{base}"], sentence
    return [], ""


def _sentence_with(name: str, request: str, cue: re.Pattern) -> str:
    return next((s for s in _sentences(request) if _in_request(name, s) and cue.search(s)), "")


def _column_written(name: str, request: str, input_columns: set[str]) -> bool:
    """The request writes the name as a column's name: in backticks, with an underscore, or as the
    name of an input's column -- not a plain English word ("the name of each park") nor a layer's
    name ('layer "parcels"')."""
    if not _in_request(name, request) or re.search(
        rf"\blayers?\s+(?:named\s+)?[`'\"\u201c]?{re.escape(name)}\b", request, re.I
    ):
        return False
    return bool(re.search(rf"`{re.escape(name)}`", request)) or "_" in name or name in input_columns


# A JSON output is a table of records only when the request says so; a JSON object's keys are no columns.
_RECORDS = re.compile(
    r"(?:list|array)\s+of\s+(?:records|objects|rows)\b|\b(?:one|an?)\s+(?:object|record)\s+(?:per|for\s+each)\b|"
    r"\bjson\s+(?:list|array)\b",
    re.IGNORECASE,
)


def _records(path: str, request: str) -> bool:
    """Whether the output is a table: not JSON, or JSON the request calls a list of records."""
    return not path.lower().endswith(".json") or any(_RECORDS.search(_affirmed(s)) for s in _sentences(request))


def _sort_said(name: str, request: str) -> str:
    """The sentence that sorts by ``name`` in so many words: "sorted by `n`", "ordered by n",
    "`n` descending" (a sort word elsewhere in the sentence says nothing of this column)."""
    n = re.escape(name)
    cue = re.compile(
        rf"\b(?:sort|order|rank)(?:ed)?\s+(?:\w+\s+){{0,3}}?by\s+(?:the\s+|its\s+|their\s+)?`?{n}`?(?!\w)|"
        rf"`?{n}`?\s+(?:\(|,)?\s*(?:descending|ascending|desc|asc)\b",
        re.IGNORECASE,
    )
    return next((s for s in _sentences(request) if cue.search(" ".join(s.split()))), "")


def _about_another_output(name: str, path: str, request: str) -> bool:
    """Every sentence that writes ``name`` names an output file, and none of them ``path``: the
    name belongs to another output of the request."""
    holding = [s for s in _sentences(request) if _in_request(name, s)]
    named = [{_base(f) for f in _files(s)} for s in holding]
    return bool(holding) and all(files and _base(path) not in files for files in named)


# (output as the model wrote it, a plain sentence of one field, the request's words, the kinds it asks for)
Grounded = tuple[str, str, str, tuple[str, ...]]
_CRS_KINDS = ("crs_epsg", "crs_projected_metres")


def candidates(
    reading: RequestReading, request: str, inputs: dict[str, dict] | None
) -> tuple[list[Grounded], list[tuple[str, str]]]:
    """The fields whose names and words the request writes, each as a plain sentence the rules read,
    and the other filled fields with why they were dropped."""
    input_columns = {c for f in (inputs or {}).values() for c in f.get("columns") or []}
    found: list[Grounded] = []
    dropped: list[tuple[str, str]] = []

    def written(name: str, path: str) -> bool:
        return _column_written(name, request, input_columns) and not _about_another_output(name, path, request)

    typed: dict[str, set[str]] = {}  # the geometry families the reading gives each output
    for out in reading.outputs:
        if out.geometry_type:
            typed.setdefault(_base(out.path), set()).add(out.geometry_type.removeprefix("Multi"))
    for out in reading.outputs:
        path = out.path
        if out.crs:
            said = _crs_grounding(out.crs, request)
            codes = _EPSG_DIGITS.findall(out.crs)
            if said and all(_in_request(c, said) for c in codes):
                found.append((path, f"is in {out.crs.strip()}", said, _CRS_KINDS))
            else:
                dropped.append((f"{path}: crs {out.crs}", "the request does not ask for it"))
        if out.geometry_type and len(typed[_base(path)]) > 1:
            dropped.append((f"{path}: geometry {out.geometry_type}", "the reading gives the file several types"))
        elif out.geometry_type:
            allowed, said = _geometry_grounding(out.geometry_type, request)
            if allowed:
                found.append((path, f"every feature is a {' or '.join(allowed)}", said, ("geometry_types",)))
            else:
                dropped.append((f"{path}: geometry {out.geometry_type}", "the request does not write it"))
        names = list(dict.fromkeys(n.strip("`'\" ") for n in out.columns_kept + out.columns_new))
        kept = [n for n in names if n and written(n, path)] if _records(path, request) else []
        if kept:
            said = next((s for s in _sentences(request) if _in_request(kept[0], s)), "")
            found.append((path, "has the columns " + ", ".join(f"`{n}`" for n in kept), said, ("columns",)))
        dropped += [(f"{path}: column {n}", "the request does not write it as a name") for n in names if n not in kept]
        key = (out.one_row_per or "").strip("`'\" ")
        said = _key_said(key, request) if key and written(key, path) else ""
        if said:
            found.append((path, f"`{key}` is unique", said, ("unique",)))
        elif key:
            dropped.append((f"{path}: one row per {key}", "the request does not say so"))
        sort = (out.sort_by or "").strip("`'\" ")
        said = _sort_said(sort, request) if sort and written(sort, path) else ""
        if said:
            found.append((path, f"sorted by `{sort}` {out.sort_order or 'ascending'}", said, ("sorted",)))
        elif sort:
            dropped.append((f"{path}: sorted by {sort}", "the request does not sort by it in so many words"))
    return found, dropped


def _output_of(path: str, outputs: list[str]) -> str | None:
    """The contract's output the model means (its path, or the same file name)."""
    if path in outputs:
        return path
    same = [o for o in outputs if _base(o) == _base(path)]
    return same[0] if len(same) == 1 else None


def _bare(params: dict) -> dict:
    return {k: v for k, v in params.items() if k != "provenance"}


def _new_columns(req: Requirement, known: list[Requirement], inputs: dict[str, dict] | None) -> Requirement | None:
    """The columns requirement for the names no requirement asks yet (None when there are none);
    names the request allows as values are values, not columns."""
    have = {n for r in known if r.output == req.output and r.kind == "columns" for n in r.params["names"]}
    values = {str(v) for r in known if r.kind == "values_in" for v in r.params["allowed"]}
    new = [n for n in req.params["names"] if n not in have and n not in values]
    if not new:
        return None
    listed = "has the columns " + ", ".join(f"`{n}`" for n in new)
    read = next((r for r in _rules_read(req.output, listed, inputs) if r.kind == "columns"), None)
    if read is None:
        return None
    # the names the model read say nothing of what else the file holds (a WKT or geometry column,
    # another column the request names)
    params = {k: v for k, v in read.params.items() if k not in ("no_stray", "said_words")}
    return read.model_copy(update={"params": params, "text": f"has the columns {', '.join(new)}"})


def _clash(req: Requirement, contract: Contract) -> Requirement | None:
    """A requirement the contract holds on the same thing that wants something else: another CRS
    (one file has one), the other sort order or sort column, other geometry types."""
    for old in contract.requirements:
        if old.output != req.output:
            continue
        if req.kind in _CRS_KINDS and old.kind in _CRS_KINDS and _bare(old.params) != _bare(req.params):
            return old
        if req.kind == old.kind and req.kind in ("sorted", "geometry_types") and _bare(old.params) != _bare(req.params):
            return old
    return _contradiction(req, contract)


def accept_reading(
    reading: RequestReading | None,
    request: str,
    contract: Contract,
    inputs: dict[str, dict] | None = None,
    *,
    sure: bool = True,
) -> tuple[list[Requirement], list[tuple[str, str]]]:
    """(requirements the reading adds to ``contract``, [(field, why it was dropped)]). Ids ``m<n>``,
    origin "model", ``said`` the request's words each rests on; ``sure=False``: shown, never gating."""
    if reading is None:
        return [], []
    outputs = [o.path for o in contract.outputs]
    accepted: list[Requirement] = []
    first = 1 + sum(r.origin == "model" for r in contract.requirements)  # after the model's proposals, if any
    found, dropped = candidates(reading, request, inputs)
    for path, sentence, said, kinds in found:
        label = f"{path}: {sentence}"
        output = _output_of(path, outputs)
        if output is None:
            dropped.append((label, f"{path} is not an output of this request"))
            continue
        for req in _rules_read(output, sentence, inputs):
            known = contract.requirements + accepted
            if req.kind not in kinds:
                continue  # what else the rules add to any sentence (the input's CRS when none is said)
            if req.kind == "columns":
                new = _new_columns(req, known, inputs)
                if new is None:
                    continue
                req = new
            elif any(r.output == output and r.kind == req.kind and _bare(r.params) == _bare(req.params) for r in known):
                continue  # already required
            missing = _ungrounded(req, request) if req.kind == "sorted" else ""
            if missing:
                dropped.append((label, f"the request does not say {missing}"))
                continue
            clash = _clash(req, contract)
            if clash is not None:
                dropped.append((label, f"contradicts “{clash.text}”"))
                continue
            update = {"id": f"m{first + len(accepted)}", "origin": "model", "said": " ".join(said.split())[:400]}
            accepted.append(req.model_copy(update={**update, "sure": sure}))
    return accepted, list(dict.fromkeys(dropped))
