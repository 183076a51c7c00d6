"""A GeoSeries written or used as a frame, where the frame its geometries were made from is at hand."""

from __future__ import annotations

import re
from typing import Any

from .. import codeinfo
from .base import Diagnosis, Rule

# What geopandas says when a GeoSeries is written or used as a frame
_ONLY_GEOMETRY = re.compile(r"'GeoSeries' object has no attribute '(?:to_parquet|to_file|to_feather|columns)'")


class SeriesFrame(Rule):
    """``buffered = gdf.buffer(400)`` in one step, ``buffered.to_parquet(...)`` failing in a later
    one: a GeoSeries has no columns to write, and the repairs tend to buffer it again. The live
    kernel finds the GeoDataFrame the series was made from (the same index; frames of that index
    with other attributes answer nothing), and the series becomes the geometry of a GeoDataFrame
    with that frame's other columns before the code runs again."""

    strategy = "series_frame"
    order = 820

    async def diagnose_live(self, diagnosis: Diagnosis, code: str, lineno: int | None, kernel: Any) -> Diagnosis | None:
        if diagnosis.fixed_code or not _ONLY_GEOMETRY.search(diagnosis.message):
            return None
        try:
            found = await kernel.probe("series_source", codeinfo.names_read(code), probe_timeout=30)
        except Exception:  # introspection is advice; the model's repair still follows
            return None
        if not found:
            return None
        name, source = found
        fixed = (
            "import geopandas as gpd\n"
            f"{name} = gpd.GeoDataFrame({source}.drop(columns={source}.geometry.name), geometry={name}, "
            f"crs={name}.crs)\n{code}"
        )
        return Diagnosis(self.strategy, diagnosis.message, name=name, expression=source, fixed_code=fixed)

    def said(self, diagnosis: Diagnosis) -> str:
        return (
            f"made the geometries `{diagnosis.name}` a GeoDataFrame with the other columns of `{diagnosis.expression}`"
        )
