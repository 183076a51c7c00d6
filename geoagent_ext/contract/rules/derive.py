"""The derivation: ``derive_contract`` splits the request into sentences, attributes each to
the outputs it speaks of, and runs the readings in a fixed order: each sentence's first, then those
over the whole request. The order matters: a later step reads (and may leave unsure) what an earlier
one added. ``user_requirement`` reads a requirement the user typed by the same rules;
``apply_edits`` is the contract after the user's review.
"""

from __future__ import annotations

import re

from ..formats import GEOPARQUET_WORD, SPATIAL
from ..input_layers import layer_inputs, named_layers, on_layers
from ..kinds import KINDS, RequestView
from ..model import Contract, OutputSpec, Requirement, RequirementEdit
from .builder import _Builder
from .column_names import (
    _BULLET_NAME,
    _added_names,
    _allowed_values,
    _defined_lines,
    _drawn_names,
    _listed_names,
    _named_fields,
    _part_about,
    _quoted_layers,
    _record_keys,
    _ticked_list_after,
    _without_descriptions,
    _without_geometry_item,
)
from .columns import (
    STRAY_CLAUSE,
    UNSAID_CLAUSE,
    _bound_by_column,
    _carried_text,
    _kept_columns,
    _mended_copy,
    _no_stray_columns,
    _provenance,
    _same_as_another_output,
)
from .consistency import _consistent
from .counts import _counted_once, _point_count_rules, _said_counts, _summary_counts
from .crs import _bounds_in_degrees, _crs_asked_of_an_input, _crs_kept_rules, _crs_rules, _place_rules
from .defects import _NUMERIC_WORDS, _defect_rules, _number_rules
from .distances import _buffer_rules, _nearest_distance_rules
from .geometry import (
    _geometry_rules,
    _hygiene_rules,
    _invalid_repaired,
    _min_area_rules,
    _one_copy_kept,
    _shape_rules,
)
from .layout import _json_shape_rules, _order_words, _sort_by_named_column
from .measures import _density_rules, _described_measures
from .names import _name_rules, _whole_layer
from .rows import _conversion_rules, _none_dropped, _row_rules
from .selection import _keep_rule, _row_selection
from .values import (
    _blanks_allowed,
    _converted_values,
    _format_rules,
    _one_value_per_cell,
    _stored_type_rules,
    _value_rules,
)
from .words import _FILE, _GEOPARQUET, _SENTENCE, _affirmed, _base, _dot_leaders, _files, _format, _paren_semicolons

_LAYER_WORD = re.compile(r"\blayers?\b", re.IGNORECASE)
# "a single layer named hex_mix", "one layer called roads": the layer's name, written as a name.
_NAMED_LAYER = re.compile(r"\blayer\s+(?:named|called)\s+[`\"']?([A-Za-z_][\w-]*)")

# A sentence that names only inputs is about the output when it says to make something of them.
_PRODUCING = re.compile(
    r"\b(?:export|write|save|give|produce|make|turn|convert|deliver|create|build|return|output|"
    r"put|package|split|merge|dissolve|clip|reproject|take|keep|list|add|attach|append|compute|calculat|enrich|"
    r"annotat)\w*\b|\bnew\s+(?:columns?|attributes?|fields?|properties)\b",
    re.IGNORECASE,
)

# "Columns: a, b, c", "- Fields — a, b": a line that lists an output's columns by its label.
_COLUMNS_LABEL = re.compile(
    r"^\s*(?:[-*\u2022]\s*|\d{1,2}[.)]\s*)?(?:the\s+)?(?:output\s+|its\s+|their\s+)?"
    r"(?:columns?|fields?|keys?|attributes|properties)\s*(?::|\u2014|\u2013|\s-\s)",
    re.IGNORECASE,
)


