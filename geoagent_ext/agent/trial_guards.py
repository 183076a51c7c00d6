"""Trial guards: code appended to a step's trial run that fails a step which ran but lost what a
later step or the deliverable needs — a frame's columns or their values, its points and lines, the
invalid features the contract keeps, rows a cross-frame assignment left empty. Each asks the live kernel first
(a probe) what the names held before the step, and raises an error whose words ``repair.classify``
reads: the certain fix rewrites the line without a model call."""

from __future__ import annotations

from typing import Any

from . import codeinfo, fixes
from .probes import run_probe


async def guards_for(kernel: Any, code: str, keeps_invalid: bool, spatial_output: bool = False) -> str:
    """The guards ``code`` needs, with what the kernel's names hold before it (``keeps_invalid``:
    the contract keeps invalid features repaired; ``spatial_output``: an output has geometries)."""
    rebinds = codeinfo.frame_rebinds(code)
    frames = await run_probe(kernel, "geo_frames", rebinds) if rebinds else None
    buffered = codeinfo.zero_buffers(code)
    present = await run_probe(kernel, "geo_present", buffered) if buffered else None
    filtered = codeinfo.validity_filters(code) if keeps_invalid else []
    invalid = await run_probe(kernel, "geo_invalid", filtered) if filtered else None
    assigned = codeinfo.analyse(code).assigned
    filled = await run_probe(kernel, "filled_columns", assigned) if assigned else None
    return (
        frame_guard(frames or {})
        + emptied_guard(present or {})
        + dropped_invalid_guard(invalid or {})
        + alignment_guard(codeinfo.cross_frame_assignments(code))
        + nulled_guard(filled or {})
        + await fixes.guards_for(kernel, code, fixes.TrialFacts(keeps_invalid, spatial_output))
        + unset_geometry_guard(codeinfo.written_frames(code))
        + geometryless_guard(codeinfo.geometryless_builds(code))
    )


def _for_each(items: dict, names: str, body: list[str]) -> str:
    """A suffix that runs ``body`` for each (key, value) of ``items`` bound to ``names`` ("" for none)."""
    if not items:
        return ""
    return f"\nfor {names} in {items!r}.items():\n" + "".join(f"    {line}\n" for line in body)


def frame_guard(frames: dict[str, list[str]]) -> str:
    """Trial suffix that fails a step which left a GeoSeries in a name that held a GeoDataFrame
    with other columns (``frames``: probe ``geo_frames`` of ``codeinfo.frame_rebinds``, asked
    before the trial): the columns are gone for every later step. ``classify`` reads its error
    (``keep_frame``)."""
    return _for_each(
        {name: columns for name, columns in frames.items() if columns},
        "_geoagent_name, _geoagent_columns",
        [
            "if type(globals().get(_geoagent_name)).__name__ == 'GeoSeries':",
            "    raise TypeError(f'`{_geoagent_name}` held a GeoDataFrame with the columns {_geoagent_columns} and this "
            "step made it a GeoSeries (its geometry alone): those columns are lost. Keep the frame: "
            "{_geoagent_name} = {_geoagent_name}.set_geometry(<its new geometry>)')",
        ],
    )


def emptied_guard(present: dict[str, list[int]]) -> str:
    """Trial suffix that fails a step which emptied geometries of a name it buffers by 0
    (``present``: probe ``geo_present`` of ``codeinfo.zero_buffers``, asked before the trial: rows
    and geometries present): the same rows, fewer geometries. ``classify`` reads its error
    (``make_valid``)."""
    return _for_each(
        present,
        "_geoagent_name, (_geoagent_rows, _geoagent_had)",
        [
            "_geoagent_g = globals().get(_geoagent_name)",
            "_geoagent_g = getattr(_geoagent_g, 'geometry', _geoagent_g)",
            "if hasattr(_geoagent_g, 'is_empty') and hasattr(_geoagent_g, '__len__') and len(_geoagent_g) == _geoagent_rows:",
            "    _geoagent_now = int((~(_geoagent_g.isna() | _geoagent_g.is_empty)).sum())",
            "    if _geoagent_now < _geoagent_had:",
            "        raise ValueError(f'`{_geoagent_name}`: {_geoagent_had - _geoagent_now} of its {_geoagent_had} geometries became '",
            "                         'empty in this step (`buffer(0)` turns points and lines into empty polygons). '",
            "                         'Repair geometries with `.make_valid()`, which leaves points and lines as they are.')",
        ],
    )


