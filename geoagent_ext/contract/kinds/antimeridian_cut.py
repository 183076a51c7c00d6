"""No line or ring jumps over +-180 in one segment (RFC 7946 section 3.1.9: cut it there)."""

from ..checker import _contract_crs_label, _contract_uncut_crossings
from ._kind import GEOMETRY_MENDS, Params, RequirementKind


class AntimeridianCutParams(Params):
    lonlat_only: bool = False  # a projected file passes: there lines run on across +-180


def _kind_antimeridian_cut(params, data, sources):
    if params.get("lonlat_only") and data.crs is not None and data.crs.is_projected:
        return True, f"{_contract_crs_label(data.crs)}: in a projected CRS lines run on across +-180"
    rows = _contract_uncut_crossings(data)
    return not rows, (
        f"{len(rows)} of {len(data)} features still cross the antimeridian in one segment "
        f"(rows {rows[:5]}), drawn across the globe"
        if rows
        else "no segment crosses the antimeridian"
    )


def _cut(p, site):
    """GDAL's RFC 7946 writer cuts at +-180 in lon/lat; then back to the file's CRS."""
    return [
        "import os, tempfile",
        "_crs, _cut = _mend.crs, os.path.join(tempfile.mkdtemp(), 'cut.geojson')",
        "_mend.to_crs(4326).to_file(_cut, driver='GeoJSON', RFC7946='YES')",
        "_mend = gpd.read_file(_cut).to_crs(_crs)",
    ]


ANTIMERIDIAN_CUT = RequirementKind(
    name="antimeridian_cut",
    params=AntimeridianCutParams,
    check=_kind_antimeridian_cut,
    geometry=True,
    mend=_cut,
    mend_order=GEOMETRY_MENDS + 7,
    advise_up_front=True,
    advice=(
        "cut the crossing features while they are still in EPSG:4326: write them with "
        "gdf.to_file('cut.geojson', driver='GeoJSON', RFC7946='YES') (GDAL splits them at ±180° "
        "into Multi* parts, one feature each), read that file back with gpd.read_file, and only "
        "then reproject, measure and write"
    ),
)
