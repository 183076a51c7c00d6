"""Rows in the order of the input they come from ("in the same order as the input file")."""

import posixpath
import re

from ..checker import _contract_input, _contract_key
from ._kind import Builder, Params, RequestView, RequirementKind


class InputOrderParams(Params):
    input: str  # the input file whose order the rows keep
    key: str  # a column both carry that says which input row a row comes from


def _kind_input_order(params, data, sources):
    key = params["key"]
    src = _contract_input(params["input"], sources)
    if key not in getattr(data, "columns", []) or key not in getattr(src, "columns", []):
        return False, f"`{key}` is not in both the file and `{params['input']}`"
    positions = {}
    for i, value in enumerate(src[key].tolist()):
        positions.setdefault(_contract_key(value), []).append(i)
    last = -1  # the input row of the row above; parts of one input row (exploded) may follow each other
    for row, value in enumerate(data[key].tolist()):
        later = [p for p in positions.get(_contract_key(value), []) if p >= last]
        if not later:
            where = "is not in the input" if _contract_key(value) not in positions else "comes earlier in the input"
            return False, f"row {row}: `{key}` = {value!r} {where} (the rows are not in the input's order)"
        last = min(later)
    return True, f"{len(data)} rows in the order of `{params['input']}` by `{key}`"


# "in the same order as the input file", "keep the original order", "in input order"
_SAME_ORDER = re.compile(
    r"\bsame\s+(?:row\s+)?order\b(?:\s+as\s+(?:in\s+)?(?:the\s+)?`?(?P<file>[\w./-]+)`?)?|"
    r"\b(?:keep|keeping|preserv\w*|retain\w*)\s+(?:the\s+)?(?:original|input|source|file's|existing)\s+(?:row\s+)?order\b|"
    r"\bin\s+(?:the\s+)?(?:input|original|source|file)(?:'s)?\s+order\b",
    re.IGNORECASE,
)


def read_input_order(request: RequestView, b: Builder) -> None:
    """Rows in the order of the input they come from, checked by an id column the output and that
    input both carry (the one input the sentence or request names by its rows)."""
    base = posixpath.basename
    with_rows = [p for p, facts in request.inputs.items() if facts.get("columns")]
    for sentence, outs, sure in request.sentences:
        m = _SAME_ORDER.search(request.affirmed(sentence))
        if not m or not sure:
            continue
        said = m.groupdict().get("file") or ""
        files = {base(f) for f in request.files(sentence)}
        named = [p for p in with_rows if base(p) in files or base(p) == base(said)]
        source = named[0] if len(named) == 1 else (with_rows[0] if len(with_rows) == 1 else None)
        if source is None:
            continue
        b.reading(sentence, True)
        for out in outs:
            carried = b.columns_of(out)
            keys = [n for n in carried if n in request.inputs[source]["columns"] and re.search(r"(?:^|_)id$", n, re.I)]
            if keys:
                b.add(
                    out,
                    "input_order",
                    f"rows are in the order of `{source}` (by `{keys[0]}`)",
                    input=source,
                    key=keys[0],
                )


INPUT_ORDER = RequirementKind(
    name="input_order",
    params=InputOrderParams,
    check=_kind_input_order,
    advice=(
        "keep the input's row order: no sort_values; after a merge or sjoin that reorders rows, put them "
        "back in the input's order (out = out.set_index(KEY).loc[src[KEY]].reset_index())"
    ),
    read=read_input_order,
)
