"""Mechanical mends: the code that makes a written file meet a failed requirement whose remedy
needs no judgement — reproject to the EPSG code asked for (or the CRS advisor's official grid for
"a metric CRS"), put back an input's own shapes and CRS where the request left the geometry alone
and the file holds them reprojected, put back the input's shape (or part) nearest each feature a
step reshaped where the request asked for no new shapes, drop the polygons the request discards below an area, cut lines
and rings at the antimeridian,
wrap single parts into the multi-part
type asked for (or split them), take the geometry from the one other geometry column holding the
kinds asked for (polygons buffered into a column beside the points), drop null, empty or repeated geometries, repair invalid ones,
orient rings by RFC 7946, drop a WKT column that repeats the geometry, keep one row per value of
a column where the request says which ("keep the record with the earliest `record_seq`"), store a
column as the type asked for, sort the rows, drop a geometry or row-index column a CSV got, carry a
requested column an input holds to the file's rows by the key they share; count
the points inside each polygon, measure each feature on the ellipsoid and take a rate over those,
measure each row's distance to the nearest feature of the other layer and take that feature's
column a row names it by, each by its definition; in a JSON document, reshape a per-group object or a bbox written in another
of pandas' shapes, and take a whole layer's bbox from the layer.

The agent appends it to the step that wrote the file (or runs it as the closing step) without
asking the model: the 1.5B, told "every feature is a MultiPolygon", wrote
``to_multi_polygon()`` four times (cairo-dedup at d518539). The mend reads the file back,
changes only what the requirements name, and writes it in the same format; its trial and the
contract's check on the real file decide whether it is kept. Values whose computation needs a
choice (areas in which CRS, lon/lat of what) stay the model's, with their advice; a count of
points per polygon has one definition (example 01 at 36eafa3: the 1.5B wrote the total, 49, on
every district's row and then lost the variable it had counted into), so its mend counts them
(``within``, the check's first predicate) and recomputes the rates over that count; a measure in
the unit its name says is taken on the WGS84 ellipsoid, as the check takes it.
A GeoPackage whose layers the request names after geometry kinds ("points", "lines", "polygons")
is read whole and written back one kind per layer; with other layer names it gets no mend.
"""

from __future__ import annotations

from .kinds import function_source
from .model import Contract, Requirement
from .provenance import carried_from
from .rules import UNIT_IN_BASE, file_format

_GEO_READ = {
    "geojson": "gpd.read_file({p!r})",
    "gpkg": "gpd.read_file({p!r})",
    "shp": "gpd.read_file({p!r})",
    "fgb": "gpd.read_file({p!r})",
    "geoparquet": "gpd.read_parquet({p!r})",
}
_GEO_WRITE = {
    "geojson": "_mend.to_file({p!r}, driver='GeoJSON')",
    "gpkg": "_mend.to_file({p!r}, driver='GPKG')",
    "shp": "_mend.to_file({p!r}, driver='ESRI Shapefile')",
    "fgb": "_mend.to_file({p!r}, driver='FlatGeobuf')",
    "geoparquet": "_mend.to_parquet({p!r})",
}
# Tables: read so that a value is written back exactly as it was read.
_TABLE_READ = {"csv": "pd.read_csv({p!r}, dtype=str, keep_default_na=False)", "parquet": "pd.read_parquet({p!r})"}
_TABLE_WRITE = {"csv": "_mend.to_csv({p!r}, index=False)", "parquet": "_mend.to_parquet({p!r}, index=False)"}
_TYPED = {"parquet", "geoparquet"}  # formats whose stored types a cast reaches (GeoJSON/CSV keep none)
_GEOMETRY_KINDS = (
    "geometry_unchanged",
    "min_area",
    "crs_epsg",
    "crs_projected_metres",
    "shapes_kept",
    "geometries_present",
    "geometries_valid",
    "antimeridian_cut",
    "geometry_types",
    "geometries_unique",
    "rfc7946_winding",
    "geometry_once",
)
# In this order: a cast before the sort that reads it. ("Holds integers" is not mended: decimals or
# missing values need the model's judgement — round? 0? — and a cast that fails costs an attempt.)
_TABLE_KINDS = ("columns", "unique", "dtype", "sorted")
# After the geometry, before a cast or a sort that reads them: counts first (they may rebuild the
# rows), then measures by the rows' keys, then the rates over both.
_VALUE_KINDS = ("point_counts", "measure_units", "nearest_distance", "nearest_attribute", "density")


