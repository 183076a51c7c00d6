"""Requirements the model reads in the request, kept only when the rules can check them and
the request backs them.

The rules (``rules/``) parse what a request says explicitly. The model may see more ("the
table lists each district's park count, largest first"): it proposes sentences, and each goes
through the same rules as a user's typed requirement. A proposal is kept only when the rules
turn it into a check of a kind the request itself decides (not one about the input data), every
column, code, type and value it names is written in the request, and it neither repeats nor
contradicts a requirement already derived. Everything else is dropped with the reason, so a
model that answers nonsense adds nothing."""

from __future__ import annotations

import re

from .model import Contract, Requirement
from .rules import WHOLE_REQUEST_KINDS, derive_contract
from .rules.words import _SENTENCE

# Kinds a sentence about the deliverable may state, each bound to a name, code or value the
# request writes. Left out: what only the input data decides (rows_as_input, values_from_input,
# geometry_unchanged, the defect kinds); what the rules read from the sentence that names the
# output and a model easily moves onto it from an input ("the district polygons" is not "every
# output feature is a Polygon"; nor is every column of a table unique or never empty); what the
# rules read from fixed phrases only (a metric CRS "for the region", templates); existence.
PROPOSABLE = frozenset(
    {
        "columns",
        "layers",
        "crs_epsg",
        "lonlat",
        "bbox",
        "integer",
        "numeric",
        "dtype",
        "non_negative",
        "sorted",
        "values_in",
    }
)
MAX_PROPOSALS = 12


def proposals_wanted(setting: bool | None, model: str) -> bool:
    """Whether a run asks its model for proposals: only when the setting says so. On the contract
    audit (``benchmarks/contract_audit.py --reader proposals``) the proposals added requirements the
    correct deliverable fails on 6 of 104 requests (layer names and nested keys read as columns),
    and a wrong requirement costs more than a missing one; the grounded reading
    (``contract/reading.py``) stayed sound on all of them and is what a run uses by default."""
    return bool(setting)


# What a kind asks of the request beyond the names it carries: a sentence that writes the column
# and a word of that meaning ("the busiest district first" for a sort, "as whole numbers" for
# integers). Small models otherwise "sort by" any column the request names.
_CUE = {
    "sorted": re.compile(
        r"\b(sort|order|rank|descending|ascending|largest|smallest|highest|lowest|biggest|"
        r"busiest|top|most|least|first)\w*",
        re.IGNORECASE,
    ),
    "integer": re.compile(r"\b(integer|int\d*|whole|count)\w*", re.IGNORECASE),
    "numeric": re.compile(r"\b(numeric|numbers?|float\w*|double|decimal)\b", re.IGNORECASE),
}
_DESCENDING = re.compile(r"\b(descending|largest|highest|biggest|busiest|top|most|greatest)\b", re.IGNORECASE)
_ASCENDING = re.compile(r"\b(ascending|smallest|lowest|least|fewest)\b", re.IGNORECASE)

_LINE = re.compile(r"^\s*(?:[-*•]|\d+[.)])?\s*`?([\w./-]+\.[A-Za-z]\w*)`?\s*[:—–-]\s*(.+?)\s*$")


def parse_proposals(text: str, outputs: list[str]) -> list[tuple[str, str]]:
    """(output, sentence) per line of the model's answer: "`out.csv`: sorted by `x` descending".
    With one output, a bare sentence ("- has the column `n`") is about it."""
    found: list[tuple[str, str]] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("```", "#")) or re.fullmatch(r"\W*none\W*", line, re.IGNORECASE):
            continue
        m = _LINE.match(line)
        if m:
            found.append((m.group(1), m.group(2)))
        elif len(outputs) == 1 and re.match(r"^\s*(?:[-*•]|\d+[.)])\s+\S", line):
            found.append((outputs[0], re.sub(r"^\s*(?:[-*•]|\d+[.)])\s+", "", line)))
    return found[:MAX_PROPOSALS]


def _rules_read(output: str, sentence: str, inputs: dict[str, dict] | None) -> list[Requirement]:
    """What the rules make of one sentence about ``output`` (their own wording, not the model's)."""
    # The inputs' columns and rows, not their defects: those the rules add whatever the sentence says.
    facts = {path: {k: v for k, v in f.items() if k != "defects"} for path, f in (inputs or {}).items()}
    parsed = derive_contract(f"Write `{output}`: {sentence.strip()}", [output], facts)
    return [r for r in parsed.requirements if r.kind not in WHOLE_REQUEST_KINDS]