def dropped_invalid_guard(invalid: dict[str, list]) -> str:
    """Trial suffix that fails a step which dropped invalid features the contract keeps repaired
    (``invalid``: probe ``geo_invalid`` of ``codeinfo.validity_filters``, asked before the trial:
    the index labels of each name's invalid geometries). ``classify`` reads its error (``make_valid``)."""
    return _for_each(
        {name: labels for name, labels in invalid.items() if labels},
        "_geoagent_name, _geoagent_invalid",
        [
            "_geoagent_g = globals().get(_geoagent_name)",
            "_geoagent_gone = [i for i in _geoagent_invalid if hasattr(_geoagent_g, 'index') and i not in _geoagent_g.index]",
            "if _geoagent_gone:",
            "    raise ValueError(f'`{_geoagent_name}`: this step dropped {len(_geoagent_gone)} of its {len(_geoagent_invalid)} features '",
            "                     'with invalid geometries; the contract keeps every feature, its geometry repaired: '",
            "                     f'{_geoagent_name} = {_geoagent_name}.set_geometry({_geoagent_name}.geometry.make_valid())')",
        ],
    )


def unset_geometry_guard(written: list[str]) -> str:
    """Trial suffix that fails a step which wrote a frame whose geometry column is not among its
    columns while exactly one other column holds geometries (``written``: ``codeinfo.written_frames``).
    ``gdf[['id', 'buffered']]`` keeps the buffers but not the active ``geometry``: geopandas writes
    that GeoParquet and no reader opens it (``KeyError: 'geometry'``; tokyo-busstop at 097316b, five
    repairs of the mend that could not read it). ``classify`` reads its error (``set_geometry``)."""
    if not written:
        return ""
    return (
        f"\nfor _geoagent_name in {written!r}:\n"
        "    _geoagent_f = globals().get(_geoagent_name)\n"
        "    if type(_geoagent_f).__name__ in ('DataFrame', 'GeoDataFrame') and "
        "getattr(_geoagent_f, '_geometry_column_name', None) not in _geoagent_f.columns:\n"
        "        _geoagent_geo = [c for c in _geoagent_f.columns if str(_geoagent_f[c].dtype) == 'geometry']\n"
        "        if len(_geoagent_geo) == 1:\n"
        "            raise TypeError(f'`{_geoagent_name}` was written without a geometry column set: its geometries are '\n"
        "                            f'in {_geoagent_geo[0]!r}, and the file written from it does not open as a spatial file. '\n"
        "                            f'Make that column its geometry before writing: '\n"
        "                            f'{_geoagent_name} = gpd.GeoDataFrame({_geoagent_name}, geometry={_geoagent_geo[0]!r})')\n"
    )


def geometryless_guard(builds: list[tuple[str, str]]) -> str:
    """Trial suffix that fails a step which built a GeoDataFrame from a GeoDataFrame's columns without
    its geometry (``builds``: ``codeinfo.geometryless_builds``), as many rows: every row of it has no
    geometry, and a spatial file written from it holds null geometries (fiji at 270d815).
    ``classify`` reads its error (``set_geometry``)."""
    if not builds:
        return ""
    return (
        f"\nfor _geoagent_name, _geoagent_source in {builds!r}:\n"
        "    _geoagent_f, _geoagent_s = globals().get(_geoagent_name), globals().get(_geoagent_source)\n"
        "    if type(_geoagent_f).__name__ == 'GeoDataFrame' and type(_geoagent_s).__name__ == 'GeoDataFrame' \\\n"
        "            and getattr(_geoagent_f, '_geometry_column_name', None) not in _geoagent_f.columns \\\n"
        "            and getattr(_geoagent_s, '_geometry_column_name', None) in _geoagent_s.columns \\\n"
        "            and len(_geoagent_f) == len(_geoagent_s):\n"
        "        raise TypeError(f'`{_geoagent_name}` was built from `{_geoagent_source}`\\'s columns without its '\n"
        "                        f'geometry: no row of it has one. Give it the geometry: gpd.GeoDataFrame({{...}}, '\n"
        "                        f'geometry={_geoagent_source}.geometry)')\n"
    )