def derive_contract(
    request: str, outputs: list[str], inputs: dict[str, dict] | None = None, official_crs: str = ""
) -> Contract:
    """The contract for ``outputs`` (files the request names that did not exist at the start).

    ``inputs``: path -> {"rows": int | None, "columns": [names]} of the data files found at the start;
    ``official_crs``: the CRS advisor's official grid for the data ("EPSG:3460 (Fiji 1986 / Fiji Map Grid)"),
    named in a "national grid" requirement so the coder knows which one."""
    inputs = inputs or {}
    request = _dot_leaders(_paren_semicolons(request))
    geoparquet = {p for p, facts in inputs.items() if facts.get("geometry_type")}
    for sentence in _SENTENCE.split(request):  # "as GeoParquet, out.parquet"; not "out.parquet, a plain Parquet"
        if GEOPARQUET_WORD.search(_affirmed(sentence)):
            geoparquet |= {o for o in outputs if _base(o) in {_base(n) for n in _files(sentence)}}
    token = _GEOPARQUET.set(frozenset(geoparquet))
    layers = named_layers(_SENTENCE.split(request), inputs, _files, _affirmed)  # an input's layer the request names
    try:
        return on_layers(_derive(request, outputs, layer_inputs(inputs, layers), official_crs), layers)
    finally:
        _GEOPARQUET.reset(token)


