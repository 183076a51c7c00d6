"""As many rows as an input file has features, or as it has features of one category or of one
geometry family ("only the line features" of a file that mixes points, lines and polygons)."""

import re

from ..checker import _contract_input
from ..formats import layer_kinds
from ._kind import Builder, Params, RequestView, RequirementKind


class RowsAsInputParams(Params):
    input: str
    rows: int  # the input's features, counted when the contract is derived
    name: str | None = None  # in a JSON document, the rows are the records that hold this key


class RowsAsCategoryParams(Params):
    input: str
    column: str  # the input's category column
    value: str  # the category whose features are all listed
    name: str | None = None  # in a JSON document, the rows are the records that hold this key


def _kind_rows_as_category(params, data, sources):
    source = _contract_input(params["input"], sources)
    if params["column"] not in source.columns:
        return False, f"`{params['input']}` has no column `{params['column']}`"
    want = int((source[params["column"]].astype(str) == params["value"]).sum())
    n = len(data)
    return n == want, f"{n} rows (`{params['input']}` has {want} with {params['column']} = {params['value']!r})"


class RowsOfGeometryTypeParams(Params):
    input: str
    family: str  # "Point", "LineString" or "Polygon": its single and multi-part features count


def _kind_rows_of_geometry_type(params, data, sources):
    source = _contract_input(params["input"], sources)
    family = params["family"]
    want = int(source.geometry.geom_type.isin([family, "Multi" + family]).sum())
    n = len(data)
    return n == want, f"{n} rows (`{params['input']}` has {want} {family} features)"


_FAMILY = {"point": "Point", "line": "LineString", "linestring": "LineString", "polygon": "Polygon"}
# "I only want the line features", "only the polygons": one geometry family of a mixed input
_ONLY_FAMILY = re.compile(
    r"\bonly\s+(?:want|need|keep|take|use|export|list)?\s*(?:the\s+)?(?P<family>point|line|linestring|polygon)"
    r"(?:s\b|\s+(?:features|geometries|records|rows)\b)",
    re.IGNORECASE,
)
# beside it, words that select fewer of those features
_MORE_SELECTION = re.compile(
    r"\b(filter\w*|select\w*|subset|sample\w*|top|largest|smallest|longest|shortest|dedup\w*|duplicat\w*|"
    r"clip\w*|dissolv\w*|aggregat\w*|merg\w*|group\w*|per|whose|where|except|excluding|without|longer|shorter)\b",
    re.IGNORECASE,
)


def read_rows_of_geometry_type(request: RequestView, b: Builder) -> None:
    """One row per feature of the geometry family a request keeps of its one mixed input."""
    mixed = [p for p, f in request.inputs.items() if f.get("rows") is not None and len(_families(f)) > 1]
    if len(mixed) != 1 or _MORE_SELECTION.search(re.sub(r"[\w./-]+\.\w+", " ", request.text)):
        return
    for sentence, outs, sure in request.sentences:
        m = _ONLY_FAMILY.search(request.affirmed(sentence))
        family = _FAMILY[m.group("family").lower()] if m else None
        if not sure or family not in _families(request.inputs[mixed[0]]):
            continue
        b.reading(sentence, True)
        for out in outs:
            b.add(
                out,
                "rows_of_geometry_type",
                f"one row per {family} feature of `{mixed[0]}`",
                input=mixed[0],
                family=family,
            )
        return


def _families(facts: dict) -> set[str]:
    return {k.removeprefix("Multi") for k in layer_kinds(facts)}


def _kind_rows_as_input(params, data, sources):
    n = len(data)
    return n == params["rows"], f"{n} rows (the input has {params['rows']})"


ROWS_AS_INPUT = RequirementKind(
    name="rows_as_input",
    params=RowsAsInputParams,
    check=_kind_rows_as_input,
    advice=(
        "one row per input feature: do not filter, explode or inner-join away rows "
        "(use how='left' and keep every input row)"
    ),
)
ROWS_AS_CATEGORY = RequirementKind(
    name="rows_as_category",
    params=RowsAsCategoryParams,
    check=_kind_rows_as_category,
    advice=(
        "one row per input feature of the category the request lists, those with nothing to count too "
        "(0): start from all of them and left-join the results (how='left', fillna(0))"
    ),
)
ROWS_OF_GEOMETRY_TYPE = RequirementKind(
    name="rows_of_geometry_type",
    params=RowsOfGeometryTypeParams,
    check=_kind_rows_of_geometry_type,
    advice=(
        "keep exactly the features of the geometry type the request asks for, every one of them: "
        "gdf[gdf.geom_type.isin(['X', 'MultiX'])]"
    ),
    read=read_rows_of_geometry_type,
)