def mend_code(contract: Contract, path: str, failed: list[Requirement]) -> tuple[str, list[Requirement]] | None:
    """(code, the requirements it mends) for output ``path`` and its failed requirements, or None
    when none of them has a mechanical remedy in this file's format (a GeoPackage of several
    layers is left alone: the mend reads and writes one)."""
    fmt = file_format(path)
    if fmt == "json":
        return _json_mend(contract, path, failed)
    spatial = fmt in _GEO_READ
    layers = next((r for r in contract.for_output(path) if r.kind == "layers"), None)
    by_kind = _layers_by_kind([str(n) for n in layers.params.get("names") or []]) if layers is not None else None
    if (not spatial and fmt not in _TABLE_READ) or (layers is not None and (fmt != "gpkg" or by_kind is None)):
        return None
    lines: list[str] = []
    mended: list[Requirement] = [layers] if layers is not None and layers in failed else []
    columns = [str(n) for r in contract.for_output(path) if r.kind == "columns" for n in r.params.get("names") or []]
    for kind in _GEOMETRY_KINDS + _VALUE_KINDS + _TABLE_KINDS:
        for req in [r for r in failed if r.kind == kind] + _rates_over(contract, path, mended, failed, kind):
            step = _step(req, fmt, spatial, columns)
            if step:
                lines += _tried(req, step)
                mended.append(req)
    if not mended:
        return None
    read, write = (_GEO_READ[fmt], _GEO_WRITE[fmt]) if spatial else (_TABLE_READ[fmt], _TABLE_WRITE[fmt])
    read, write = read.format(p=path), write.format(p=path)
    if by_kind is not None:  # every layer, read as one frame, written back one geometry kind per layer
        # A feature written to several layers is kept from the first (cairo-mixedgeom at f2774b6: the
        # whole frame in each of the three layers, tripled by the split).
        feature_keys = function_source("_contract_feature_keys").replace(
            "def _contract_feature_keys(", "def _feature_keys(", 1
        )
        read = (
            f"pd.concat([gpd.read_file({path!r}, layer=n).assign(_layer=i) for i, n in "
            f"enumerate(gpd.list_layers({path!r})['name'])], ignore_index=True)\n{feature_keys}\n"
            "_seen = _feature_keys(_mend.drop(columns='_layer'))\n"
            "_mend = _mend[_mend['_layer'] == _mend.groupby(_seen)['_layer'].transform('min')].drop(columns='_layer')"
        )
        write = "\n".join(
            [
                "import os",
                f"os.remove({path!r})",
                f"for _layer, _kinds in {by_kind!r}.items():",
                f"    _mend[_mend.geom_type.isin(_kinds)].to_file({path!r}, layer=_layer, driver='GPKG')",
            ]
        )
    counted = spatial or any(("gpd." in line or "shapely." in line) for line in lines)  # an input read, a geometry used
    code = "\n".join(
        [
            _heading(path, mended),
            *(["import geopandas as gpd", "import shapely"] if counted else []),
            "import pandas as pd",
            f"_mend = {read}",
            *lines,
            write,
            f"print('mended {path}:', len(_mend), 'rows')",
        ]
    )
    return code, mended


def _embedded(*names: str, indent: str = "") -> list[str]:
    """The lines of the checker's own functions, for a mend that must compute as its check does."""
    return [indent + line for name in names for line in function_source(name).splitlines()]


def _tried(req: Requirement, step: list[str]) -> list[str]:
    """One requirement's mend in a ``try``: one that cannot apply (a column the file lacks) leaves
    the others to apply."""
    return [
        "try:",
        *(f"    {line}" for line in step),
        "except Exception as _why:",
        f"    print('mend not applied ({req.kind}):', type(_why).__name__, _why)",
    ]