def _derive(request: str, outputs: list[str], inputs: dict[str, dict], official_crs: str) -> Contract:
    input_by_base = {_base(p): p for p in inputs}
    b = _Builder(outputs)
    sentences = [s for s in _SENTENCE.split(request) if s.strip()]
    for out in outputs:
        fmt = _format(out)
        b.reading(next((s for s in sentences if _base(out) in {_base(n) for n in _files(s)}), out))
        b.add(out, "exists", f"`{out}` is written and opens as {fmt}")
    attributed: list[tuple[str, list[str], bool]] = []  # sentence, the outputs it is about, whether surely
    last_outputs: list[str] = []
    # sentences that go on from one naming an output and ending in ":" ("Output `x.geojson`:\n the points
    # with a, b, c"), or that list columns by a label ("Columns: a, b"): their lists are the output's
    continued: set[int] = set()
    for i, sentence in enumerate(sentences):
        before = sentences[i - 1].rstrip() if i else ""
        opened = before.endswith(":") and (_files(before) or _COLUMNS_LABEL.match(before))
        if _COLUMNS_LABEL.match(sentence) or (opened and not _files(sentence)):
            continued.add(i)
    for sentence in sentences:
        named = _files(sentence)
        outs = [o for o in outputs if _base(o) in {_base(n) for n in named}]
        sure = True
        if named and not outs and len(outputs) == 1 and _PRODUCING.search(sentence):
            outs = list(outputs)  # "export `in.parquet` as a plain JSON list": about the one output
        elif not named:
            # "Use three columns ..." continues the last output's sentence; before any output is named,
            # a request with several outputs has not said which one a sentence is about.
            outs, sure = (last_outputs, True) if last_outputs else (list(outputs), len(outputs) == 1)
        elif outs:
            last_outputs = outs
        attributed.append((sentence, outs, sure))
        if re.search(r"\b(both|all|every)\s+(output\s+)?files\b", sentence, re.IGNORECASE):
            attributed[-1] = (sentence, list(outputs), True)

    bullets: dict[str, int] = {}  # bulleted "name: what it holds" lines per output: two or more make a list
    for sentence, outs, _ in attributed:
        for out in outs if _BULLET_NAME.match(sentence) else []:
            bullets[out] = bullets.get(out, 0) + 1
    input_columns = {c for facts in inputs.values() for c in facts.get("columns") or []}
    input_values = {v for facts in inputs.values() for v in facts.get("values") or []} - input_columns
    exclude = (
        {_base(o).rsplit(".", 1)[0] for o in outputs} | {_base(i).rsplit(".", 1)[0] for i in inputs} | input_values
    )
    for index, (sentence, outs, sure) in enumerate(attributed):
        if not outs:
            continue
        b.reading(sentence, sure)
        values = _allowed_values(sentence)
        value_words = {v for _, vs in values for v in vs}
        for out in outs:
            fmt = _format(out)
            names_output = any(_base(f) == _base(out) for f in _files(sentence)) or (
                index in continued and len(outs) == 1
            )
            part = _part_about(sentence, out, outs)
            fields = [f for f in _named_fields(part, exclude, input_columns, names_output) if f not in value_words]
            listing = _without_geometry_item(part) if fmt in SPATIAL else part  # "... and the address points"
            listed, listed_sure = (
                _listed_names(_without_descriptions(listing), input_columns) if names_output else ([], False)
            )
            layers = (
                _ticked_list_after(sentence, _LAYER_WORD)
                or _quoted_layers(_part_about(sentence, out, outs))
                or _NAMED_LAYER.findall(sentence)
                if fmt == "gpkg"
                else []
            )
            fields = [f for f in fields if f not in layers]
            if listed_sure and len(listed) >= 3 and sure and not _OPEN_LIST.search(part):
                b.listed.add(out)  # a closed plain list of names: every column the output should have
            listed = [
                n for n in listed if n not in fields and n not in exclude and n not in layers and n not in value_words
            ]
            label = "keys" if fmt == "json" else "columns"
            if listed and listed_sure:
                fields += listed
            fields += [n for n in _drawn_names(sentence, bullets.get(out, 0)) if n not in fields and n not in exclude]
            fields += [n for n in _added_names(part) if n not in fields and n not in exclude and n not in layers]
            fields += [n for n in _record_keys(part, input_columns) if n not in fields and n not in exclude]
            if index in continued and len(outs) == 1:
                fields += [n for n in _defined_lines(part) if n not in fields and n not in exclude]
            if fields:
                b.add(out, "columns", f"has the {label} {', '.join(fields)}", names=fields)
            if listed and not listed_sure:
                b.reading(sentence, False).add(out, "columns", f"has the {label} {', '.join(listed)}", names=listed)
                b.reading(sentence, sure)
            if layers:
                b.add(out, "layers", f"has the layers {', '.join(layers)}", names=layers)
            for name, allowed in values:
                b.add(out, "values_in", f"`{name}` is one of {', '.join(allowed)}", name=name, allowed=allowed)
            _crs_rules(b, out, fmt, sentence, official_crs, inputs)
            _geometry_rules(b, out, fmt, sentence)
            _value_rules(b, out, sentence)
            _hygiene_rules(b, out, fmt, sentence)
            _format_rules(b, out, sentence)
            if fmt == "json":
                _json_shape_rules(b, out, _part_about(sentence, out, outs))
            _stored_type_rules(b, out, fmt, sentence)
            _row_rules(b, out, sentence, inputs, input_by_base, request)
    _same_as_another_output(b, attributed, input_by_base)
    _bound_by_column(b)
    _order_words(b, attributed, request)
    _bounds_in_degrees(b, attributed)
    _none_dropped(b, attributed, inputs, request)
    _sort_by_named_column(b)
    b.reading("")
    named = _named_inputs(request, input_by_base)
    _name_rules(b, outputs, inputs, whole_layer=_whole_layer(request, inputs, named), request=request)
    _described_measures(b, request, inputs)
    _said_counts(b, request)
    _summary_counts(b, request, inputs)
    _counted_once(b, request, inputs)
    _kept_columns(b, attributed, inputs)
    _carried_text(b, request, outputs, inputs)
    _mended_copy(b, request, outputs, inputs, named)
    _row_selection(b, attributed, inputs)
    _kind_readings(b, request, outputs, attributed, inputs)
    _conversion_rules(b, request, outputs, inputs)
    _buffer_rules(b, request, outputs, named)
    _point_count_rules(b, outputs, inputs, named)
    _nearest_distance_rules(b, request, inputs, named)
    _density_rules(b)
    _keep_rule(b, request, inputs)
    _blanks_allowed(b, request)
    _invalid_repaired(b, request, named)
    _no_stray_columns(b, request)
    _converted_values(b, inputs)
    _provenance(b, inputs)
    _defect_rules(b, outputs, inputs, request)
    _shape_rules(b, request, outputs, inputs, named)
    _place_rules(b, outputs, inputs, named)
    _one_value_per_cell(b, outputs)
    _crs_asked_of_an_input(b, request, outputs, inputs)
    _crs_kept_rules(b, request, outputs, inputs, named)
    _consistent(b, inputs, request)
    _min_area_rules(b, request, outputs)
    _one_copy_kept(b, named)  # after the least area: the features it discards may go
    if _NUMERIC_WORDS.search(_FILE.sub(" ", request)):  # the request's words, not its file names
        _number_rules(b, request, outputs, inputs)
    return Contract(outputs=[OutputSpec(path=o, format=_format(o)) for o in outputs], requirements=b.requirements)


