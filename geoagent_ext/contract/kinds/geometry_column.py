"""A GeoParquet's geometry column is named ``geometry``: the format keeps the name it was written
with, and readers of the file (``gdf['geometry']``, a join, a SQL query) look for that one unless told
another."""

import re

from ..formats import GEOPARQUET_WORD, file_format
from ._kind import GEOMETRY_MENDS, Builder, Params, RequestView, RequirementKind


def _kind_geometry_column_named(params, data, sources):
    name = data.geometry.name
    return name == "geometry", f"the geometry column is `{name}`"


def _renamed(p, site):
    """The active geometry renamed ``geometry``, a stale geometry column of that name dropped first
    (a column of another kind named so is left for the model)."""
    return [
        "if _mend.geometry.name != 'geometry' and "
        "('geometry' not in _mend.columns or str(_mend['geometry'].dtype) == 'geometry'):",
        "    _mend = _mend.drop(columns=[c for c in ['geometry'] if c in _mend.columns]).rename_geometry('geometry')",
    ]


# A geometry column the request names: "the geometry column `geom`", "`shape` as its geometry column"
_NAMED_GEOMETRY = re.compile(
    r"geometry\s+column\s+(?:(?:named|called)\s+)?[`'\"](\w+)[`'\"]|[`'\"](\w+)[`'\"]\s+as\s+(?:the|its)\s+geometry",
    re.IGNORECASE,
)


def read_geometry_column(request: RequestView, b: Builder) -> None:
    """Each GeoParquet output (``.geoparquet``, or ``.parquet`` its sentence calls GeoParquet) has its
    geometry in ``geometry``, read from the sentence that names the file; none when the request
    names another geometry column."""
    named = {n for m in _NAMED_GEOMETRY.finditer(request.text) for n in m.groups() if n}
    if named - {"geometry"}:
        return
    for out in request.outputs:
        said = next((s for s, outs, _ in request.sentences if out in outs), None)
        fmt = file_format(out)
        if said is None or not (
            fmt == "geoparquet" or fmt == "parquet" and GEOPARQUET_WORD.search(request.affirmed(said))
        ):
            continue
        b.reading(said, True)
        b.add(out, "geometry_column_named", "its geometry column is named `geometry`")


GEOMETRY_COLUMN_NAMED = RequirementKind(
    name="geometry_column_named",
    params=Params,
    check=_kind_geometry_column_named,
    geometry=True,
    mend=_renamed,
    mend_order=GEOMETRY_MENDS + 1,
    advice="name the geometry column `geometry` before writing: gdf = gdf.rename_geometry('geometry')",
    read=read_geometry_column,
)