MEND_HEADING = "# Mend `"  # the first line of every mend's code


def _heading(path: str, mended: list[Requirement]) -> str:
    return f"{MEND_HEADING}{path}` for the contract: {'; '.join(r.text for r in mended)}"


def without_mends(code: str) -> str:
    """``code`` without the mends appended to it (from the first mend heading on): the model's own
    code, for its repair prompt (vienna at ab135b6: shown its code with the mend, clipped in the
    middle, the 1.5B copied both and the clip's marker, four SyntaxErrors). '' when it is all mend."""
    lines = code.splitlines()
    cut = next((i for i, line in enumerate(lines) if line.startswith(MEND_HEADING)), len(lines))
    return "\n".join(lines[:cut]).rstrip()


# JSON documents: a per-group object or a bbox written in another of pandas' shapes (``df.to_dict()``,
# ``gdf.bounds``) is reshaped without changing a value (capetown-clinics at 42b4435 wrote both);
# a whole layer's bbox is taken from the layer, as its check defines it.
_JSON_KINDS = ("bbox", "lonlat", "group_keys")


def _json_mend(contract: Contract, path: str, failed: list[Requirement]) -> tuple[str, list[Requirement]] | None:
    lines: list[str] = []
    mended: list[Requirement] = []
    for req in [r for r in failed if r.kind in _JSON_KINDS]:
        step = _json_step(contract, req)
        tried = _tried(req, step) if step else []
        if step and "\n".join(tried[1:-2]) not in "\n".join(lines):  # a bbox and its lon/lat: one mend
            lines += tried
        if step:
            mended.append(req)
    if not mended:
        return None
    code = "\n".join(
        [
            _heading(path, mended),
            "import json",
            "import geopandas as gpd",
            "import pandas as pd",
            f"with open({path!r}, encoding='utf-8') as _f:",
            "    _mend = json.load(_f)",
            *lines,
            f"with open({path!r}, 'w', encoding='utf-8') as _f:",
            "    json.dump(_mend, _f, indent=2)",
            f"print('mended {path}:', len(_mend), 'keys')",
        ]
    )
    return code, mended


def _json_step(contract: Contract, req: Requirement) -> list[str]:
    """The lines that mend one requirement on the JSON document ``_mend`` ([] when not mechanical)."""
    name = str(req.params.get("name") or "")
    same = [r for r in contract.for_output(req.output) if r.params.get("name") == name]
    if req.kind in ("bbox", "lonlat"):
        whole = next((r for r in same if r.kind == "bbox" and r.params.get("input")), None)
        if whole is not None:
            epsg = whole.params.get("epsg") or (4326 if any(r.kind == "lonlat" for r in same) else None)
            return _layer_bbox(name, whole.params, epsg)
        if req.kind == "bbox":
            return [*_embedded("_contract_bbox_list"), f"_mend[{name!r}] = _contract_bbox_list(_mend[{name!r}])"]
        return []
    column, source = str(req.params.get("column") or ""), str(req.params.get("input") or "")
    if req.kind == "group_keys" and name and column and source:
        counts = any(r.kind == "integer" for r in same)  # a group with none counts 0
        return [
            *_embedded("_contract_group_text", "_contract_group_object"),
            f"_groups = {_read_table(source)}[{column!r}].dropna().tolist()",
            f"_mend[{name!r}] = _contract_group_object(_mend[{name!r}], {column!r}, _groups, fill={0 if counts else None!r})",
        ]
    return []


def _layer_bbox(name: str, p: dict, epsg: int | None) -> list[str]:
    """The bounds of an input's whole layer (a table's: its WKT column, as written), in ``epsg``
    when given (the one the request names, else lon/lat for a lon/lat name), else in the layer's CRS."""
    source, wkt = str(p["input"]), p.get("wkt")
    if file_format(source) not in _GEO_READ and not wkt:
        return []
    lines = [
        f"_src = {_read_table(source)}",
        f"_g = gpd.GeoSeries.from_wkt(_src[{str(wkt)!r}].dropna())" if wkt else "_g = _src.geometry",
        "_g = _g[~(_g.isna() | _g.is_empty)]",
    ]
    if epsg:
        lines.append(f"_g = _g.to_crs({int(epsg)}) if _g.crs is not None else _g")
    return lines + [f"_mend[{name!r}] = [float(v) for v in _g.total_bounds]"]


