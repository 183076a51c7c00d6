"""The model's reading of a request: a typed spec of each output file, filled by the model under a
JSON-schema grammar, and what of it becomes a requirement.

The rules (``rules.py``) parse phrasings; the model may read meaning the phrasings miss (which
output a sentence is about, a column named in plain words, an order said loosely). Its answer is
a ``RequestReading`` -- only fields an existing requirement kind checks -- and each field becomes a
requirement only when it is *grounded*: every name, code and value it carries is written in the
request, in a sentence with the words that ask for it ("one row per", "sorted", a CRS in a clause
that negates nothing and is no source CRS), and the rules read the same requirement from a plain
sentence of it. A requirement that repeats or contradicts one the rules derived is not added. A
model that answers nonsense, or nothing, adds nothing.
"""

from __future__ import annotations

import json
import re
from typing import Literal

from pydantic import BaseModel, Field, ValidationError

from .model import Contract, Requirement
from .proposed import _contradiction, _in_request, _rules_read, _ungrounded
from .rules import _SENTENCE, _affirmed, _base, _files

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


# The words that ask for a kind, in the sentence that writes its column.
_ONE_ROW_PER = re.compile(
    r"\b(?:one|a\s+single|exactly\s+one)\s+(?:row|record|line|feature|entry)\s+(?:per|for\s+(?:each|every))\b|"
    r"\bunique\b|\bno\s+(?:\w+\s+)?duplicat\w*|\bde-?duplicat\w*|\bde-?dup\w*|\b(?:only|exactly)\s+once\b",
    re.IGNORECASE,
)
# a CRS named as where the data comes from, not where it goes ("from WGS84", "currently in UTM")
_SOURCE_CRS = re.compile(
    r"\b(?:from|currently|originally|source|comes?\s+in|came\s+in|arrives?\s+in|stored\s+in)\s+"
    r"(?:[\w'-]+\s+){0,3}$",
    re.IGNORECASE,
)
_EPSG_DIGITS = re.compile(r"\b(\d{4,5})\b")
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


def _geometry_grounding(kind: str, request: str) -> tuple[list[str], str]:
    """(allowed types, the sentence) for a geometry type the request writes: its OGC name ("only
    MultiPolygon") or the plain word ("lines only": LineString or MultiLineString), in a clause that
    negates nothing. ([], '') when the request does not write it."""
    base = kind.removeprefix("Multi")
    exact = re.compile(rf"\b{kind}s?\b", re.IGNORECASE)
    plain = re.compile(rf"\b(?:{_PLAIN_TYPE[base]})\b", re.IGNORECASE)
    for sentence in _sentences(request):
        affirmed = _affirmed(sentence)
        if exact.search(affirmed) and (kind.startswith("Multi") or not re.search(rf"\bMulti{kind}", affirmed)):
            return [kind], sentence
        if plain.search(affirmed) and re.search(r"\bonly\b|\bjust\b|\bevery\b|\beach\b|\bas\b", sentence, re.I):
            return [base, f"Multi{base}"], sentence
    return [], ""


def _sentence_with(name: str, request: str, cue: re.Pattern) -> str:
    return next((s for s in _sentences(request) if _in_request(name, s) and cue.search(s)), "")


def _column_written(name: str, request: str, input_columns: set[str]) -> bool:
    """The request writes the name as a name: in backticks or quotes, with an underscore, or as the
    name of an input's column (a plain English word otherwise: "the name of each park")."""
    if not _in_request(name, request):
        return False
    quoted = re.search(rf"[`'\"\u201c\u2018]{re.escape(name)}[`'\"\u201d\u2019]", request)
    return bool(quoted) or "_" in name or name in input_columns


def _about_another_output(name: str, path: str, request: str) -> bool:
    """Every sentence that writes ``name`` names an output file, and none of them ``path``: the
    name belongs to another output of the request."""
    holding = [s for s in _sentences(request) if _in_request(name, s)]
    named = [{_base(f) for f in _files(s)} for s in holding]
    return bool(holding) and all(files and _base(path) not in files for files in named)


