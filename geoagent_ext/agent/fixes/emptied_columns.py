"""A step that leaves a column empty in every row where it had values: the model repairs it, told why."""

from __future__ import annotations

from typing import Any

from .. import codeinfo
from ..probes import run_probe
from .base import Rule, TrialFacts, for_each


class EmptiedColumns(Rule):
    """A frame rebuilt from its geometry (``gpd.GeoDataFrame(gdf.geometry, columns=gdf.columns)``)
    keeps its rows and loses its values: the trial fails a step that left a column of a name it
    assigns empty in every row, its rows as many as before (a filter, fewer rows, is the step's
    choice), so the live frame keeps its values. The one form whose rewrite is certain, a frame
    rebuilt from its own geometry and ``columns=``, is rewritten before it runs
    (``rebuilt_frame``); the model repairs the others, with the cause in the error."""

    order = 40

    async def guard(self, kernel: Any, code: str, facts: TrialFacts) -> str:
        assigned = codeinfo.analyse(code).assigned
        filled = await run_probe(kernel, "filled_columns", assigned) if assigned else None
        return for_each(
            {name: seen for name, seen in (filled or {}).items() if seen[1]},
            "_geoagent_name, (_geoagent_rows, _geoagent_filled)",
            [
                "_geoagent_f = globals().get(_geoagent_name)",
                "if type(_geoagent_f).__name__ in ('DataFrame', 'GeoDataFrame') "
                "and len(_geoagent_f) == _geoagent_rows:",
                "    _geoagent_lost = [c for c in _geoagent_f.columns "
                "if str(c) in _geoagent_filled and _geoagent_f[c].isna().all()]",
                "    if _geoagent_lost:",
                "        raise ValueError(f'`{_geoagent_name}`: this step left its column(s) '",
                "            f'{_geoagent_lost} empty in '",
                "        'every row; they had values before it. Keep the values: change the frame itself '",
                "        f'({_geoagent_name} = {_geoagent_name}.to_crs(...), '",
                "        f'{_geoagent_name}.set_geometry(new_geometry)); '",
                "        'a new GeoDataFrame built from a geometry with columns=[...] has no values in them.')",
            ],
        )