def _read_table(path: str) -> str:
    """An input read as the contract's checks read it (a CSV's numbers as numbers)."""
    table = {"csv": "pd.read_csv({p!r})", "parquet": "pd.read_parquet({p!r})"}.get(file_format(path))
    return table.format(p=path) if table else _read(path)


_KIND_WORDS = {
    "point": ["Point", "MultiPoint"],
    "line": ["LineString", "MultiLineString"],
    "polygon": ["Polygon", "MultiPolygon"],
}


def _rates_over(
    contract: Contract, path: str, mended: list[Requirement], failed: list[Requirement], kind: str
) -> list[Requirement]:
    """The rates over a count or a measure the mend has just recomputed: they held over the old
    values and would fail over the new ones."""
    if kind != "density":
        return []
    redone = {r.params.get("name") for r in mended if r.kind in ("point_counts", "measure_units")}
    return [
        r
        for r in contract.for_output(path)
        if r.kind == "density" and r not in failed and {r.params.get("count"), r.params.get("measure")} & redone
    ]


def _read(path: str) -> str:
    """An input layer read with its geometries (a ``.parquet`` one is GeoParquet: GDAL's wheels have no Parquet driver)."""
    fmt = file_format(path)
    return (_GEO_READ.get(fmt) or ("gpd.read_parquet({p!r})" if fmt == "parquet" else "gpd.read_file({p!r})")).format(
        p=path
    )


_OWN_POLYGONS = "_mend.crs is not None and len(_mend) and set(_mend.geom_type.dropna()) <= {'Polygon', 'MultiPolygon'}"


def _key_def(indent: str = "") -> list[str]:
    """``_key``: a key as the in-kernel check compares it across files (3, 3.0, "3" and "03" alike),
    its ``_contract_key`` itself, so the mend carries values by the keys the check matches."""
    source = function_source("_contract_key").replace("def _contract_key(", "def _key(", 1)
    return [indent + line for line in source.splitlines()]


def _point_counts(p: dict, spatial: bool, columns: list[str]) -> list[str]:
    """The points inside each polygon: the file's own polygons, else the polygons input's, carried
    to the file's rows by the key they share. A table whose rows are not one per polygon (example
    01 at 6323937 wrote the stations' rows) is rebuilt from the polygons: their key and the columns
    asked for that they hold, the file's values of the other columns asked for carried by key (a key
    no polygon has gets none)."""
    name, points, polygons, key = (str(p.get(k) or "") for k in ("name", "points", "polygons", "key"))
    if not (name and points and polygons) or not (spatial or key):
        return []
    lines = [
        f"_polys = _mend if {_OWN_POLYGONS} else {_read(polygons)}" if spatial else f"_polys = {_read(polygons)}",
        f"_inside = shapely.STRtree(_polys.geometry.values).query({_read(points)}.to_crs(_polys.crs).geometry.values, "
        "predicate='within')[1]",
        "_n = pd.Series(_inside).value_counts().reindex(range(len(_polys)), fill_value=0).astype(int).tolist()",
    ]
    if not key:  # only the file's own polygons can take the counts
        return lines + ["assert _polys is _mend, 'no key to carry the counts to the rows'", f"_mend[{name!r}] = _n"]
    lines += [*_key_def(), f"_by_key = dict(zip(map(_key, _polys[{key!r}]), _n))"]
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


