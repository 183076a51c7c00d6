"""How to meet a failed requirement: one concrete line per kind for the repair prompt.

The repair sees the requirement, what the file showed, and this line; small models fix a
named defect far more often than an unnamed one ("the result looks wrong")."""

from __future__ import annotations

import re

from .formats import file_format
from .kinds import KINDS
from .mend import mend_code
from .model import Contract, Requirement

# One line per kind, from the registry: how to meet it.
ADVICE = {name: kind.advice for name, kind in KINDS.items()}


NO_GEOMETRY = "no geometry in the file"  # what every geometry check of the in-kernel checker sees then


def no_geometry_line(output: str, texts: list[str]) -> str:
    """One line for all the geometry requirements of a file written without its geometry: a line of
    geometry advice each would send the repairs editing a column the file does not have."""
    return (
        f"`{output}` has no geometry, so it cannot satisfy: {'; '.join(texts)}. How: the frame written lost "
        "its geometry column (a selection like gdf[['a', 'b']] drops it): keep it with "
        "gdf[['a', 'b', 'geometry']]; a GeoDataFrame built from columns needs "
        "gpd.GeoDataFrame({...}, geometry=gdf.geometry); or write the GeoDataFrame the geometry steps built."
    )


def repair_line(requirement: Requirement, observed: str) -> str:
    """'`out.csv` must: rows are sorted by `code` ascending. Seen: ... How: ...'"""
    how = ADVICE.get(requirement.kind, "")
    missing = observed.split("; it has", 1)[0]  # "missing ['a', 'b']; it has [...]"
    carried = {
        n: source
        for n, source in (requirement.params.get("provenance") or {}).items()
        if source.startswith("from `") and re.search(rf"'{re.escape(n)}'|\b{re.escape(n)}\b", missing)
    }
    if requirement.kind == "columns" and carried:  # lost on the way or never joined in: not to be computed
        files = ", ".join(sorted({f"`{source.split('`')[1]}`" for source in carried.values()}))
        how = (
            f"{', '.join(carried)} come(s) from {files}: write the frame read from it, changing only what the "
            "steps change (gdf['geometry'] = new_geometries, or gdf.set_geometry(...)); a new "
            "gpd.GeoDataFrame(geometry=...) drops every attribute. When the frame you write was built from "
            "another layer, bring the columns in: by location, gpd.sjoin(points, polygons[[...columns, "
            "'geometry']], predicate='within') (or count per polygon and keep every polygon), or .merge on a "
            "key both layers really share. " + how
        )
    if (
        requirement.kind in ("crs_epsg", "crs_projected_metres")
        and file_format(requirement.output) == "geojson"
        and observed.startswith("EPSG:4326")
    ):  # the frame may be right and the writer undo it
        how += (
            "; GDAL writes GeoJSON with RFC7946='YES' in EPSG:4326 whatever the frame's CRS, so write this "
            "file without RFC7946 (cut at the antimeridian in an earlier file, if needed)"
        )
    as_type = str(requirement.params.get("as_type") or "")
    if requirement.kind == "values_from_input" and as_type:  # a cast that changed the values, not only the type
        cast = (
            f"pd.to_datetime(df[COLUMN], utc=True).dt.tz_localize(None).astype('datetime64[{as_type[10:-1] or 'us'}]')"
            if as_type.startswith("timestamp[")
            else f"pd.to_numeric(df[COLUMN]).astype('{as_type}')"
        )
        how = (
            f"convert the input's own column once, just before writing: df[COLUMN] = {cast}; never through "
            "integers or another unit (epoch numbers read back as nanoseconds are 1970 dates)"
        )
    how = _filled(how, requirement)
    return f"`{requirement.output}` must satisfy: {requirement.text}. Seen: {observed}." + (
        f" How: {how}." if how else ""
    )


def _filled(how: str, requirement: Requirement) -> str:
    """The advice with the requirement's own names in place of its capitalised words (COLUMN, DIST, ...)."""
    params = requirement.params
    for word, value in (
        ("COLUMN", f"'{params.get('name', '')}'"),
        ("GROUP", f"'{params.get('column', '')}'"),
        ("CODE", str(params.get("epsg", ""))),
        ("DIST", f"{params.get('distance_m', 0):g}"),
        ("PFILE", repr(str(params.get("points", "")))),
        ("GFILE", repr(str(params.get("polygons", "")))),
        ("KEY", repr(str(params.get("key") or "id"))),
        ("NUM", f"'{params.get('count', '')}'"),
        ("DEN", f"'{params.get('measure', '')}'"),
        ("FACTOR", f"{params.get('factor', 1):g}"),
    ):
        how = how.replace(word, value)
    return how


# Requirements the request did not spell out (defects found in the input data) and those a small
# model gets wrong unless told how: the coder is told how to meet them before its first attempt,
# not only after a failed check.
HOW_UP_FRONT = frozenset(name for name, kind in KINDS.items() if kind.advise_up_front)


# Values the mend computes on the written file by their definition (``contract.mend``): the coder
# leaves them out rather than compute them on the wrong rows.
MENDED_VALUES = frozenset(name for name, kind in KINDS.items() if kind.computed_by_mend)


def computed_columns(requirement: Requirement) -> list[str]:
    """The columns ``requirement``'s mend computes from the data, whatever the coder wrote in them."""
    kind = KINDS[requirement.kind]
    if kind.mended_columns is not None:
        return kind.mended_columns(requirement.params)
    return [str(requirement.params.get("name"))] if kind.computed_by_mend else []


def mended_values(contract: Contract | None) -> set[str]:
    """The columns the contract's mend computes on the written file (counts and rates with a key
    to carry them by, a layer inventory's values read from the layers)."""
    if contract is None:
        return set()
    return {
        name
        for r in contract.requirements
        for name in computed_columns(r)
        if mend_code(contract, r.output, [r]) is not None
    }


def coder_view(contract: Contract) -> str:
    """The contract as the coder reads it: each requirement, and for the data-defect ones, how."""
    computed = mended_values(contract)

    def how(r: Requirement) -> str:
        left_out = [name for name in computed_columns(r) if name in computed]
        if left_out:
            return (
                f". Computed on the written file by the contract's mend: leave {', '.join(f'`{n}`' for n in left_out)} "
                "out of the code and write the other columns"
            )
        return f". How: {_filled(ADVICE[r.kind], r)}." if r.kind in HOW_UP_FRONT else ""

    return contract.text(how)
