# The deliverable contract's checker, run in the kernel on the files read back from disk: a part of
# the in-kernel helper that the contract package owns (``kernel/inkernel`` ships it as its
# ``_50_contract`` part, with each requirement kind's own check from ``contract/kinds``; the data
# probes use its functions too). Here: reading a deliverable, the functions several kinds share,
# and ``check_contract``, which dispatches each requirement to its kind. It follows the helper's rules:
# standard library only at import time, Python 3.8 syntax, no geoagent_ext import; names of the
# helper's other parts (geoparquet_meta, is_wkt_text, _wkt_columns) resolve in the kernel. It
# imports lazily and turns every failure into an observation, never an exception. Each check
# answers (passed, observed): what was seen, in words a repair prompt can use.


def _contract_load(path, fmt):
    """{layer name: frame} for tables/layers, or {"": document} for JSON."""
    import json as _j

    if fmt == "json":
        with open(path, encoding="utf-8") as fh:
            return {"": _contract_records(_j.load(fh))}
    if fmt == "csv":
        import pandas as pd

        return {"": pd.read_csv(path)}
    if fmt in ("parquet", "geoparquet"):
        import pyarrow.parquet as pq

        if geoparquet_meta(pq.read_schema(path)):  # noqa: F821 - _15_geocolumns
            import geopandas as gpd

            return {"": gpd.read_parquet(path)}
        import pandas as pd

        return {"": pd.read_parquet(path)}
    import geopandas as gpd
    import pyogrio

    layers = [row[0] for row in pyogrio.list_layers(path)]
    if fmt == "gpkg" and len(layers) > 1:
        return {name: gpd.read_file(path, layer=name) for name in layers}
    frame = gpd.read_file(path)
    if fmt == "geojson":  # its top-level members beside "features" ("name", "metadata") are the file's too
        with open(path, encoding="utf-8") as fh:
            document = _j.load(fh)
        if isinstance(document, dict):
            import os as _o

            stem = _o.path.splitext(_o.path.basename(path))[0]
            frame.attrs["members"] = {
                k: v
                for k, v in document.items()
                if k not in ("type", "features", "crs", "bbox") and not (k == "name" and v == stem)
            }  # GDAL's own: the layer's name
    return {"": frame}


def _contract_records(document):
    """A JSON list of records is a table (one row per record); any other document stays as it is."""
    if isinstance(document, list) and document and all(isinstance(x, dict) for x in document):
        import pandas as pd

        return pd.DataFrame(document)
    return document


def _contract_nested_records(values, frame=None):
    """The records held in a column's cells (each a record, or a list of records), as one table; None
    when the cells hold anything else. With the ``frame`` the column is of, each record also gets its
    row's plain values ({"address_id": 7, "nearest": [{...}]}: each nearest record is address 7's);
    a key of the record's own keeps the record's value."""
    import pandas as pd

    if values.dtype != object:
        return None
    held = []  # (row position, its records)
    for i, v in enumerate(values.tolist()):
        if isinstance(v, dict):
            held.append((i, [v]))
        elif isinstance(v, list) and all(isinstance(x, dict) for x in v):
            held.append((i, v))
        elif not (v is None or (not isinstance(v, (list, dict, str)) and pd.isna(v))):
            return None
    if not any(records for _, records in held):
        return None
    outer = frame.drop(columns=[values.name]).to_dict("records") if frame is not None else None
    plain = (str, int, float, bool, type(None))
    rows = []
    for i, records in held:
        row = {k: x for k, x in outer[i].items() if isinstance(x, plain)} if outer is not None else {}
        rows += [dict(row, **record) for record in records]
    return pd.DataFrame(rows)


def _contract_holder(data, name, depth=3):
    """The part of a document that holds ``name``: the document itself when it has it at the top
    (a key, a column, a GeoJSON top-level member), else a nested object or list of records that has
    it ("summary": {...}, "features": [{...}]), as a dict or a table; an object whose values are all
    records holding it ({"Mitte": {"n": 3}, ...}) is a table of them. None when none does."""
    if hasattr(data, "columns"):
        if name in data.columns:
            return data
        members = data.attrs.get("members") or {}
        found = _contract_holder(members, name, depth) if members else None
        for column in data.columns if found is None and depth else []:  # records nested in a column's cells
            nested = _contract_nested_records(data[column], data)
            found = _contract_holder(nested, name, depth - 1) if nested is not None else None
            if found is not None:
                break
        return found
    if isinstance(data, dict):
        if name in data:
            return data
        records = list(data.values())
        if depth and len(records) > 1 and all(isinstance(r, dict) and name in r for r in records):
            import pandas as pd

            return pd.DataFrame.from_records(records)  # an object of records keyed by name is a table
        if depth:
            for value in data.values():
                found = _contract_holder(_contract_records(value), name, depth - 1)
                if found is not None:
                    return found
    return None


