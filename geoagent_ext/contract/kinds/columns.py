"""The file has the columns (tables, layers) or top-level keys (JSON) the request names, and no
geometry or row-index column beside them when the request lists a CSV's columns (nor any column
the request does not name, when it lists them all); an attribute table the request says to leave
exactly as it is gains no column."""

import re

from ..checker import _contract_holder, _contract_input
from ..formats import SPATIAL, file_format
from ._kind import TABLE_MENDS, Builder, Params, RequestView, RequirementKind
from ._mending import carried


class NoNewColumnsParams(Params):
    input: str  # the file whose attribute table the output keeps as it is


class ColumnsParams(Params):
    names: list[str]
    no_stray: list[str] | bool = False  # the geometry/index column names not allowed beside them
    said_words: list[str] = []  # set when the request listed every column: other columns must be words of it
    provenance: dict[str, str] = {}  # where each column comes from ("from `parcels.gpkg`", "computed")


def _contract_stray_column(name, stray):
    """A geometry or row-index column a table got by writing a (Geo)DataFrame whole: one of
    ``stray`` (the contract's list, ``rules.columns.STRAY_COLUMNS``) or a written index ("Unnamed: 0")."""
    lower = str(name).lower()
    return lower in [str(n).lower() for n in stray] or lower.startswith("unnamed:")


def _kind_columns(params, data, sources):
    have = set(map(str, data)) if isinstance(data, dict) else set(map(str, data.columns))
    if hasattr(data, "geometry") and not isinstance(data, dict):
        have.add("geometry")
    missing = [n for n in params.get("names", []) if n not in have and _contract_holder(data, n) is None]
    stray = params.get("no_stray") if isinstance(params.get("no_stray"), list) else []
    extra = (
        [c for c in sorted(have - set(params.get("names", []))) if _contract_stray_column(c, stray)]
        if params.get("no_stray")
        else []
    )
    geometry = getattr(getattr(data, "geometry", None), "name", "geometry") if not isinstance(data, dict) else ""
    unsaid = _contract_unsaid_columns(have, params, geometry)
    said = (
        ([f"missing {missing}; it has {sorted(have)[:15]}"] if missing else [])
        + ([f"also has {extra[:10]}, a geometry or row index not asked for"] if extra else [])
        + ([f"also has {unsaid[:10]}, which the request neither lists nor names"] if unsaid else [])
    )
    return not said, "; ".join(said) or "all present"


def _contract_unsaid_columns(have, params, geometry="geometry"):
    """Columns beyond a closed list the request gave (``said_words`` set) that are not words of the
    request either: what a join or a scratch computation left behind. A spatial file's geometry
    column (``geometry``: its name) is not one."""
    words = set(params.get("said_words") or [])
    if not words:
        return []
    listed = set(map(str, params.get("names") or []))
    own = {"geometry", geometry}
    return [c for c in sorted(map(str, have)) if c not in listed and c.lower() not in words and c not in own]


def _columns_mend(p, site):
    """Columns an input holds carried to the rows; the stray columns dropped (the listed ones first,
    in their order): in a table, geometry or row-index columns and, after a closed list, the columns
    the request does not name; in a spatial file only the latter, its geometry column kept."""
    if not (p.get("said_words") or (p.get("no_stray") and not site.spatial)):
        return carried(p)
    names = list(map(str, p.get("names") or []))
    stray = [str(n).lower() for n in p["no_stray"]] if isinstance(p.get("no_stray"), list) else []
    unsaid = f" or str(c).lower() not in {sorted(p['said_words'])!r}" if p.get("said_words") else ""
    own = " or c == _mend.geometry.name" if site.spatial else ""
    return carried(p) + [
        f"_mend = _mend[[c for c in {names!r} if c in _mend.columns] + [c for c in _mend.columns if c not in "
        f"{names!r} and (not (str(c).lower() in {stray!r} or str(c).lower().startswith('unnamed:'){unsaid}){own})]]"
    ]


COLUMNS = RequirementKind(
    helpers=(_contract_stray_column, _contract_unsaid_columns),
    name="columns",
    params=ColumnsParams,
    check=_kind_columns,
    mend=_columns_mend,
    mend_order=TABLE_MENDS,
    advice=(
        "add the missing columns before writing; a column that is not in the input must be computed "
        "(from geometry.bounds, .area/.length in a metric CRS, a spatial join with the other layer, "
        "or a rename of an existing column)"
    ),
)


def _kind_no_new_columns(params, data, sources):
    source = _contract_input(params["input"], sources)
    allowed = set(map(str, source.columns)) | {"geometry"}
    added = [c for c in map(str, data.columns) if c not in allowed]
    return not added, f"columns not in `{params['input']}`: {added[:10]}" if added else "no column added"


# "leave the attribute table exactly as it is", "same columns": the table gains no column either
_EXACT_TABLE = re.compile(
    r"\b(?:attribute\s+table|attributes|columns|fields)\b[^.;]{0,30}?\bexactly\s+as\s+(?:it|they)\s+(?:is|are|was|were)\b|"
    r"\bsame\s+columns\b(?!\s+(?:as|plus)\b)|\bno\s+(?:new|other|extra|added)\s+(?:columns|fields|attributes)\b",
    re.IGNORECASE,
)


def read_no_new_columns(request: RequestView, b: Builder) -> None:
    """A table said to stay exactly as it is, of the one input it is made from, gains no column:
    only when every column the request asks of the output is one of that input's."""
    tables = [p for p, facts in request.inputs.items() if facts.get("columns")]
    if len(tables) != 1 or len(request.outputs) != 1:
        return
    out, columns = request.outputs[0], set(request.inputs[tables[0]]["columns"])
    if file_format(out) not in SPATIAL | {"csv", "parquet"} or not set(b.columns_of(out)) <= columns:
        return
    for sentence, outs, sure in request.sentences:
        if sure and out in outs and _EXACT_TABLE.search(sentence):
            b.reading(sentence, True)
            b.add(out, "no_new_columns", f"no column beside those of `{tables[0]}`", input=tables[0])
            return


NO_NEW_COLUMNS = RequirementKind(
    name="no_new_columns",
    params=NoNewColumnsParams,
    check=_kind_no_new_columns,
    advice=(
        "the request keeps the attribute table as it is: drop the columns you added (helper columns too) before writing"
    ),
    read=read_no_new_columns,
)
