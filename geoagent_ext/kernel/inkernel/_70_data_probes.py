"""The agent's data probes: file profiles, input facts, the checks after a step."""

# Part of the in-kernel helper: the parts are executed IN ORDER in one module
# namespace (see inkernel/__init__.py), so names of earlier parts are globals here
# (``geometry_source`` of _15_geocolumns, the ``_contract_*`` checks of _50_contract).
# Every optional library is imported lazily and every failure becomes text, never
# an exception.
import json
import os
import re

VECTOR_EXT = {".geojson", ".gpkg", ".shp", ".kml", ".fgb", ".gml", ".json", ".parquet", ".geoparquet", ".topojson"}
RASTER_EXT = {".tif", ".tiff", ".vrt", ".img", ".jp2", ".asc"}
TABLE_EXT = {".csv", ".tsv", ".txt", ".xlsx"}
ARRAY_EXT = {".nc", ".zarr", ".grib"}


def _vector(path):
    import pyogrio

    layers = [row[0] for row in pyogrio.list_layers(path)]
    out = []
    for layer in layers[:5]:
        info = pyogrio.read_info(path, layer=layer)
        crs = info.get("crs") or "none"
        fields = ", ".join(f"{n}:{t}" for n, t in zip(info["fields"], info["dtypes"]))
        name = f" layer '{layer}'" if len(layers) > 1 else ""
        out.append(
            f"{name} {info.get('features')} features, {info.get('geometry_type')}, CRS {crs}; fields: {fields[:600]}"
        )
    if len(layers) > 1:  # a small model reads the file once and takes the frame for every layer
        more = f" (and {len(layers) - 5} more)" if len(layers) > 5 else ""
        out.insert(
            0,
            f" {len(layers)} layers{more}: gpd.read_file('{path}') reads only the first; read each with "
            f"gpd.read_file('{path}', layer=name) for name, _ in pyogrio.list_layers('{path}')",
        )
    return "vector:" + ";".join(out)


def _parquet(path):
    # From the file's metadata (no data read; files can be large) with pyarrow, not GDAL:
    # GDAL's (Geo)Parquet driver is optional and, in some builds, needs libduckdb.
    import pyarrow.parquet as pq

    pf = pq.ParquetFile(path)
    schema = pf.schema_arrow
    geo = geoparquet_meta(schema)
    rows = pf.metadata.num_rows
    if not geo:
        cols = ", ".join(f"{f.name}:{f.type}" for f in schema)
        return f"table: {rows} rows; columns: {cols[:600]}"
    primary, column, crs = geoparquet_primary(geo)
    if isinstance(crs, dict):
        import pyproj

        crs = pyproj.CRS.from_json_dict(crs).to_string()
    kinds = ", ".join(column.get("geometry_types") or []) or "unknown geometry"
    cols = ", ".join(f"{f.name}:{f.type}" for f in schema if f.name != primary)
    return f"vector (GeoParquet): {rows} features, {kinds}, CRS {crs}; fields: {cols[:600]}"


def _parquet_columns(path):
    """(rows, column names, problem, geometry types) of a (Geo)Parquet file from its metadata;
    "geometry" stands for the primary geometry column, whatever its name. ``problem``: why readers
    of GeoParquet (gpd.read_parquet) cannot load it, or None; geometry types as the GeoParquet
    metadata lists them ("Polygon,MultiPolygon"; "" for plain Parquet or none listed)."""
    import pyarrow.parquet as pq

    pf = pq.ParquetFile(path)
    names = set(pf.schema_arrow.names)
    geo = geoparquet_meta(pf.schema_arrow)
    problem, kinds = None, ""
    if geo:
        primary, column, _ = geoparquet_primary(geo)
        kinds = ",".join(column.get("geometry_types") or [])
        if primary in names:
            names.add("geometry")
        else:  # a GeoDataFrame written without its active geometry column
            problem = (
                f"its GeoParquet metadata names the geometry column '{primary}', which the file lacks "
                f"(make the wanted geometry active with gdf.set_geometry(...) before writing)"
            )
    elif path.lower().endswith(".geoparquet"):
        problem = "it is plain Parquet, not GeoParquet: write it from a GeoDataFrame with gdf.to_parquet(...)"
    return pf.metadata.num_rows, names, problem, kinds