def _contract_short(value, limit=160):
    text = repr(value) if not isinstance(value, str) else value
    return text if len(text) <= limit else text[:limit] + "..."


def _contract_crs_label(crs):
    if crs is None:
        return "no CRS"
    code = crs.to_epsg()
    return f"EPSG:{code} ({crs.name})" if code else crs.name


def _contract_values(data, name):
    """(values as a list, found) for a JSON key or a table column."""
    if isinstance(data, dict):
        if name not in data:
            return None, False
        return data[name], True
    if name not in data.columns:
        return None, False
    return data[name], True


def _contract_numbers(value):
    """Flat list of the numbers in a JSON value (lists, dicts of numbers) or a column."""
    if hasattr(value, "tolist"):
        value = value.tolist()
    if isinstance(value, dict):
        value = list(value.values())
    if not isinstance(value, (list, tuple)):
        value = [value]
    out = []
    for v in value:
        if isinstance(v, (list, tuple, dict)):
            out += _contract_numbers(v)
        else:
            out.append(v)
    return out


def _contract_geo_bounds_wgs84(frame):
    """(west, south, east, north, centre lon, centre lat) of the data, or None without geometry/CRS.

    The centre is taken in the data's own CRS and then transformed: a lon/lat box of data that
    crosses the antimeridian spans the globe and its middle is on the wrong side of it."""
    crs = getattr(frame, "crs", None)
    if crs is None or not hasattr(frame, "geometry") or frame.geometry.is_empty.all():
        return None
    import pyproj

    x0, y0, x1, y1 = (float(b) for b in frame.geometry.total_bounds)
    if crs.is_geographic:
        return (x0, y0, x1, y1, (x0 + x1) / 2, (y0 + y1) / 2)
    t = pyproj.Transformer.from_crs(crs, "EPSG:4326", always_xy=True)
    cx, cy = t.transform((x0 + x1) / 2, (y0 + y1) / 2)
    return tuple(float(b) for b in t.transform_bounds(x0, y0, x1, y1)) + (float(cx), float(cy))


def _contract_beyond_lonlat(frame):
    """What is wrong when a frame in a geographic CRS has coordinates no place on Earth has (a
    latitude beyond 90 degrees, a longitude beyond -180..360: 0..360 is a convention), else "": a
    distance in metres applied to degrees (a 400 m buffer drawn as 400 degrees) puts them there."""
    crs = getattr(frame, "crs", None)
    if crs is None or not crs.is_geographic or not hasattr(frame, "geometry") or frame.geometry.is_empty.all():
        return ""
    x0, y0, x1, y1 = (float(b) for b in frame.geometry.total_bounds)
    if -90.000001 <= y0 and y1 <= 90.000001 and -180.000001 <= x0 and x1 <= 360.000001:
        return ""
    return (
        f"coordinates [{x0:.6g}, {y0:.6g}, {x1:.6g}, {y1:.6g}] in a lon/lat CRS ({_contract_crs_label(crs)}) are "
        "beyond any place on Earth: a distance in metres was applied to degrees (buffer or offset in a projected "
        "CRS in metres, then reproject)"
    )