def nulled_guard(filled: dict[str, list]) -> str:
    """Trial suffix that fails a step which left a column of a frame it rebinds empty in every row
    where it had values before, its rows as many as before (``filled``: probe ``filled_columns`` of
    the names the step assigns — rows, filled columns): the values are lost for every later step, and
    the after-step check would only warn once the step was committed (lagos at ab135b6: `hex_id`
    emptied by a frame rebuilt from its geometry, and every later step warned about it). A filter
    (fewer rows: the rows where a column is null) is the step's choice. The model repairs it, with
    the cause in the error."""
    return _for_each(
        {name: seen for name, seen in filled.items() if seen[1]},
        "_geoagent_name, (_geoagent_rows, _geoagent_filled)",
        [
            "_geoagent_f = globals().get(_geoagent_name)",
            "if type(_geoagent_f).__name__ in ('DataFrame', 'GeoDataFrame') and len(_geoagent_f) == _geoagent_rows:",
            "    _geoagent_lost = [c for c in _geoagent_f.columns if str(c) in _geoagent_filled and _geoagent_f[c].isna().all()]",
            "    if _geoagent_lost:",
            "        raise ValueError(f'`{_geoagent_name}`: this step left its column(s) {_geoagent_lost} empty in every row; '",
            "                         'they had values before it. Keep the values: change the frame itself '",
            "                         f'({_geoagent_name} = {_geoagent_name}.to_crs(...), {_geoagent_name}.set_geometry(new_geometry)); '",
            "                         'a new GeoDataFrame built from a geometry with columns=[...] has no values in them.')",
        ],
    )


def alignment_guard(assignments: list[tuple[str, str, str, str, int]]) -> str:
    """Trial suffix that fails a step whose ``target['c'] = source['s']`` (``codeinfo.
    cross_frame_assignments``) left rows of ``target`` without a value: ``source``'s index does
    not hold them, so pandas filled them with nothing (and the others, when the indexes only
    overlap by chance, with another row's value). ``classify`` reads its error (``own_column``
    when ``target`` has the source's column from a join)."""
    if not assignments:
        return ""
    return (
        f"\nfor _geoagent_t, _geoagent_tc, _geoagent_s, _geoagent_sc, _geoagent_line in {assignments!r}:\n"
        "    _geoagent_a, _geoagent_b = globals().get(_geoagent_t), globals().get(_geoagent_s)\n"
        "    if _geoagent_a is not _geoagent_b and hasattr(_geoagent_a, 'columns') and hasattr(_geoagent_b, 'index'):\n"
        "        _geoagent_empty = int((~_geoagent_a.index.isin(_geoagent_b.index)).sum())\n"
        "        if _geoagent_empty:\n"
        "            _geoagent_own = next((c for c in (_geoagent_sc, _geoagent_sc + '_right') if c != _geoagent_tc and c in _geoagent_a.columns), None)\n"
        "            raise ValueError(f'line {_geoagent_line}: `{_geoagent_t}[{_geoagent_tc!r}] = {_geoagent_s}[{_geoagent_sc!r}]` aligns by index: '\n"
        "                             f'{_geoagent_empty} of the {len(_geoagent_a)} rows of `{_geoagent_t}` have no row of `{_geoagent_s}` '\n"
        "                             f'({len(_geoagent_b)} rows) and got no value; the others may hold another row\\'s. '\n"
        "                             + (f'`{_geoagent_t}` has the joined column {_geoagent_own!r}: take it from there.' if _geoagent_own else\n"
        "                                'Match the rows by a key (merge on it) or by location (sjoin), then take the column from the result.'))\n"
    )
