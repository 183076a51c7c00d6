"""Each row's value is the number of an input's points inside its polygon (the file's own, or the
polygons input's of the same key), and every polygon has one row."""

from ..checker import _contract_has_geometry, _contract_input, _contract_key_match, _contract_short
from ._kind import VALUE_MENDS, Params, RequirementKind
from ._mending import OWN_POLYGONS, key_def, read


class PointCountsParams(Params):
    name: str
    points: str  # the points input
    polygons: str  # the polygons input
    key: str | None = None  # the polygons' column the file's rows are keyed by


def _contract_point_counts(params, data, sources):
    """(passed, observed) of a count column against the points inside each polygon (within, or on
    its edge too: either predicate's counts pass): the file's own polygons, else the input polygon
    of the same key (every polygon needs a row, and only one), else the counts compared as a multiset."""
    import numpy as np
    import pandas as pd
    import shapely

    name = params["name"]
    pts = _contract_input(params["points"], sources)
    own = (
        _contract_has_geometry(data)
        and data.crs is not None
        and len(data)
        and set(data.geom_type.dropna()) <= {"Polygon", "MultiPolygon"}
    )
    polys = data if own else _contract_input(params["polygons"], sources)
    if not _contract_has_geometry(pts) or pts.crs is None or not _contract_has_geometry(polys) or polys.crs is None:
        return False, f"cannot count: `{params['points']}` or the polygons have no CRS"
    tree = shapely.STRtree(polys.geometry.values)
    located = pts.to_crs(polys.crs).geometry.values
    truth = {
        p: np.bincount(tree.query(located, predicate=p)[1], minlength=len(polys)) for p in ("within", "intersects")
    }
    values = pd.to_numeric(data[name], errors="coerce").tolist()
    where = f"`{params['points']}` points inside each polygon"
    if own:
        rows, missing, how = list(range(len(data))), [], "each row's own polygon"
    else:
        matched = _contract_key_match(data, polys, name)
        if matched is None:  # rows not keyed to the polygons: the counts as a multiset
            want = sorted(int(v) for v in truth["within"])
            got = sorted(v for v in values if v == v)
            ok = got in (want, sorted(int(v) for v in truth["intersects"]))
            return ok, (
                f"`{name}` holds the counts of the {where} of `{params['polygons']}` (no column names the polygons; "
                f"compared sorted)"
                if ok
                else f"`{name}` sorted is {_contract_short(got, 80)}; the {where} of "
                f"`{params['polygons']}` sorted are {_contract_short(want, 80)}"
            )
        key, rows, missing = matched
        how = f"the `{params['polygons']}` polygon of the same `{key}`"
    wrong_by = {p: [i for i, r in enumerate(rows) if values[i] != counts[r]] for p, counts in truth.items()}
    held = [p for p, wrong in wrong_by.items() if not wrong]
    repeated = len(rows) - len(set(rows))  # rows of a polygon another row already has (a join's one per point)
    if held and not missing and not repeated:
        return True, f"`{name}` is the number of {where}, by {how} ({len(rows)} rows, {held[0]})"
    if held and not missing:
        return False, (
            f"`{name}` is the number of {where}, by {how}, but {repeated} of {len(rows)} rows repeat a polygon "
            f"another row has: {len(set(rows))} polygons, {len(rows)} rows (a count per polygon is one row each)"
        )
    counts, wrong = truth["within"], wrong_by["within"]
    said = f"`{name}` differs from the number of {where} ({how}) on {len(wrong)} of {len(rows)} rows"
    if wrong:
        i = wrong[0]
        label = f"`{key}`={data[key].iloc[i]}" if not own else f"row {i}"
        said += f", e.g. {label}: {_contract_short(values[i], 20)}, counted {int(counts[rows[i]])}"
    total = sum(v for v in values if v == v)
    said += f"; the column sums to {total:g}, the points inside are {int(counts.sum())}"
    if missing:
        said += f"; {len(missing)} of {len(polys)} polygons have no row (a polygon with no point is a row with 0)"
    return False, said


def _kind_point_counts(params, data, sources):
    if params["name"] not in data.columns:
        return False, f"`{params['name']}` is not in the file"
    return _contract_point_counts(params, data, sources)


def _counted(p, site):
    return _point_counts(p, site.spatial, list(site.columns))


def _point_counts(p: dict, spatial: bool, columns: list[str]) -> list[str]:
    """The points inside each polygon: the file's own polygons, else the polygons input's, carried
    to the file's rows by the key they share. A table whose rows are not one per polygon (one row
    per point, say) is rebuilt from the polygons: their key and the columns
    asked for that they hold, the file's values of the other columns asked for carried by key (a key
    no polygon has gets none)."""
    name, points, polygons, key = (str(p.get(k) or "") for k in ("name", "points", "polygons", "key"))
    if not (name and points and polygons) or not (spatial or key):
        return []
    lines = [
        f"_polys = _mend if {OWN_POLYGONS} else {read(polygons)}" if spatial else f"_polys = {read(polygons)}",
        f"_inside = shapely.STRtree(_polys.geometry.values).query({read(points)}.to_crs(_polys.crs).geometry.values, "
        "predicate='within')[1]",
        "_n = pd.Series(_inside).value_counts().reindex(range(len(_polys)), fill_value=0).astype(int).tolist()",
    ]
    if not key:  # only the file's own polygons can take the counts
        return lines + ["assert _polys is _mend, 'no key to carry the counts to the rows'", f"_mend[{name!r}] = _n"]
    lines += [*key_def(), f"_by_key = dict(zip(map(_key, _polys[{key!r}]), _n))"]
    if not spatial:
        carried = [key] + [c for c in columns if c not in (key, name)]
        lines += [
            f"if sorted(map(_key, _mend[{key!r}])) != sorted(_by_key):  # not one row per polygon",
            f"    _old = _mend.assign(_k=_mend[{key!r}].map(_key)).drop_duplicates('_k').set_index('_k')",
            f"    _rows = pd.DataFrame(_polys[[c for c in {carried!r} if c in _polys.columns]])",
            f"    for c in [c for c in {columns!r} if c in _old.columns and c not in _rows.columns]:",
            f"        _rows[c] = _rows[{key!r}].map(_key).map(_old[c])",
            "    _mend = _rows.reset_index(drop=True)",
        ]
    return lines + [f"_mend[{name!r}] = _n if _polys is _mend else [_by_key.get(_key(v)) for v in _mend[{key!r}]]"]


POINT_COUNTS = RequirementKind(
    helpers=(_contract_point_counts,),
    name="point_counts",
    params=PointCountsParams,
    check=_kind_point_counts,
    mend=_counted,
    mend_order=VALUE_MENDS,
    advise_up_front=True,  # a small model counts with a groupby on a column the points lack
    computed_by_mend=True,
    advice=(
        "count by location, not by an attribute of the points: pts = gpd.read_file(PFILE); "
        "polys = gpd.read_file(GFILE); j = gpd.sjoin(pts.to_crs(polys.crs), polys[[KEY, 'geometry']], "
        "predicate='within'); polys[COLUMN] = polys[KEY].map(j.groupby(KEY).size()).fillna(0).astype(int); "
        "then write one row per polygon of polys (0 where none) with the columns asked for"
    ),
)