def _contract_uncut_crossings(frame):
    """Row positions whose lines or polygon rings jump over the antimeridian in one segment
    (consecutive vertices more than 180 degrees of longitude apart), seen in lon/lat. Such a
    feature is drawn across the whole globe; RFC 7946 section 3.1.9 says cut it at +-180.
    A vertex on +-180 itself is a cut, never a jump."""
    import numpy as np
    import shapely

    crs = getattr(frame, "crs", None)
    geoms = frame.geometry
    if crs is not None and not crs.is_geographic:
        geoms = geoms.to_crs(4326)
    elif crs is None:
        x0, y0, x1, y1 = geoms.total_bounds
        if not (-180 <= x0 and x1 <= 180 and -90 <= y0 and y1 <= 90):
            return []
    parts, owner = shapely.get_parts(np.asarray(geoms.values, dtype=object), return_index=True)
    kind = shapely.get_type_id(parts)
    rings, ring_of = shapely.get_rings(parts[kind == 3], return_index=True)
    lines = np.concatenate([parts[(kind == 1) | (kind == 2)], rings])
    owners = np.concatenate([owner[(kind == 1) | (kind == 2)], owner[kind == 3][ring_of]])
    if not len(lines):
        return []
    coords, line_of = shapely.get_coordinates(lines, return_index=True)
    a, b = coords[:-1, 0], coords[1:, 0]
    on_cut = (np.abs(a) >= 180 - 1e-6) | (np.abs(b) >= 180 - 1e-6)
    jump = (line_of[1:] == line_of[:-1]) & ~on_cut & (np.abs(b - a) > 180)
    return sorted({int(i) for i in owners[line_of[:-1][jump]]})


def _contract_ring_area2(ring):
    """Twice the signed area of a ring of [x, y, ...] positions: > 0 counter-clockwise."""
    return sum(x0 * y1 - x1 * y0 for (x0, y0, *_), (x1, y1, *_) in zip(ring, ring[1:]))


def _contract_winding_faults(path):
    """(polygons wound against RFC 7946 section 3.1.6, polygons) of a GeoJSON file, read from
    its JSON text (a reader may reorient rings): exteriors must be counter-clockwise, holes clockwise."""
    import json as _j

    with open(path, encoding="utf-8") as fh:
        doc = _j.load(fh)
    stack = [f.get("geometry") for f in doc.get("features", [])] if doc.get("type") == "FeatureCollection" else [doc]
    stack = [g.get("geometry") if isinstance(g, dict) and g.get("type") == "Feature" else g for g in stack]
    wrong = total = 0
    while stack:
        g = stack.pop()
        if not isinstance(g, dict):
            continue
        kind, coords = g.get("type"), g.get("coordinates") or []
        if kind == "GeometryCollection":
            stack += g.get("geometries") or []
            continue
        polygons = [coords] if kind == "Polygon" else coords if kind == "MultiPolygon" else []
        for rings in polygons:
            total += 1
            signs = [_contract_ring_area2(r) for r in rings]
            if (signs and signs[0] < 0) or any(s > 0 for s in signs[1:]):
                wrong += 1
    return wrong, total


_CONTRACT_LAYERS = "\0input_layers"  # the key of ``sources`` holding the requirement's {input: layer}


def _contract_input(path, sources):
    """The table/layer of an input file a check reads, read once per check (``sources``: path ->
    layers): the layer the requirement names for it (its ``input_layers``, which
    ``_contract_check_table`` puts in ``sources``), else the file's first."""
    layer = (sources.get(_CONTRACT_LAYERS) or {}).get(path)
    if layer:
        if (path, layer) not in sources:
            import geopandas as gpd

            sources[(path, layer)] = gpd.read_file(path, layer=layer)
        return sources[(path, layer)]
    if path not in sources:
        sources[path] = _contract_load(path, _contract_format(path))
    return next(iter(sources[path].values()))


# A unit in its base (m² or m): what one of it is worth. International acres, square feet and miles,
# feet and miles (a US survey unit is within 4 ppm of them). The host reads it as formats.UNIT_IN_BASE.
_CONTRACT_UNIT_IN_BASE = {"km2": 1e6, "sqkm": 1e6, "m2": 1.0, "sqm": 1.0, "ha": 1e4, "km": 1e3, "m": 1.0}
_CONTRACT_UNIT_IN_BASE.update({"acre": 4046.8564224, "ft2": 0.09290304, "mi2": 2589988.110336})
_CONTRACT_UNIT_IN_BASE.update({"ft": 0.3048, "mi": 1609.344})
# a measure in the base times this is the measure in the unit
_CONTRACT_UNIT_FACTOR = {unit: 1 / worth for unit, worth in _CONTRACT_UNIT_IN_BASE.items()}
_CONTRACT_SHAPE_SAMPLE = 5000  # features compared (evenly spread) in a larger file