def _table(path):
    import pandas as pd

    frame = pd.read_csv(path, nrows=200, sep=None, engine="python")
    total = sum(1 for _ in open(path, "rb")) - 1
    cols = ", ".join(f"{c}:{t}" for c, t in frame.dtypes.astype(str).items())
    text = f"table: {total} rows; columns: {cols[:600]}"
    # The exact loading call: small models copy it rather than guess column names.
    load, found = geometry_source(frame, "df")
    if load:
        text += (
            f"; {found}; as a GeoDataFrame: df = pd.read_csv({path!r}); "
            f"gdf = gpd.GeoDataFrame(df, geometry={load}, crs='EPSG:4326') (if longitude/latitude)"
        )
    text += f"; first row: {frame.head(1).to_dict('records')[0] if len(frame) else {}}"
    return text[:900]


def _raster(path):
    import rasterio

    with rasterio.open(path) as src:
        resolution = tuple(round(r, 6) for r in src.res)
        bounds = tuple(round(b, 4) for b in src.bounds)
        return (
            f"raster: {src.count} band(s) {src.width}x{src.height}, dtype {src.dtypes[0]}, CRS {src.crs}, "
            f"nodata {src.nodata}, resolution {resolution}, bounds {bounds}"
        )


def _array(path):
    import xarray as xr

    with xr.open_dataset(path) as ds:
        return f"dataset: dims {dict(ds.sizes)}; variables {list(ds.data_vars)[:10]}; coords {list(ds.coords)[:10]}"


def profile_file(path):
    ext = os.path.splitext(path)[1].lower()
    try:
        if ext in (".parquet", ".geoparquet"):
            return _parquet(path)
        if ext in VECTOR_EXT:
            return _vector(path)
        if ext in RASTER_EXT:
            return _raster(path)
        if ext in TABLE_EXT:
            return _table(path)
        if ext in ARRAY_EXT:
            return _array(path)
    except Exception as exc:
        return f"could not read: {type(exc).__name__}: {str(exc)[:150]}"
    return None


def profile_files(root=".", limit=40):
    """Data files under the working directory with a one-line profile each."""
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in ("__pycache__", "node_modules"))
        for name in sorted(filenames):
            if name.startswith(".") or name.endswith(".ipynb"):
                continue
            path = os.path.relpath(os.path.join(dirpath, name), root)
            ext = os.path.splitext(name)[1].lower()
            if ext in VECTOR_EXT | RASTER_EXT | TABLE_EXT | ARRAY_EXT:
                found.append(path)
        if len(found) >= limit or dirpath.count(os.sep) - root.count(os.sep) >= 2:
            break
    empty = sorted({c for p in found[:limit] for c in _empty_columns(p)})
    return {"cwd": os.getcwd(), "files": {p: profile_file(p) for p in found[:limit]}, "empty_columns": empty}


def _empty_columns(path, max_bytes=100_000_000):
    """Columns of a table or layer that are null in every row (skipped above ``max_bytes``):
    empty in the input, so a step that keeps them did nothing wrong."""
    ext = os.path.splitext(path)[1].lower()
    try:
        if os.path.getsize(path) > max_bytes:
            return []
        if ext in (".parquet", ".geoparquet"):
            import pyarrow.parquet as pq

            table = pq.read_table(path)
            return [n for n, col in zip(table.column_names, table.columns) if len(col) and col.null_count == len(col)]
        if ext in (".csv", ".tsv"):
            import pandas as pd

            frame = pd.read_csv(path, sep=None, engine="python")
        elif ext in VECTOR_EXT:
            import pyogrio

            frame = pyogrio.read_dataframe(path, read_geometry=False)
        else:
            return []
        return [str(c) for c in frame.columns if len(frame) and frame[c].isna().all()]
    except Exception:
        return []