def _measures(p: dict, spatial: bool) -> list[str]:
    """Each feature's area, perimeter or length on the WGS84 ellipsoid in the unit asked for (what
    the check compares with): the file's own geometries, else the input feature of the same key,
    matched by the check's own ``_contract_key_match`` (embedded)."""
    name, measure, unit, source = (str(p.get(k) or "") for k in ("name", "measure", "unit", "input"))
    if not (name and source) or unit not in UNIT_IN_BASE or measure not in ("area", "perimeter", "length"):
        return []
    how = {
        "area": "abs(_geod.geometry_area_perimeter(g)[0])",
        "perimeter": "_geod.geometry_area_perimeter(g)[1]",
        "length": "_geod.geometry_length(g)",
    }[measure]
    kinds = ("LineString", "MultiLineString") if measure == "length" else ("Polygon", "MultiPolygon")
    own = f"_mend.crs is not None and _mend.geom_type.isin({kinds!r}).any()" if spatial else "False"
    lines = [
        "import pyproj",
        "_geod = pyproj.Geod(ellps='WGS84')",
        f"_src = _mend if {own} else {_read(source)}",
        f"_m = [{how} / {UNIT_IN_BASE[unit]!r} if g is not None and not g.is_empty else None "
        "for g in _src.geometry.to_crs(4326)]",
        "if _src is _mend:",
        f"    _mend[{name!r}] = _m",
        "else:",
        *_embedded("_contract_key", "_contract_key_match", indent="    "),
        f"    _k, _rows, _ = _contract_key_match(_mend, _src, {name!r})",
        f"    _mend[{name!r}] = [_m[i] for i in _rows]",
    ]
    return lines


def _nearest(p: dict, spatial: bool) -> list[str]:
    """Each row's straight-line distance to the nearest feature of the other layer, as the check
    measures it (``_contract_nearest_metres``, embedded): from the file's own geometries, else from
    the input feature of the same key (``_contract_key_match``, embedded)."""
    name, unit, source, to = (str(p.get(k) or "") for k in ("name", "unit", "input", "to"))
    if not (name and source and to) or unit not in UNIT_IN_BASE:
        return []
    return [
        *_embedded("_contract_nearest_metres"),
        f"_to = {_read(to)}",
        *_row_origins(p, spatial, name),
        f"_mend[{name!r}] = [None if m is None else m / {UNIT_IN_BASE[unit]!r} for m in _contract_nearest_metres(_from, _to)]",
    ]


def _row_origins(p: dict, spatial: bool, name: str) -> list[str]:
    """Lines binding ``_from``: each row's feature — the file's own geometries, else the input
    feature of the same key (``_contract_key_match``, embedded) — as the nearest checks take it."""
    return [
        f"if {'_mend.crs is not None' if spatial else 'False'}:",
        "    _from = gpd.GeoSeries(_mend.geometry.values, crs=_mend.crs)",
        "else:",
        *_embedded("_contract_key", "_contract_key_match", indent="    "),
        f"    _src = {_read(str(p['input']))}",
        f"    _k, _rows, _ = _contract_key_match(_mend, _src, {name!r})",
        "    _from = gpd.GeoSeries(_src.geometry.values[_rows], crs=_src.crs)",
    ]


def _nearest_attribute(p: dict, spatial: bool) -> list[str]:
    """Each row's value of the nearest feature's column (the nearest first of ties), found as the
    check finds it (``_contract_nearest_rows``, embedded)."""
    name, column, source, to = (str(p.get(k) or "") for k in ("name", "column", "input", "to"))
    if not (name and column and source and to):
        return []
    return [
        *_embedded("_contract_nearest_rows"),
        f"_to = {_read(to)}",
        *_row_origins(p, spatial, name),
        f"_mend[{name!r}] = [_to[{column!r}].iloc[r[0]] if r else None for r in _contract_nearest_rows(_from, _to)]",
    ]


def _layers_by_kind(names: list[str]) -> dict[str, list[str]] | None:
    """{layer: the geometry types it holds} when every layer is named for one geometry kind
    ("points", "lines", "polygons"), else None: any other split is the model's to decide."""
    found = {}
    for name in names:
        kinds = [k for word, k in _KIND_WORDS.items() if word in name.lower()]
        if len(kinds) != 1:
            return None
        found[name] = kinds[0]
    return found or None


