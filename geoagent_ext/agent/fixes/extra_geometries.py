"""A frame with more than one geometry column written with ``to_file``."""

from __future__ import annotations

import ast
from typing import cast

from .. import codeinfo
from .base import Diagnosis, Failure, Rule


class ExtraGeometries(Rule):
    """``gdf['centre'] = gdf.centroid`` and then ``gdf.to_file(...)``: GDAL writes one geometry per
    feature and geopandas refuses the frame. Its other geometry columns are dropped in the write
    (geopandas' own advice), the active geometry written: the file the step meant, and the contract
    then says what is still missing."""

    strategy = "extra_geometries"
    order = 115

    def diagnose(self, failure: Failure) -> Diagnosis | None:
        if "multiple geometry columns" not in failure.evalue or "single geometry column" not in failure.evalue:
            return None
        fixed = with_extra_geometries_dropped(failure.code, failure.lineno)
        return self.diagnosis(failure, fixed_code=fixed) if fixed else None

    def said(self, diagnosis: Diagnosis) -> str:
        return "wrote the active geometry only: the frame's other geometry columns are left out of the file"


def with_extra_geometries_dropped(code: str, lineno: int | None) -> str | None:
    """``code`` with the frame of each ``name.to_file(...)`` on ``lineno`` (every such call when the
    line is unknown) written without its geometry columns other than the active one; None when
    there is no such call."""
    calls = [
        call
        for call in codeinfo.frame_writes(codeinfo.parse(code), ("to_file",))
        if not lineno or call.lineno <= lineno <= (call.end_lineno or call.lineno)
    ]
    edits = []
    for call in calls:
        name = cast(ast.Name, cast(ast.Attribute, call.func).value).id
        kept = (
            f"{name}.drop(columns=[c for c in {name}.columns "
            f"if c != {name}.geometry.name and str({name}[c].dtype) == 'geometry'])"
        )
        edits.append((cast(ast.Attribute, call.func).value, kept))
    return codeinfo.replaced(code, edits) if edits else None
