"""A plain DataFrame used as a GeoDataFrame, where a column selection of one left out its geometry."""

from __future__ import annotations

import re
from typing import Any

from .. import codeinfo
from ..gis_hints import GEO_MEMBERS
from .base import Diagnosis, Rule
from .keep_geometry import frame_selections, with_geometry_selected

# What pandas and geopandas say when a frame without geometry is used as a spatial one
_NO_GEOMETRY = re.compile(
    r"'DataFrame' object has no attribute '(?:%s)'|Unknown column \S+|active geometry column to use has not been set"
    % "|".join(sorted(GEO_MEMBERS))
)


class LostGeometry(Rule):
    """``sel = gdf[cols]`` in one step, ``sel.to_file(...)`` in a later one: the selection left out the
    geometry, and no rewrite of the failing line brings it back. The live kernel tells which
    GeoDataFrame the frame's rows and columns come from, and the frame gets that frame's geometry
    for its rows before the code runs again."""

    strategy = "lost_geometry"
    order = 810

    async def diagnose_live(self, diagnosis: Diagnosis, code: str, lineno: int | None, kernel: Any) -> Diagnosis | None:
        if diagnosis.fixed_code or not _NO_GEOMETRY.search(diagnosis.message):
            return None
        names = codeinfo.names_read(code, lineno) if lineno else []
        if not names:
            return None
        try:
            found = await kernel.probe("selection_source", names, probe_timeout=30)
            selections = frame_selections(code)
            sources = [s for n, s in selections if n in names]
            geometries = await kernel.probe("geometry_names", sources, probe_timeout=30) if sources else {}
        except Exception:  # introspection is advice; the model's repair still follows
            return None
        if found:  # a frame an earlier step selected
            name, source, _ = found
            fixed: str | None = with_geometry_restored(code, name, source)
        else:  # a frame this code selects: the selection keeps the geometry
            name, source = next(((n, s) for n, s in selections if n in names and s in geometries), ("", ""))
            fixed = with_geometry_selected(code, name, geometries[source], source) if name else None
        if not fixed:
            return None
        return Diagnosis(self.strategy, diagnosis.message, name=name, expression=source, fixed_code=fixed)

    def said(self, diagnosis: Diagnosis) -> str:
        return f"gave `{diagnosis.name}` back the geometry of `{diagnosis.expression}` its column selection left out"


def with_geometry_restored(code: str, name: str, source: str) -> str:
    """``code`` after a line that makes ``name`` a GeoDataFrame again: ``source``'s geometry of the
    same rows, in ``source``'s CRS."""
    return (
        "import geopandas as gpd\n"
        f"{name} = gpd.GeoDataFrame({name}, geometry={source}.geometry.loc[{name}.index], crs={source}.crs)\n"
        f"{code}"
    )