def _step(req: Requirement, fmt: str, spatial: bool, columns: list[str] = ()) -> list[str]:
    """The lines that mend one requirement on the frame ``_mend`` ([] when not mechanical here)."""
    p = req.params
    if req.kind in _GEOMETRY_KINDS and not spatial:
        return []
    epsg = p.get("epsg") if req.kind == "crs_epsg" else p.get("advised_epsg")  # the CRS advisor's official grid
    if req.kind in ("crs_epsg", "crs_projected_metres") and epsg:
        # Labelled in degrees but holding coordinates no degree has (a frame built in metres and given
        # crs=4326, fiji at 536c870): the label is wrong, not the coordinates; else reproject.
        return [
            "_b = _mend.total_bounds",
            "if _mend.crs is not None and _mend.crs.is_geographic and (abs(_b[[0, 2]]).max() > 180 or abs(_b[[1, 3]]).max() > 90):",
            f"    _mend = _mend.set_crs(epsg={int(epsg)}, allow_override=True)",
            "elif _mend.crs is not None:",
            f"    _mend = _mend.to_crs(epsg={int(epsg)})",
        ]
    if req.kind == "geometry_unchanged" and p.get("input"):
        # Reprojected though the request left the geometry alone (bangkok-coercion at 270d815: three
        # repairs kept `to_crs`): row for row the input's own shapes once back in its CRS, so they are put back.
        return [
            f"_src = {_read(str(p['input']))}",
            "_back = _mend.geometry.to_crs(_src.crs) if _mend.crs is not None and _src.crs is not None else _mend.geometry",
            "_tol = 1e-7 if _src.crs is None or _src.crs.is_geographic else 1e-3",
            "if len(_back) == len(_src) and all(a is not None and b is not None and shapely.hausdorff_distance(a, b) <= _tol "
            "for a, b in zip(_back.values, _src.geometry.values)):",
            "    _mend = _mend.set_geometry(gpd.GeoSeries(_src.geometry.values, index=_mend.index, crs=_src.crs))",
        ]
    if req.kind == "shapes_kept" and p.get("input"):
        # Reshaped though the request asked for no new shapes (cairo-mixedgeom at d4686b6: polygons
        # simplified by up to 80 m, two repairs kept `simplify`): each feature off its input's shapes
        # becomes the input's shape or part nearest it, in the file's CRS, found as the check finds it.
        return [
            *_embedded("_contract_shape_index", "_contract_nearest_shape", "_contract_shape_tolerance"),
            f"_src = {_read(str(p['input']))}",
            "_crs = _mend.crs if _mend.crs is not None else _src.crs",
            "_index, _tol = _contract_shape_index(_crs, _src), _contract_shape_tolerance(_crs)[0]",
            "_kept = []",
            "for _g in _mend.geometry.values:",
            "    _near, _off = (None, 0.0) if _g is None or _g.is_empty else _contract_nearest_shape(_g, _index)",
            "    _kept.append(_g if _near is None or _off <= _tol else _near)",
            "_mend[_mend.geometry.name] = gpd.GeoSeries(_kept, index=_mend.index, crs=_mend.crs)",
        ]
    if (
        req.kind == "min_area" and p.get("m2") is not None
    ):  # the polygons the request discards, measured as the check does
        return [
            *_embedded("_contract_geodesic"),
            f"_mend = _mend[[a is None or a >= {float(p['m2'])!r} for a in _contract_geodesic(_mend, 'area')]]",
        ]
    if req.kind == "geometries_present":
        return ["_mend = _mend[~(_mend.geometry.isna() | _mend.geometry.is_empty)]"]
    if req.kind == "geometries_valid":
        return ["_mend = _mend.set_geometry(_mend.geometry.make_valid(method='structure', keep_collapsed=False))"]
    if req.kind == "antimeridian_cut":  # GDAL's RFC 7946 writer cuts at +-180 in lon/lat; then back to the file's CRS
        return [
            "import os, tempfile",
            "_crs, _cut = _mend.crs, os.path.join(tempfile.mkdtemp(), 'cut.geojson')",
            "_mend.to_crs(4326).to_file(_cut, driver='GeoJSON', RFC7946='YES')",
            "_mend = gpd.read_file(_cut).to_crs(_crs)",
        ]
    if req.kind == "geometry_types":
        allowed = [str(t) for t in p.get("allowed") or []]
        if allowed and all(t.startswith("Multi") for t in allowed):
            return [
                *_promoted(allowed),
                f"_mend = _mend.set_geometry(_mend.geometry.apply(lambda g: getattr(shapely.geometry, "
                f"'Multi' + g.geom_type)([g]) if g is not None and 'Multi' + g.geom_type in {allowed!r} else g))",
            ]
        if allowed and not any(t.startswith("Multi") for t in allowed):
            return [*_promoted(allowed), "_mend = _mend.explode(index_parts=False).reset_index(drop=True)"]
        return _promoted(allowed)
    if req.kind == "geometries_unique" and p.get("keep") != "as_requested":  # the request's row, else the first
        return [*_kept_first(p), "_mend = _mend[~_mend.geometry.normalize().to_wkb().duplicated()]"]
    if req.kind == "rfc7946_winding":
        return [
            "_mend = _mend.set_geometry(gpd.GeoSeries(shapely.orient_polygons(_mend.geometry.values, exterior_cw=False), "
            "index=_mend.index, crs=_mend.crs))"
        ]
    if req.kind == "geometry_once" and p.get("name"):
        return [f"_mend = _mend.drop(columns=[{str(p['name'])!r}], errors='ignore')"]
    if req.kind == "unique" and p.get("name") and p.get("keep_by"):  # which row stays is the request's, not ours
        return [*_kept_first(p), f"_mend = _mend.drop_duplicates({str(p['name'])!r})"]
    if req.kind == "columns" and p.get("no_stray") and not spatial:  # the listed ones first, in their order
        names = list(map(str, p.get("names") or []))
        stray = [str(n).lower() for n in p["no_stray"]] if isinstance(p["no_stray"], list) else []
        return _carried(p) + [
            f"_mend = _mend[[c for c in {names!r} if c in _mend.columns] + [c for c in _mend.columns if c not in "
            f"{names!r} and not (str(c).lower() in {stray!r} or str(c).lower().startswith('unnamed:'))]]"
        ]
    if req.kind == "columns":
        return _carried(p)
    if req.kind == "point_counts":
        return _point_counts(p, spatial, list(columns))
    if req.kind == "measure_units":
        return _measures(p, spatial)
    if req.kind == "nearest_distance":
        return _nearest(p, spatial)
    if req.kind == "nearest_attribute":
        return _nearest_attribute(p, spatial)
    if req.kind == "density" and all(p.get(k) for k in ("name", "count", "measure", "factor")):
        return [
            f"_mend[{str(p['name'])!r}] = pd.to_numeric(_mend[{str(p['count'])!r}]) / "
            f"pd.to_numeric(_mend[{str(p['measure'])!r}]) * {float(p['factor'])!r}"
        ]
    if req.kind == "dtype" and fmt in _TYPED:
        return _cast(p, spatial)
    if req.kind == "sorted" and p.get("name"):
        name, ascending = str(p["name"]), not p.get("descending")
        numbers = "pd.to_numeric(s, errors='coerce')"
        return [
            f"_mend = _mend.sort_values({name!r}, ascending={ascending}, kind='stable', "
            f"key=lambda s: {numbers} if {numbers}.notna().all() else s)"
        ]
    return []