Grounded = tuple[str, str, str]  # (output as the model wrote it, a plain sentence of one field, the request's words)


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

    for out in reading.outputs:
        path = out.path
        if out.crs:
            said = _crs_grounding(out.crs, request)
            codes = _EPSG_DIGITS.findall(out.crs)
            if said and all(_in_request(c, said) for c in codes):
                found.append((path, f"is in {out.crs.strip()}", said))
            else:
                dropped.append((f"{path}: crs {out.crs}", "the request does not ask for it"))
        if out.geometry_type:
            allowed, said = _geometry_grounding(out.geometry_type, request)
            if allowed:
                found.append((path, f"every feature is a {' or '.join(allowed)}", said))
            else:
                dropped.append((f"{path}: geometry {out.geometry_type}", "the request does not write it"))
        names = list(dict.fromkeys(n.strip("`'\" ") for n in out.columns_kept + out.columns_new))
        kept = [n for n in names if n and written(n, path)]
        if kept:
            said = next((s for s in _sentences(request) if _in_request(kept[0], s)), "")
            found.append((path, "has the columns " + ", ".join(f"`{n}`" for n in kept), said))
        dropped += [(f"{path}: column {n}", "the request does not write it as a name") for n in names if n not in kept]
        key = (out.one_row_per or "").strip("`'\" ")
        said = _sentence_with(key, request, _ONE_ROW_PER) if key and written(key, path) else ""
        if said:
            found.append((path, f"`{key}` is unique", said))
        elif key:
            dropped.append((f"{path}: one row per {key}", "the request does not say so"))
        sort = (out.sort_by or "").strip("`'\" ")
        if sort and written(sort, path):
            found.append((path, f"sorted by `{sort}` {out.sort_order or 'ascending'}", ""))
        elif sort:
            dropped.append((f"{path}: sorted by {sort}", "the request does not write it as a name"))
    return found, dropped


# Kinds a field of the reading may become: a column list (and lon/lat a column's name says), a CRS,
# geometry types, a unique key, a sort. Left to the rules: what else they read in a name the
# model surfaced (measures, bounds, counts), which the request's words decide, not the name.
READABLE = frozenset({"columns", "crs_epsg", "crs_projected_metres", "lonlat", "geometry_types", "unique", "sorted"})
_CRS_KINDS = ("crs_epsg", "crs_projected_metres")


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
    return next((r for r in _rules_read(req.output, listed, inputs) if r.kind == "columns"), None)


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
    """(requirements the reading adds to ``contract``, [(field, why it was dropped)]). Ids ``m1``...,
    origin "model", ``said`` the request's words each rests on; ``sure=False``: shown, never gating."""
    if reading is None:
        return [], []
    outputs = [o.path for o in contract.outputs]
    accepted: list[Requirement] = []
    found, dropped = candidates(reading, request, inputs)
    for path, sentence, said in found:
        label = f"{path}: {sentence}"
        output = _output_of(path, outputs)
        if output is None:
            dropped.append((label, f"{path} is not an output of this request"))
            continue
        for req in _rules_read(output, sentence, inputs):
            known = contract.requirements + accepted
            if req.kind not in READABLE:
                continue
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
            words = said or _sort_words(req, request)
            update = {"id": f"m{len(accepted) + 1}", "origin": "model", "said": " ".join(words.split())[:400]}
            accepted.append(req.model_copy(update={**update, "sure": sure}))
    return accepted, list(dict.fromkeys(dropped))


def _sort_words(req: Requirement, request: str) -> str:
    """The sentence that writes the sorted column and a word of order."""
    name = req.params.get("name", "")
    cue = re.compile(r"\b(sort|order|rank|first|descending|ascending|largest|smallest|highest|lowest)\w*", re.I)
    return _sentence_with(name, request, cue) or next((s for s in _sentences(request) if _in_request(name, s)), "")
