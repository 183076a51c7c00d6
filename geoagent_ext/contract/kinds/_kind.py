"""What a requirement kind is: everything the contract knows about one kind of requirement, in one
object, so that a kind is added by one module that defines one.

Its in-kernel check, and the functions of its module the check calls (``helpers``), are plain
functions shipped as SOURCE into the user's kernel (the registry copies their text into the
helper, see ``kinds/__init__.py``), so they follow the helper's rules: the standard library only
at import time (pandas, geopandas... imported inside them), Python 3.8 syntax, no
``geoagent_ext`` names except the shared checker's ``_contract_*`` functions (the module imports
them from ``contract.checker`` so they resolve here too). A check answers ``(passed, observed)``:
what was seen, in words a repair prompt can use. Names are one namespace in the kernel: a
kind's own functions are named ``_contract_*`` as the checker's are, and its check ``_kind_<name>``.

A kind's ``read`` (optional) is what in a request's words asks for it. It runs here, not in the
kernel: the derivation (``contract/rules/derive.py``) calls it for every kind that has one, with a
``RequestView`` of the request and the ``Builder`` the requirements are added to.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict

# Where a kind's mend lines go among a file's mends (lower first): geometry first, then values
# computed over the rows (counts before the measures and rates over them), then table edits (a
# cast before the sort that reads it).
GEOMETRY_MENDS, VALUE_MENDS, TABLE_MENDS = 100, 200, 300


class Params(BaseModel):
    """A kind's params. An unknown param is refused: a rule that builds a wrong one fails loudly."""

    model_config = ConfigDict(extra="forbid")

    # {input file: its layer} where the request names one layer of an input of several: the check
    # reads that layer of the file, not its first (``checker._contract_input``)
    input_layers: dict[str, str] | None = None


class ColumnParams(Params):
    """Params of a requirement on one named value: a table's column or a JSON document's key."""

    name: str
    if_present: bool = False  # it binds only a file that has the column (a requirement read from an input's defect)


@dataclass(frozen=True)
class MendSite:
    """Where a mend's lines run: the file's format, whether it is read as a GeoDataFrame, the
    columns the contract lists for it, and the (kind, params) of its requirements on the same name."""

    fmt: str
    spatial: bool
    columns: tuple[str, ...] = ()
    same_name: tuple[tuple[str, dict], ...] = ()


class Builder(Protocol):
    """Where a reading adds requirements (``contract/rules/builder.py``'s builder)."""

    def reading(self, said: str, sure: bool = True) -> Builder:
        """Set the request's words the next requirements are read from, and whether surely; an
        ``add`` without words adds nothing."""
        ...

    def add(self, output: str, kind: str, text: str, **params: Any) -> None:
        """A requirement of ``kind`` on ``output`` (said again: kept once; a second column list joins the first)."""
        ...

    def columns_of(self, output: str) -> list[str]:
        """The columns (or keys) the requirements so far ask of ``output``, in their order."""
        ...


@dataclass(frozen=True)
class RequestView:
    """A request as the readings see it, split and attributed once by the derivation."""

    text: str
    outputs: Sequence[str]  # the files the run must write
    inputs: dict[str, dict]  # path -> the facts found of it ({"rows", "columns", "values", "epsg", ...})
    sentences: Sequence[tuple[str, list[str], bool]]  # each sentence, the outputs it speaks of, whether surely
    files: Callable[[str], list[str]]  # the file names a text names
    affirmed: Callable[[str], str]  # a sentence's clauses that negate nothing

    def lonlat_place(self) -> tuple[list[float], list[str]] | None:
        """([w, s, e, n] in lon/lat, the inputs it is around): the inputs with a known place that the
        request names (else all of them); None when none is known or one crosses the antimeridian."""
        named = {f.rsplit("/", 1)[-1] for f in self.files(self.text)}
        spatial = [p for p, facts in self.inputs.items() if facts.get("bounds_wgs84")]
        chosen = [p for p in spatial if p.rsplit("/", 1)[-1] in named] or spatial
        boxes = [self.inputs[p]["bounds_wgs84"] for p in chosen]
        if not boxes or any(w > e for w, _, e, _ in boxes):
            return None
        box = [min(x[0] for x in boxes), min(x[1] for x in boxes), max(x[2] for x in boxes), max(x[3] for x in boxes)]
        return box, chosen


Reading = Callable[[RequestView, Builder], None]


# What the checker hands a check:
#   "file":   check(params, path, fmt, layers): the path, its format and {layer: data} read from it;
#   "table":  check(params, data, sources): one layer, or the part of a JSON document that holds
#             params["name"]; ``sources`` caches the input files read (``_contract_input``);
#   "column": check(params, data, value, sources): as "table", and the named column or key's value,
#             found (a missing one fails, or passes with ``if_present``, before the check runs).
Reads = Literal["file", "table", "column"]


@dataclass(frozen=True)
class RequirementKind:
    name: str
    params: type[BaseModel]  # what each param means, validated when a requirement is made
    advice: str  # one repair line; COLUMN, GROUP, CODE, DIST... are filled from the params (advice._filled)
    check: Callable[..., tuple[bool, str]] | None  # the in-kernel check; None: shown, never checked ("note")
    helpers: tuple[Callable, ...] = ()  # the module's own in-kernel functions its check calls, shipped with it
    reads: Reads = "table"
    geometry: bool = (
        False  # needs the file's geometries: "no geometry in the file" fails it, and it mends only a GeoDataFrame
    )
    mend: Callable[[dict[str, Any], MendSite], list[str]] | None = (
        None  # lines that make ``_mend`` meet it ([]: not here)
    )
    mend_order: int = TABLE_MENDS
    mends_json: bool = False  # its mend edits a JSON document (``_mend`` a dict), not a frame
    advise_up_front: bool = (
        False  # the coder is told how before its first attempt (a defect the request did not spell out)
    )
    computed_by_mend: bool = False  # its values are computed on the written file by the mend, not by the coder
    # The columns of a requirement that its mend computes from the data whatever the coder wrote (the
    # coder may leave them out); None: ``params["name"]`` when ``computed_by_mend``, else none.
    mended_columns: Callable[[dict[str, Any]], list[str]] | None = None
    read: Reading | None = None  # what in a request asks for it; None: other readings (contract/rules/) add it

    @property
    def check_name(self) -> str:
        """The check's name in the helper's namespace (one namespace for every part)."""
        return f"_kind_{self.name}"