def _carried(p: dict) -> list[str]:
    """Requested columns an input holds (under the same name, or a joined layer's column renamed:
    ``district_name`` <- ``name``) that the file lacks: taken from that input row by row, by the
    key the file and the input share, as the check matches keys (``_contract_key_match``,
    embedded); a column no key carries is left to the model (vienna at ab135b6: the counts right,
    ``district_name`` never joined in four repairs)."""
    sources = [
        (str(name), *carried)
        for name, source in (p.get("provenance") or {}).items()
        for carried in [carried_from(str(name), str(source))]
        if carried
    ]
    if not sources:
        return []
    lines = _embedded("_contract_key", "_contract_key_match")
    for name, path, column in sources:
        lines += [
            f"if {name!r} not in _mend.columns:",
            "    try:",
            f"        _src = {_read_table(path)}",
            f"        _k, _rows, _ = _contract_key_match(_mend, _src, {name!r})",
            f"        _mend[{name!r}] = _src[{column!r}].iloc[_rows].tolist()",
            "    except Exception as _why:",
            f"        print('not carried: {name}', type(_why).__name__, _why)",
        ]
    return lines


def _promoted(allowed: list[str]) -> list[str]:
    """The file's geometry taken from its one other geometry column whose shapes are the kinds asked
    for, in the file's CRS (tokyo-busstop at c650f01: ``gdf['buffered'] = gdf.buffer(400)`` wrote the
    polygons beside the points; GeoParquet keeps both, and three repairs never moved them)."""
    if not allowed:
        return []
    return [
        f"_alt = [c for c in _mend.columns if c != _mend.geometry.name and str(_mend[c].dtype) == 'geometry' "
        f"and len(_mend[c].dropna()) and set(_mend[c].geom_type.dropna()) <= set({allowed!r})]",
        f"if len(_alt) == 1 and not set(_mend.geom_type.dropna()) <= set({allowed!r}):",
        "    _crs, _name = _mend.crs, _mend.geometry.name",
        "    _mend = _mend.set_geometry(_alt[0]).drop(columns=_name).rename_geometry(_name)",
        "    _mend = _mend.to_crs(_crs) if _crs is not None and _mend.crs is not None else _mend",
    ]


