"""No attribute column repeats the geometry as WKT text."""

from ..checker import _contract_short
from ._kind import GEOMETRY_MENDS, Params, RequirementKind


class GeometryOnceParams(Params):
    name: str | None = None  # the WKT column the mend drops


def _kind_geometry_once(params, data, sources):
    geometry_name = getattr(data.geometry, "name", "geometry")
    repeats = []
    for column in data.columns:
        values = data[column].dropna() if column != geometry_name else ()
        first = values.iloc[0] if len(values) else None
        if is_wkt_text(first):  # noqa: F821 - the helper's _15_geocolumns part
            repeats.append(f"`{column}` ({_contract_short(first, 40)})")
    return not repeats, (
        f"{', '.join(repeats)} repeats the geometry as WKT text beside the geometry column"
        if repeats
        else "the geometry is stored once, in the geometry column"
    )


GEOMETRY_ONCE = RequirementKind(
    name="geometry_once",
    params=GeometryOnceParams,
    check=_kind_geometry_once,
    geometry=True,
    mend=lambda p, site: (
        [f"_mend = _mend.drop(columns=[{str(p['name'])!r}], errors='ignore')"] if p.get("name") else []
    ),
    mend_order=GEOMETRY_MENDS + 12,
    advise_up_front=True,
    advice="drop the text column once the geometry is built from it: gdf = gdf.drop(columns=[COLUMN]) before writing",
)
