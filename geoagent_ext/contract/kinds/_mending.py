"""Lines the kinds' mends share: reading an input as the checks read it, the checker's own functions
embedded where a mend must compute as its check does, a row's feature, the columns an input carries.
Each builder returns lines of Python run on ``_mend``, the file read back (see ``contract/mend.py``)."""

from __future__ import annotations

import inspect
from collections.abc import Callable

from ..checker import _contract_key, _contract_key_match
from ..formats import file_format
from ..provenance import carried_from


def function_source(function: Callable) -> str:
    """The source of one of the in-kernel functions, for a mend that must compute as the check does
    (rows keyed by ``_contract_key``, nearest features found by ``_contract_nearest_rows``)."""
    return inspect.getsource(function).rstrip("\n")


GEO_READ = {
    "geojson": "gpd.read_file({p!r})",
    "gpkg": "gpd.read_file({p!r})",
    "shp": "gpd.read_file({p!r})",
    "fgb": "gpd.read_file({p!r})",
    "geoparquet": "gpd.read_parquet({p!r})",
}


TYPED = {"parquet", "geoparquet"}  # formats whose stored types a cast reaches (GeoJSON/CSV keep none)


OWN_POLYGONS = "_mend.crs is not None and len(_mend) and set(_mend.geom_type.dropna()) <= {'Polygon', 'MultiPolygon'}"


def read(path: str) -> str:
    """An input layer read with its geometries (a ``.parquet`` one is GeoParquet: GDAL's wheels have
    no Parquet driver)."""
    fmt = file_format(path)
    return (GEO_READ.get(fmt) or ("gpd.read_parquet({p!r})" if fmt == "parquet" else "gpd.read_file({p!r})")).format(
        p=path
    )


def read_table(path: str) -> str:
    """An input read as the contract's checks read it (a CSV's numbers as numbers)."""
    table = {"csv": "pd.read_csv({p!r})", "parquet": "pd.read_parquet({p!r})"}.get(file_format(path))
    return table.format(p=path) if table else read(path)


def embedded(*functions: Callable, indent: str = "") -> list[str]:
    """The lines of the checks' own functions, for a mend that must compute as its check does."""
    return [indent + line for function in functions for line in function_source(function).splitlines()]


def key_def(indent: str = "") -> list[str]:
    """``_key``: a key as the in-kernel check compares it across files (3, 3.0, "3" and "03" alike),
    its ``_contract_key`` itself, so the mend carries values by the keys the check matches."""
    source = function_source(_contract_key).replace("def _contract_key(", "def _key(", 1)
    return [indent + line for line in source.splitlines()]


def row_origins(p: dict, spatial: bool, name: str) -> list[str]:
    """Lines binding ``_from``: each row's feature — the file's own geometries, else the input
    feature of the same key (``_contract_key_match``, embedded) — as the nearest checks take it."""
    return [
        f"if {'_mend.crs is not None' if spatial else 'False'}:",
        "    _from = gpd.GeoSeries(_mend.geometry.values, crs=_mend.crs)",
        "else:",
        *embedded(_contract_key, _contract_key_match, indent="    "),
        f"    _src = {read(str(p['input']))}",
        f"    _k, _rows, _ = _contract_key_match(_mend, _src, {name!r})",
        "    _from = gpd.GeoSeries(_src.geometry.values[_rows], crs=_src.crs)",
    ]


def layer_bbox(name: str, p: dict, epsg: int | None) -> list[str]:
    """The bounds of an input's whole layer (a table's: its WKT column, as written), in ``epsg``
    when given (the one the request names, else lon/lat for a lon/lat name), else in the layer's CRS."""
    source, wkt = str(p["input"]), p.get("wkt")
    if file_format(source) not in GEO_READ and not wkt:
        return []
    lines = [
        f"_src = {read_table(source)}",
        f"_g = gpd.GeoSeries.from_wkt(_src[{str(wkt)!r}].dropna())" if wkt else "_g = _src.geometry",
        "_g = _g[~(_g.isna() | _g.is_empty)]",
    ]
    if epsg:
        lines.append(f"_g = _g.to_crs({int(epsg)}) if _g.crs is not None else _g")
    return lines + [f"_mend[{name!r}] = [float(v) for v in _g.total_bounds]"]


def carried(p: dict) -> list[str]:
    """Requested columns an input holds (under the same name, or a joined layer's column renamed:
    ``district_name`` <- ``name``) that the file lacks: taken from that input row by row, by the
    key the file and the input share, as the check matches keys (``_contract_key_match``,
    embedded): small models often leave such a column out through every repair. A column no key
    carries is left to the model."""
    sources = [
        (str(name), *carried)
        for name, source in (p.get("provenance") or {}).items()
        for carried in [carried_from(str(name), str(source))]
        if carried
    ]
    if not sources:
        return []
    lines = embedded(_contract_key, _contract_key_match)
    for name, path, column in sources:
        lines += [
            f"if {name!r} not in _mend.columns:",
            "    try:",
            f"        _src = {read_table(path)}",
            f"        _k, _rows, _ = _contract_key_match(_mend, _src, {name!r})",
            f"        _mend[{name!r}] = _src[{column!r}].iloc[_rows].tolist()",
            "    except Exception as _why:",
            f"        print('not carried: {name}', type(_why).__name__, _why)",
        ]
    return lines


def promoted(allowed: list[str]) -> list[str]:
    """The file's geometry taken from its one other geometry column whose shapes are the kinds asked
    for, in the file's CRS: ``gdf['buffered'] = gdf.buffer(400)`` writes the polygons beside the
    points, and GeoParquet keeps both."""
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


def kept_first(p: dict) -> list[str]:
    """Order the rows so the one the request keeps of each duplicate comes first ("keep the record
    with the earliest `record_seq`"); a missing column fails the mend's trial rather than keep another."""
    if not p.get("keep_by"):
        return []
    return [f"_mend = _mend.sort_values({str(p['keep_by'])!r}, ascending={p.get('keep') != 'max'}, kind='stable')"]