def _kind_readings(
    b: _Builder,
    request: str,
    outputs: list[str],
    attributed: list[tuple[str, list[str], bool]],
    inputs: dict[str, dict],
) -> None:
    """The readings the kinds' own modules hold (``RequirementKind.read``), in the registry's order."""
    view = RequestView(request, outputs, inputs, attributed, files=_files, affirmed=_affirmed)
    for kind in KINDS.values():
        if kind.read is not None:
            kind.read(view, b)


# Words that leave a list of columns open: "including", "at least", "plus the district name",
# "and the other attributes": then a column beyond the list may be asked for in prose.
_OPEN_LIST = re.compile(
    r"\b(?:includ\w*|at\s+least|plus|as\s+well\s+as|such\s+as|among|etc|e\.g|other|others|rest|"
    r"original|existing|remaining|whatever|any|additional|extra)\b",
    re.IGNORECASE,
)


def _named_inputs(request: str, input_by_base: dict[str, str]) -> list[str]:
    """The input files the request names, once each, in its order."""
    return list(dict.fromkeys(input_by_base[_base(f)] for f in _files(request) if _base(f) in input_by_base))


# What one sentence does not decide, only a whole request: that the file exists; that shapes are
# kept (the request's silence on reshaping).
WHOLE_REQUEST_KINDS = ("exists", "shapes_kept", "crs_present", "located", "one_value_per_cell")


def user_requirement(
    output: str, text: str, inputs: dict[str, dict] | None = None, req_id: str = "u1"
) -> list[Requirement]:
    """A requirement the user typed for ``output``, read by the same rules as the request
    ("is in EPSG:3035", "sorted by `name`", "has the columns `a`, `b`"). Whatever the rules
    cannot turn into a check stays a note: shown, reported "not verified", never passed."""
    parsed = derive_contract(f"Write `{output}`: {text.strip()}", [output], inputs)
    typed = [r for r in parsed.requirements if r.kind not in WHOLE_REQUEST_KINDS]
    for r in typed:  # the user's words decide: without "beside them" a geometry column may stay
        if r.params.pop("said_words", None):  # "has the columns a, b, c" asks for them, not for them only
            r.text = r.text.replace(UNSAID_CLAUSE, "")
        if r.kind == "columns" and "beside them" not in text and r.params.pop("no_stray", None):
            r.text = r.text.replace(STRAY_CLAUSE, "")
    if not typed:
        return [Requirement(id=req_id, output=output, text=text.strip(), kind="note", origin="user")]
    return [
        r.model_copy(
            update={
                "id": f"{req_id}{'abcdefgh'[i]}" if len(typed) > 1 else req_id,
                "origin": "user",
                "text": text.strip() if len(typed) == 1 else r.text,
            }
        )
        for i, r in enumerate(typed[:8])
    ]


def apply_edits(contract: Contract, edits: list[RequirementEdit], inputs: dict | None = None) -> Contract:
    """The contract after the user's review: kept, reworded, added; what is not listed is deleted."""
    outputs = {o.path for o in contract.outputs}
    by_id = {r.id: r for r in contract.requirements}
    kept: list[Requirement] = []
    for n, edit in enumerate(edits, 1):
        if edit.output not in outputs:
            raise ValueError(f"{edit.output!r} is not an output of this run ({', '.join(sorted(outputs))})")
        old = by_id.get(edit.id)
        if old is not None and old.output == edit.output and old.text == edit.text.strip():
            kept.append(old)
        else:
            kept += user_requirement(edit.output, edit.text, inputs, req_id=f"u{n}")
    return contract.model_copy(update={"requirements": kept})