def _kept_first(p: dict) -> list[str]:
    """Order the rows so the one the request keeps of each duplicate comes first ("keep the record
    with the earliest `record_seq`"); a missing column fails the mend's trial rather than keep another."""
    if not p.get("keep_by"):
        return []
    return [f"_mend = _mend.sort_values({str(p['keep_by'])!r}, ascending={p.get('keep') != 'max'}, kind='stable')"]


def _cast(p: dict, spatial: bool) -> list[str]:
    """Store a column (or every other attribute column) as the type the request names."""
    dtype = str(p.get("dtype") or "").lower().replace(" ", "")
    if dtype.startswith("timestamp["):
        unit, _, zone = dtype[len("timestamp[") : -1].partition(",tz=")
        # Numbers are epoch times in the unit their size says (1.7e12: milliseconds), not always nanoseconds.
        unit_of = (
            "(None if not pd.api.types.is_numeric_dtype(_mend[c]) else ['s', 'ms', 'us', 'ns']"
            "[min(3, max(0, len(str(int(_mend[c].abs().median()))) - 10) // 3)])"
        )
        converted = f"pd.to_datetime(_mend[c], utc=True, unit={unit_of})" + (
            f".dt.tz_convert({zone!r})" if zone else ".dt.tz_localize(None)"
        )
        cast = f"{converted}.astype('datetime64[{unit}{', ' + zone if zone else ''}]')"
    elif dtype in ("string", "large_string", "utf8", "text", "strings"):  # a code read as float: "10002", not "10002.0"
        cast = (
            "(_mend[c].astype('Int64') if pd.api.types.is_float_dtype(_mend[c]) and (_mend[c].dropna() % 1 == 0).all() "
            "else _mend[c]).astype('string')"
        )
    elif dtype in ("bool", "boolean"):
        cast = "_mend[c].astype(bool)"
    elif dtype.startswith(("int", "uint", "float")) or dtype == "double":
        cast = f"pd.to_numeric(_mend[c]).astype({'float64' if dtype == 'double' else dtype!r})"
    else:
        return []
    if p.get("name"):
        columns = repr([str(p["name"])])
    else:
        skipped = [*map(str, p.get("others") or []), *(["_mend.geometry.name"] if spatial else [])]
        columns = f"[c for c in _mend.columns if c not in [{', '.join(repr(n) if n != '_mend.geometry.name' else n for n in skipped)}]]"
    return [f"for c in {columns}:", f"    _mend[c] = {cast}"]