def _contract_geodesic(frame, measure):
    """Each feature's area (m²), perimeter or length (m) on the WGS84 ellipsoid (pyproj.Geod: no
    CRS to choose, right across the antimeridian), None where its geometry has no such measure."""
    from pyproj import Geod

    geod = Geod(ellps="WGS84")
    lonlat = frame.geometry.to_crs(4326) if not frame.crs.equals("EPSG:4326") else frame.geometry
    kinds = ("LineString", "MultiLineString") if measure == "length" else ("Polygon", "MultiPolygon")
    out = []
    for geom in lonlat.values:
        if geom is None or geom.is_empty or geom.geom_type not in kinds:
            out.append(None)
        elif measure == "area":
            out.append(abs(geod.geometry_area_perimeter(geom)[0]))
        else:
            out.append(geod.geometry_length(geom))
    return out


def _contract_has_geometry(data):
    """A GeoDataFrame, not a table whose text column happens to be called "geometry" (a CSV
    written from one: `data.geometry` is then that column and has no CRS)."""
    return hasattr(data, "crs") and hasattr(data, "geometry") and hasattr(data.geometry, "crs")


def _contract_no_geometry_present(data):
    """Rows, and not one of them with a geometry (a GeoDataFrame built from columns alone writes
    null geometries): every geometry requirement would hold of nothing ("every feature is a
    MultiLineString" would pass on null geometries)."""
    geometry = data.geometry
    return len(data) > 0 and bool((geometry.isna() | geometry.is_empty).all())


def _contract_wkt_view(data):
    """A table whose geometry is written as WKT text in one column (a CSV has no other way), as a
    GeoDataFrame whose geometry is that column parsed, the other columns as they are: the geometry
    requirements hold of it as of a layer's. WKT carries no CRS: the view is in lon/lat (EPSG:4326)
    when every coordinate lies within lon/lat's ranges, else it has none. The table itself when no
    column, or more than one, holds WKT."""
    columns = []
    for column in data.columns:
        dtype = data[column].dtype
        values = data[column].dropna() if dtype.kind in "OSU" or "str" in str(dtype) else ()
        if len(values) and is_wkt_text(values.iloc[0]):  # noqa: F821 - _15_geocolumns
            columns.append(column)
    if len(columns) != 1:
        return data
    import geopandas as gpd
    import shapely

    name = columns[0]
    text = [v if isinstance(v, str) else None for v in data[name].tolist()]
    geoms = gpd.GeoSeries(shapely.from_wkt(text, on_invalid="ignore"), index=data.index)
    present = geoms[~(geoms.isna() | geoms.is_empty)]
    x0, y0, x1, y1 = present.total_bounds if len(present) else (0.0, 0.0, 0.0, 0.0)
    lonlat = len(present) and -180 <= x0 and x1 <= 180 and -90 <= y0 and y1 <= 90
    return gpd.GeoDataFrame(data.assign(**{name: geoms}), geometry=name, crs=4326 if lonlat else None)


def _contract_key(value):
    """A key as compared across files: 3, 3.0, "3" and "03" alike; text stripped."""
    text = str(value).strip()
    try:
        number = float(text)
    except ValueError:
        return text
    return str(int(number)) if number.is_integer() else text


def _contract_key_match(data, polys, name):
    """(column, [polygon row of each file row], unmatched polygon rows) for the file column that
    names the polygons: one of the same name whose input values are unique, else a text column equal
    to a unique text column of the input (numbers under other names could match by chance); None."""
    import pandas as pd

    geometry = getattr(getattr(polys, "geometry", None), "name", "geometry")
    shared = [c for c in data.columns if c in polys.columns and c not in (name, geometry)]

    def text(frame, c):
        return not pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_datetime64_any_dtype(frame[c])

    texts = [c for c in polys.columns if c != geometry and c not in shared and text(polys, c)]
    for column in shared + [c for c in data.columns if c not in shared and c != name and text(data, c)]:
        for src_column in [column] if column in shared else texts:
            keys = [_contract_key(v) for v in polys[src_column].tolist()]
            if pd.isna(polys[src_column]).any() or len(set(keys)) != len(keys):
                continue
            where = {k: i for i, k in enumerate(keys)}
            mine = [_contract_key(v) for v in data[column].tolist()]
            if mine and all(k in where for k in mine):
                rows = [where[k] for k in mine]
                return column, rows, sorted(set(range(len(keys))) - set(rows))
    return None


def _contract_rounding_step(values):
    """1 when every value is a whole number, 0.1 ... 1e-6 for the fewest decimals that write them all, else 0."""
    for step in (1.0, 0.1, 0.01, 1e-3, 1e-4, 1e-5, 1e-6):
        if all(abs(v / step - round(v / step)) < 1e-6 for v in values):
            return step
    return 0.0


