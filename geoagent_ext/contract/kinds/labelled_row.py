"""A row the request asks for by its label: "then one last row with district = "total" for the whole
layer", "add a final row labelled 'All' in zone": the table has a row whose column holds that
label (besides the rows of the groups)."""

from __future__ import annotations

import re

from ._kind import Builder, ColumnParams, RequestView, RequirementKind


class LabelledRowParams(ColumnParams):
    label: str  # the text the row holds in the column


def _kind_labelled_row(params, data, value, sources):
    """(passed, observed): some row's value in the column is the label (case and spaces aside)."""
    name, label = params["name"], str(params["label"]).strip().lower()
    items = value.tolist() if hasattr(value, "tolist") else value if isinstance(value, list) else [value]
    found = any(str(v).strip().lower() == label for v in items if v is not None)
    seen = f"a row with `{name}` = {params['label']!r}" if found else f"no row has `{name}` = {params['label']!r}"
    return found, seen + f" ({len(items)} rows)"


_QUOTE = "[\"'\u201c\u201d\u2018\u2019]"
# "one last row with zone = "all"", "a final row labelled 'Total' in district", "an extra row whose ward is 'ALL'"
_LABELLED_ROW = re.compile(
    r"\b(?:last|final|extra|additional|closing|summary|totals?)\s+(?:row|line|record)\b[^.;\n]{0,60}?"
    r"(?:(?:with|where|whose)\s+`?(?P<col>[A-Za-z_]\w*)`?\s*(?:=|\bis\b|\bset\s+to\b|\bas\b)\s*"
    rf"|(?:labell?ed|named|called)\s+){_QUOTE}(?P<label>[^\"'\u201c\u201d\u2018\u2019\n]{{1,30}}){_QUOTE}"
    r"(?:\s+(?:in|under)\s+`?(?P<col2>[A-Za-z_]\w*)`?)?",
    re.IGNORECASE,
)


def read_labelled_row(request: RequestView, b: Builder) -> None:
    """A last (extra, total) row the request labels in a column of the output (one it lists): a row
    with that label."""
    for sentence, outs, sure in request.sentences:
        for m in _LABELLED_ROW.finditer(sentence):
            column = m.group("col") or m.group("col2")
            for out in outs:
                columns = b.columns_of(out)
                if column is None and columns:
                    column = columns[0]  # "a final row labelled 'Total'": the first column names the rows
                if column not in columns:
                    continue
                b.reading(sentence, sure and bool(m.group("col") or m.group("col2"))).add(
                    out,
                    "labelled_row",
                    f"a row with `{column}` = {m.group('label')!r} (the request's {m.group(0).split()[0].lower()} row)",
                    name=column,
                    label=m.group("label"),
                )


LABELLED_ROW = RequirementKind(
    name="labelled_row",
    params=LabelledRowParams,
    check=_kind_labelled_row,
    reads="column",
    advice="append the row the request labels (e.g. the whole layer's totals) with that label in the column",
    read=read_labelled_row,
)