def _frame_warnings(name, value, empty_in_input=()):
    warnings = []
    try:
        import pandas as pd
    except ImportError:
        return warnings
    if isinstance(value, pd.DataFrame):
        if len(value) == 0:
            warnings.append(f"`{name}` is empty (0 rows)")
            return warnings
        nulls = [str(c) for c in value.columns if str(c) not in empty_in_input and value[c].isna().all()]
        if nulls:
            warnings.append(f"`{name}` has all-null column(s): {', '.join(nulls[:8])}")
        geom = getattr(value, "geometry", None) if hasattr(value, "crs") else None
        if geom is not None:
            try:
                if geom.is_empty.all():
                    warnings.append(f"`{name}` has only empty geometries")
            except Exception:
                pass
    elif isinstance(value, pd.Series) and len(value) and value.isna().all():
        warnings.append(f"`{name}` is all null")
    return warnings


def _file_warnings(path, fields=()):
    if not os.path.exists(path):
        return [f"the code writes `{path}` but the file does not exist"]
    if os.path.getsize(path) == 0:
        return [f"`{path}` is empty"]
    ext = os.path.splitext(path)[1].lower()
    have = None  # the file's keys or columns, for the fields the request asks for
    try:
        if ext == ".json":
            with open(path) as fh:
                doc = json.load(fh)
            if fields and not isinstance(doc, dict):
                return [
                    f"`{path}` holds a JSON {type(doc).__name__}, but the request asks for an object "
                    f"with keys {', '.join(fields)}"
                ]
            have = set(doc) if isinstance(doc, dict) else set()
        elif ext in (".parquet", ".geoparquet"):
            rows, have, problem, _ = _parquet_columns(path)
            if problem:
                return [f"`{path}` does not load as GeoParquet: {problem}"]
            if rows == 0:
                return [f"`{path}` holds no rows"]
        elif ext in VECTOR_EXT:
            import pyogrio

            info = pyogrio.read_info(path)
            if info.get("features", 1) == 0:
                return [f"`{path}` holds no features"]
            have = set(info["fields"]) if info.get("fields") is not None else set()
            if info.get("geometry_type"):
                have.add("geometry")
        elif ext in RASTER_EXT:
            import rasterio

            with rasterio.open(path):
                pass
        elif ext == ".csv":
            import pandas as pd

            have = set(pd.read_csv(path, nrows=5).columns)
    except Exception as exc:
        return [f"`{path}` does not open: {type(exc).__name__}: {str(exc)[:150]}"]
    missing = [f for f in fields if have is not None and f not in have]
    if missing:
        return [
            f"`{path}` lacks {', '.join(missing)} that the request asks for (it has: "
            f"{', '.join(sorted(map(str, have))[:12]) or 'nothing'})"
        ]
    return []


def input_facts(paths):
    """{path: {rows, columns}} of data files, from metadata where the format has it (for the contract)."""
    out = {}
    for path in paths:
        ext = os.path.splitext(path)[1].lower()
        try:
            if ext in (".parquet", ".geoparquet"):
                rows, names, _, kinds = _parquet_columns(path)
                out[path] = {
                    "rows": rows,
                    "columns": sorted(n for n in names if n != "geometry"),
                    "geometry_type": kinds,
                }
                if kinds and os.path.getsize(path) <= 100_000_000:
                    import geopandas as gpd

                    out[path].update(_place_facts(gpd.read_parquet(path)))
            elif ext in (".csv", ".tsv"):
                import pandas as pd

                frame = pd.read_csv(path, sep=None, engine="python")
                out[path] = {
                    "rows": len(frame),
                    "columns": [str(c) for c in frame.columns],
                    **_category_facts(frame),
                }
                wkt = _wkt_columns(frame)
                if wkt:
                    out[path]["defects"] = {"wkt_text": wkt}
                    out[path].update(_wkt_place(frame))
            elif ext in VECTOR_EXT:
                import pyogrio

                layers = [row[0] for row in pyogrio.list_layers(path)]
                info = pyogrio.read_info(path, layer=layers[0]) if layers else {}
                out[path] = {
                    "rows": info.get("features") if len(layers) == 1 else None,
                    "columns": [str(c) for c in info.get("fields", [])],
                    "layers": len(layers),
                    "geometry_type": str(info.get("geometry_type") or ""),
                }
                if len(layers) == 1:
                    out[path].update(_layer_facts(path, ext, info.get("geometry_type") or ""))
                elif layers:
                    each = {name: _one_layer_facts(path, ext, name) for name in layers}
                    out[path].update(_layers_place([f.get("bounds_wgs84") for f in each.values()]))
                    out[path]["layer_facts"] = each
        except Exception:
            continue
    return out