def _contract_strings(values):
    """A column's or a JSON value's items as text, for comparing with names, templates and inputs."""
    return [str(v) for v in (values.tolist() if hasattr(values, "tolist") else values)]


def _contract_column_values(data, value):
    """The values a column check reads: a JSON value's numbers flattened (a dict's values too), or
    the column itself."""
    return _contract_numbers(value) if isinstance(data, dict) else value


def _contract_check_table(kind, params, data, sources=None):
    """(passed, observed) of one requirement on one table/layer or JSON document, by its kind's
    check in ``_CONTRACT_KINDS`` (the table ``contract.kinds`` appends to this part). The part of a
    document that holds ``params["name"]`` is what a check reads; a geometry kind fails without
    geometries; a column check gets the column's value, and a missing column fails it (passes
    with ``if_present``). ``sources``: input files already read in this check (several
    requirements may read the same input)."""
    reads, geometry, check = _CONTRACT_KINDS[kind]  # noqa: F821 - appended by contract.kinds.checker_source
    name = params.get("name")
    sources = {} if sources is None else sources
    sources[_CONTRACT_LAYERS] = params.get("input_layers") or {}  # which layer of each input it reads
    if not isinstance(data, dict) and not hasattr(data, "columns"):
        return False, f"the file holds a JSON {type(data).__name__}, not an object with named values"
    if name and _contract_holder(data, name) is not None:
        data = _contract_holder(data, name)  # the nested object or records, or the members, that hold it
    if geometry and hasattr(data, "columns") and not _contract_has_geometry(data):
        data = _contract_wkt_view(data)  # geometry written as WKT text: read as the file's geometry
    if geometry and (isinstance(data, dict) or not _contract_has_geometry(data) or _contract_no_geometry_present(data)):
        return False, "no geometry in the file"
    if reads == "table":
        return check(params, data, sources)
    value, found = _contract_values(data, name)
    if not found:
        if params.get("if_present"):
            return True, f"`{name}` is not in the file (nothing to check)"
        return False, f"`{name}` is not in the file"
    return check(params, data, value, sources)


def _contract_format(path):
    import os as _o

    ext = _o.path.splitext(path)[1].lower()
    return {".json": "json", ".csv": "csv", ".parquet": "parquet", ".geoparquet": "geoparquet"}.get(ext, "vector")


def _contract_over_layers(layers, check):
    """(passed on every layer, what each showed) of ``check`` on {layer name: data}."""
    passed, observed = True, ""
    for layer, data in layers.items():
        ok, seen = check(data)
        observed = (observed + "; " if observed else "") + (f"[{layer}] " if layer else "") + seen
        passed = passed and ok
    return passed, observed


def check_contract(outputs):
    """[{id, passed, observed}] for every checkable requirement of ``outputs``
    ([{path, format, requirements: [{id, kind, params}]}])."""
    import os as _o

    results, sources = [], {}
    for out in outputs:
        path, fmt, reqs = out["path"], out["format"], out["requirements"]
        if not _o.path.exists(path):
            results += [{"id": r["id"], "passed": False, "observed": f"`{path}` does not exist"} for r in reqs]
            continue
        try:
            layers = _contract_load(path, fmt)
        except Exception as exc:
            results += [
                {
                    "id": r["id"],
                    "passed": False,
                    "observed": f"`{path}` does not open as {fmt}: {type(exc).__name__}: {str(exc)[:150]}",
                }
                for r in reqs
            ]
            continue
        for r in reqs:
            kind, params = r["kind"], r.get("params") or {}
            try:
                reads, _, check = _CONTRACT_KINDS.get(kind) or (None, False, None)  # noqa: F821 - contract.kinds
                if check is None:
                    passed, observed = False, f"unknown requirement kind {kind!r}"
                elif reads == "file":
                    passed, observed = check(params, path, fmt, layers)
                else:
                    passed, observed = _contract_over_layers(
                        layers,
                        lambda data, kind=kind, params=params: _contract_check_table(kind, params, data, sources),
                    )
            except Exception as exc:
                passed, observed = False, f"could not check: {type(exc).__name__}: {str(exc)[:150]}"
            results.append({"id": r["id"], "passed": bool(passed), "observed": observed[:400]})
    return results