def _words(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


def _in_request(word: str, request: str) -> bool:
    return re.search(rf"(?<![\w]){re.escape(word)}(?![\w])", request, re.IGNORECASE) is not None


def _ungrounded(req: Requirement, request: str) -> str:
    """What the requirement names that the request does not write ('' when all of it is there)."""
    p = req.params
    words = list(p.get("names") or []) + ([p["name"]] if p.get("name") else [])
    words += [str(v) for v in p.get("allowed") or []] if req.kind == "values_in" else []
    if req.kind == "crs_epsg":
        words.append(str(p.get("epsg", "")))
    if req.kind == "dtype":
        words.append(str(p.get("dtype", "")))
    missing = ", ".join(w for w in words if not _in_request(w, request))
    if missing or req.kind not in _CUE:
        return missing
    cued = [s for s in _SENTENCE.split(request) if _CUE[req.kind].search(s) and _in_request(p.get("name", ""), s)]
    if not cued:
        return f"{req.kind.replace('_', ' ')} of `{p.get('name', '')}`"
    if req.kind == "sorted":
        down, up = any(_DESCENDING.search(s) for s in cued), any(_ASCENDING.search(s) for s in cued)
        if down != up and down != p.get("descending"):
            return f"`{p.get('name')}` {'descending' if p.get('descending') else 'ascending'}"
    return ""


def _same_subject(a: Requirement, b: Requirement) -> bool:
    return (
        a.output == b.output
        and a.kind == b.kind
        and a.params.get("name") == b.params.get("name")
        and a.kind not in ("columns", "layers")
    )


def _bare(params: dict) -> dict:
    return {k: v for k, v in params.items() if k != "provenance"}


def _contradiction(req: Requirement, contract: Contract) -> Requirement | None:
    """A derived requirement on the same thing that wants something else (another EPSG code,
    the other sort order, other allowed values or type)."""
    return next(
        (old for old in contract.requirements if _same_subject(req, old) and _bare(old.params) != _bare(req.params)),
        None,
    )


def accept_proposals(
    proposals: list[tuple[str, str]], request: str, contract: Contract, inputs: dict[str, dict] | None = None
) -> tuple[list[Requirement], list[tuple[str, str]]]:
    """(requirements to add, [(proposal, why it was dropped)]). Ids ``m1``, ``m2``...; origin "model"."""
    outputs = {o.path for o in contract.outputs}
    accepted: list[Requirement] = []
    dropped: list[tuple[str, str]] = []
    for output, sentence in proposals:
        said = f"{output}: {sentence}"
        if output not in outputs:
            dropped.append((said, f"{output} is not an output of this request"))
            continue
        stated = {_words(r.text) for r in contract.requirements + accepted if r.output == output}
        if _words(sentence) in stated:
            continue  # the model repeating a requirement it was shown
        read = _rules_read(output, sentence, inputs)
        if not read:
            dropped.append((said, "not checkable"))
        for req in read:
            known = contract.requirements + accepted
            if req.kind in ("columns", "layers"):
                have = {n for r in known if r.output == output and r.kind == req.kind for n in r.params["names"]}
                values = {str(v) for r in known if r.kind == "values_in" for v in r.params["allowed"]}
                new = [n for n in req.params["names"] if n not in have]
                if set(new) & values:  # "a `source` attribute of `a`, `b` or `c`" misread as columns
                    dropped.append(
                        (said, f"{', '.join(sorted(set(new) & values))}: values the request allows, not columns")
                    )
                    continue
                if not new:
                    continue  # already required
                label = "layers" if req.kind == "layers" else "columns"
                req = next(
                    r
                    for r in _rules_read(output, f"with the {label} " + ", ".join(f"`{n}`" for n in new), inputs)
                    if r.kind == req.kind
                )
            elif any(r.output == output and r.kind == req.kind and _bare(r.params) == _bare(req.params) for r in known):
                continue  # already required
            if req.kind not in PROPOSABLE:
                dropped.append((said, f"{req.kind} is decided by the rules, not proposed"))
                continue
            missing = _ungrounded(req, request)
            if missing:
                dropped.append((said, f"the request does not say {missing}"))
                continue
            clash = _contradiction(req, contract)
            if clash is not None:
                dropped.append((said, f"contradicts “{clash.text}”"))
                continue
            accepted.append(req.model_copy(update={"id": f"m{len(accepted) + 1}", "origin": "model"}))
    return accepted, list(dict.fromkeys(dropped))