_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
_PLACEHOLDERS = {"", "na", "n/a", "nan", "null", "none", "-", "--"}


def _text_columns(frame):
    """The attribute columns holding text (object or pandas' string dtypes)."""
    return [
        str(c)
        for c in frame.columns
        if c != "geometry" and (frame[c].dtype.kind in "OSU" or "str" in str(frame[c].dtype))
    ]


def _place_facts(frame):
    """{"epsg": the layer's EPSG code or None, "bounds_wgs84": [w, s, e, n]} where the data lies:
    a deliverable made from it lies there too, and "keep its own grid" names its CRS."""
    try:
        crs = frame.crs
        box = _contract_geo_bounds_wgs84(frame)  # noqa: F821 - _50_contract
    except Exception:
        return {}
    facts = {"epsg": crs.to_epsg() if crs is not None else None}
    if box is not None:
        facts["bounds_wgs84"] = [round(float(v), 6) for v in box[:4]]
    return facts


def _wkt_place(frame):
    """{"bounds_wgs84": [w, s, e, n]} of a table whose geometry is WKT text in one column, when its
    coordinates are lon/lat (WKT has no CRS: coordinates within lon/lat's ranges are read as such)."""
    try:
        view = _contract_wkt_view(frame)  # noqa: F821 - _50_contract
        box = _contract_geo_bounds_wgs84(view) if view is not frame else None  # noqa: F821 - _50_contract
    except Exception:
        return {}
    return {"bounds_wgs84": [round(float(v), 6) for v in box[:4]]} if box is not None else {}


def _layers_place(boxes):
    """{"bounds_wgs84": [w, s, e, n]} around every layer of a file of several (``boxes``: each
    layer's, None where unknown): whatever layer a deliverable is made from, it lies inside."""
    if any(box is None for box in boxes):
        return {}  # a layer without a known place (or not read: a large file): the file's place is unknown
    if not boxes or any(w > e for w, _, e, _ in boxes):
        return {}
    return {
        "bounds_wgs84": [
            min(b[0] for b in boxes),
            min(b[1] for b in boxes),
            max(b[2] for b in boxes),
            max(b[3] for b in boxes),
        ]
    }


def _categories(frame, most=50):
    """{column: its values} of the text columns that hold few distinct ones (categories such as
    "county", "locality"), each list whole: a request that selects rows by one names the others too."""
    if frame is None:
        return {}
    found = {}
    for name in _text_columns(frame):
        try:
            distinct = frame[name].dropna().unique()
        except TypeError:  # unhashable values (lists, dicts): not categories
            continue
        if len(distinct) <= most and all(isinstance(v, str) and 0 < len(v) <= 64 for v in distinct):
            found[str(name)] = sorted(str(v) for v in distinct)
    return found


def _category_facts(frame, limit=300):
    """{"categories": {column: its values}, "values": every such value}: a request that names one
    is naming a value, not a column (the text columns are read once for both)."""
    categories = _categories(frame)
    return {"values": sorted({v for values in categories.values() for v in values})[:limit], "categories": categories}


def _wkt_columns(frame):
    """The attribute columns whose values are geometries written as WKT text ("POINT (-73.9 40.7)")."""
    found = []
    for name in _text_columns(frame):
        values = frame[name].dropna()
        first = values.iloc[0] if len(values) else None
        if is_wkt_text(first):  # noqa: F821 - _15_geocolumns
            found.append(str(name))
    return found


def _numbers_as_text(frame, text_columns):
    """{column: "integer" | "number"} of text columns whose every value is a number written as text
    (placeholders such as "" or "N/A" aside). Codes with leading zeros ("007", "02134") are
    identifiers, not numbers: a column holding one is left out."""
    found = {}
    for name in text_columns:
        values = [str(v).strip() for v in frame[name].dropna().tolist() if isinstance(v, str)]
        numbers = [v for v in values if v.lower() not in _PLACEHOLDERS]
        if not numbers or len(numbers) < len(values) / 2 or not all(_NUMBER.fullmatch(v) for v in numbers):
            continue
        if any(len(v.lstrip("+-")) > 1 and v.lstrip("+-")[0] == "0" and v.lstrip("+-")[1].isdigit() for v in numbers):
            continue
        found[str(name)] = "integer" if all(v.lstrip("+-").isdigit() for v in numbers) else "number"
    return found


def _one_layer_facts(path, ext, layer):
    """The facts of one layer of a file of several, as a file of that layer alone would give them:
    what the contract reads of an input when the request names the layer."""
    import pyogrio

    try:
        info = pyogrio.read_info(path, layer=layer)
    except Exception:
        return {}
    return {
        "rows": info.get("features"),
        "columns": [str(c) for c in info.get("fields", [])],
        "geometry_type": str(info.get("geometry_type") or ""),
        **_layer_facts(path, ext, info.get("geometry_type") or "", layer=layer),
    }


def _layer_facts(path, ext, geometry_type, max_bytes=100_000_000, layer=None):
    """What a deliverable made from this layer must not carry over, and its text columns (from
    the data, read once; large files are skipped): features jumping over the antimeridian,
    GeoJSON polygons wound against RFC 7946 (the checks of _50_contract), numbers stored as
    text."""
    if os.path.getsize(path) > max_bytes:
        return {}
    import geopandas as gpd

    defects, text_columns, kinds, frame = {}, [], "", None
    try:
        frame = gpd.read_file(path, layer=layer) if layer is not None else gpd.read_file(path)
        kinds = ",".join(sorted(set(frame.geom_type.dropna())))  # GDAL says "Unknown" for a mixed layer
        text_columns = _text_columns(frame)
        numeric = _numbers_as_text(frame, text_columns)
        if numeric:
            defects["numbers_as_text"] = numeric
        wkt = _wkt_columns(frame)
        if wkt:
            defects["wkt_text"] = wkt
        if "Point" not in geometry_type:
            crossing = _contract_uncut_crossings(frame)  # noqa: F821 - _50_contract
            if crossing:
                defects["antimeridian"] = len(crossing)
            if ext in (".geojson", ".json"):
                wrong, _ = _contract_winding_faults(path)  # noqa: F821 - _50_contract
                if wrong:
                    defects["winding"] = wrong
    except Exception:
        pass
    facts = {
        "defects": defects,
        "text_columns": text_columns,
        **_category_facts(frame),
        **_place_facts(frame),
    }
    if kinds:
        facts["geometry_type"] = kinds
    return facts


def missing_files(paths):
    """The paths (relative to the kernel's working directory) that do not exist."""
    return [p for p in paths if not os.path.exists(p)]


def make_output_dirs(paths):
    """Create the folders the request's output files go in ("outputs/summary.csv"): every writer
    fails on a missing folder, each in its own words (pandas, GDAL, Arrow, open). Returns those made."""
    made = []
    for folder in sorted({os.path.dirname(p) for p in paths if os.path.dirname(p)}):
        if not os.path.isdir(folder):
            os.makedirs(folder, exist_ok=True)
            made.append(folder)
    return made


def check_result(names, files, fields=None, empty_in_input=()):
    """Semantic checks after a step: empty/all-null results, claimed files that are missing or
    broken or lack the keys/columns the request names (``fields``: path -> names).
    ``empty_in_input``: columns already null in every row of the input files (not the step's doing)."""
    ns = _ns()
    warnings = []
    for name in names:
        if name in ns:
            warnings.extend(_frame_warnings(name, ns[name], set(empty_in_input)))
    for path in files:
        warnings.extend(_file_warnings(path, (fields or {}).get(path, ())))
    return {"warnings": warnings}
