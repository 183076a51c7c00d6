# The deliverable contract's checks, run in the kernel on the files read back from disk: a part of
# the in-kernel helper that the contract package owns (``kernel/inkernel`` ships it as its
# ``_50_contract`` part; the data probes use its checks too). So it follows the helper's rules:
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


def _contract_nested_records(values):
    """The records held in a column's cells (each a record, or a list of records), as one table; None
    when the cells hold anything else."""
    rows = []
    for v in values.dropna().tolist() if values.dtype == object else []:
        if isinstance(v, dict):
            rows.append(v)
        elif isinstance(v, list) and all(isinstance(x, dict) for x in v):
            rows += v
        else:
            return None
    if not rows:
        return None
    import pandas as pd

    return pd.DataFrame(rows)


def _contract_holder(data, name, depth=3):
    """The part of a document that holds ``name``: the document itself when it has it at the top
    (a key, a column, a GeoJSON top-level member), else a nested object or list of records that has
    it ("summary": {...}, "features": [{...}]), as a dict or a table; None when none does."""
    if hasattr(data, "columns"):
        if name in data.columns:
            return data
        members = data.attrs.get("members") or {}
        found = _contract_holder(members, name, depth) if members else None
        for column in data.columns if found is None and depth else []:  # records nested in a column's cells
            nested = _contract_nested_records(data[column])
            found = _contract_holder(nested, name, depth - 1) if nested is not None else None
            if found is not None:
                break
        return found
    if isinstance(data, dict):
        if name in data:
            return data
        if depth:
            for value in data.values():
                found = _contract_holder(_contract_records(value), name, depth - 1)
                if found is not None:
                    return found
    return None


def _contract_json_shape(path, shape):
    """(passed, observed): the JSON document's top level is a list (an array) or an object, as asked."""
    import json as _j

    with open(path, encoding="utf-8") as fh:
        document = _j.load(fh)
    kind = "list" if isinstance(document, list) else "object" if isinstance(document, dict) else type(document).__name__
    if isinstance(document, dict) and document.get("type") == "FeatureCollection":
        kind = "object (a GeoJSON FeatureCollection)"
    return kind == shape, f"the top level is a JSON {kind}" + ("" if kind == shape else f", not a {shape}")


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


def _contract_type_name(t):
    """A type as Arrow or OGR/numpy names it, or as a request writes it ("double", "text") ->
    one canonical name, so the two compare."""
    t = str(t).lower().replace(" ", "")
    if t.startswith("datetime64["):  # pyogrio's numpy dtypes
        t = "timestamp[" + t[len("datetime64[") :]
    aliases = {
        "large_string": "string",
        "utf8": "string",
        "object": "string",
        "str": "string",
        "double": "float64",
        "float": "float32",
        "halffloat": "float16",
        "boolean": "bool",
        "date32[day]": "date32",
        "date64[ms]": "date64",
        "text": "string",
        "strings": "string",
    }
    return aliases.get(t, t.replace(",tz=", ", tz="))


def _contract_stored_types(path, fmt):
    """{layer: {column: canonical type}} as the file stores them (geometry columns left out): a
    Parquet schema, not the pandas frame read from it (which turns timestamp[us] into [ns])."""
    if fmt in ("parquet", "geoparquet"):
        import pyarrow.parquet as pq

        schema = pq.read_schema(path)
        skip = set(geoparquet_meta(schema).get("columns", {}))  # noqa: F821 - _15_geocolumns
        return {
            "": {
                f.name: _contract_type_name(f.type)
                for f in schema
                if f.name not in skip and not f.name.startswith("__index_level_")
            }
        }
    import pyogrio

    out = {}
    layers = [row[0] for row in pyogrio.list_layers(path)]
    for layer in layers:
        info = pyogrio.read_info(path, layer=layer)
        out[layer if len(layers) > 1 else ""] = {
            str(n): _contract_type_name(d) for n, d in zip(info["fields"], info["dtypes"])
        }
    return out


def _contract_check_dtype(params, types):
    """(passed, observed) of a stored-type requirement on one layer's {column: type}."""
    want = _contract_type_name(params["dtype"])

    def ok(t):  # "timestamp[us]" also accepts a zone the request did not name
        return t == want or (want.startswith("timestamp[") and "," not in want and t.startswith(want[:-1] + ","))

    if "name" in params:
        name = params["name"]
        if name not in types:
            return False, f"`{name}` is not in the file"
        return ok(types[name]), f"`{name}` is stored as {types[name]}"
    wrong = {n: t for n, t in types.items() if n not in params.get("others", []) and not ok(t)}
    return not wrong, (f"not {want}: {dict(list(wrong.items())[:6])}" if wrong else f"every other column is {want}")


def _contract_input(path, sources):
    """The first table/layer of an input file, read once per check (``sources``: path -> layers)."""
    if path not in sources:
        sources[path] = _contract_load(path, _contract_format(path))
    return next(iter(sources[path].values()))


_CONTRACT_UNIT_FACTOR = {"km2": 1e-6, "sqkm": 1e-6, "m2": 1.0, "sqm": 1.0, "ha": 1e-4, "km": 1e-3, "m": 1.0}


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


def _contract_unit_guess(ratio):
    """What a value/true-measure ratio far from 1 suggests."""
    import math

    for factor, said in (
        (1e6, "m² written as km²"),
        (1e-6, "km² written as m²"),
        (100, "hectares written as km²"),
        (1e-2, "km² written as hectares"),
        (1e4, "m² written as hectares"),
        (1e-4, "hectares written as m²"),
        (1e3, "metres written as km"),
        (1e-3, "km written as metres"),
    ):
        if abs(math.log10(ratio / factor)) < 0.05:
            return f": looks like {said}"
    if ratio < 1e-3:
        return ": far too small, as if measured in degrees (a geographic CRS)"
    return ": measured in a CRS that distorts it here (Web Mercator?) or not this feature's measure"


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


def _contract_measure_units(params, data, sources):
    """(passed, observed) of a measure column against the geodesic measure of each row's feature:
    its own geometry, else the input feature with the same key (a column unique in the input), else
    (rows not matched) the sum against the input's total, within a wide band."""
    import pandas as pd

    name, measure, unit = params["name"], params["measure"], params["unit"]
    label = {"km2": "km²", "sqkm": "km²", "m2": "m²", "sqm": "m²"}.get(unit, unit)
    values = pd.to_numeric(data[name], errors="coerce").tolist()
    factor = _CONTRACT_UNIT_FACTOR[unit]
    expected, how = None, ""
    if _contract_has_geometry(data) and data.crs is not None:
        own = _contract_geodesic(data, measure)
        if any(e for e in own):
            expected, how = own, "each row's geometry"
    if expected is None:  # the input is read only when the file's own geometry cannot answer
        src = _contract_input(params["input"], sources) if params.get("input") else None
        if src is None or not _contract_has_geometry(src) or src.crs is None:
            return (
                False,
                f"cannot measure `{name}`: neither the file nor `{params.get('input')}` has geometries with a CRS",
            )
        measures = _contract_geodesic(src, measure)
        shared = [k for k in data.columns if k != name and k in src.columns and k != src.geometry.name]
        for key in [[k] for k in shared] + ([shared] if len(shared) > 1 else []):  # one column, else all together
            if src[key].isna().any().any():
                continue
            keys = src[key].astype(str).agg("|".join, axis=1)
            if keys.duplicated().any():
                continue
            lookup = dict(zip(keys, measures))
            mine = data[key].astype(str).agg("|".join, axis=1).tolist()
            if mine and all(k in lookup for k in mine):
                expected, how = (
                    [lookup[k] for k in mine],
                    f"the `{params['input']}` feature of the same `{'`, `'.join(key)}`",
                )
                break
        if expected is None:  # rows that are not the input's features (groups, a selection): the scale only.
            # The band: not more than the input has, and not as small as square degrees are of km² (about
            # 8e-5 / cos(latitude), under 5e-4 up to 80°); a selection of less than 0.05 % of the whole is rare.
            total = sum(e for e in measures if e) * factor
            mine = sum(v for v in values if v == v)
            ratio = mine / total if total else float("inf")
            ok = 5e-4 <= ratio <= 1.05
            return ok, (
                f"`{name}` sums to {ratio:.3g} × the geodesic {measure} of all of `{params['input']}` in {label}"
                + ("" if ok else _contract_unit_guess(ratio))
            )
    pairs = [(v, e * factor) for v, e in zip(values, expected) if e and v == v]
    if not pairs:
        return False, f"`{name}`: no row has both a number and a feature with a {measure}"
    # Within 3 % (another fitting CRS, a valid repair) or half the rounding the values show
    # ("integer hectares": 1 for a 1.4 ha parcel).
    slack = _contract_rounding_step([v for v, _ in pairs]) / 2
    close = sum(abs(v - e) <= 0.03 * e + slack for v, e in pairs) / len(pairs)
    median = sorted(v / e for v, e in pairs)[len(pairs) // 2]
    ok = close >= 0.9
    return ok, (
        f"`{name}` is {median:.4g} × the geodesic {measure} of {how} in {label} (median; {close:.0%} of "
        f"{len(pairs)} rows within 3 %{' or the rounding' if slack else ''})"
        + ("" if ok else _contract_unit_guess(median))
    )


_CONTRACT_SHAPE_SAMPLE = 5000  # features compared (evenly spread) in a larger file


def _contract_shape_index(crs, src):
    """{dimension: (STRtree, shapes)} of the input's shapes and each of their parts, in ``crs`` as a
    step would reproject them (back the other way PROJ may pick another datum transformation:
    EPSG:22992 to WGS84 lands 130 m off the forward one). By dimension: a polygon's outline as a
    line is at Hausdorff distance 0 from it, and is not its shape."""
    import numpy as np
    import shapely

    theirs = src.geometry
    if src.crs is not None and crs is not None and not crs.equals(src.crs):
        theirs = theirs.to_crs(crs)
    theirs = np.asarray(theirs[~(theirs.isna() | theirs.is_empty)].values)
    shapes = np.concatenate([theirs, shapely.get_parts(theirs)])
    dims = shapely.get_dimensions(shapes)
    return {int(d): (shapely.STRtree(shapes[dims == d]), shapes[dims == d]) for d in set(dims.tolist())}


def _contract_nearest_shape(shape, index):
    """(the input's shape nearest ``shape``, their Hausdorff distance) among the input's shapes of its
    dimension whose bounds meet it (else the nearest one); (None, inf) when the input has none."""
    import shapely

    found = index.get(int(shapely.get_dimensions(shape)))
    if found is None:
        return None, float("inf")
    tree, shapes = found
    near = tree.query(shape)
    near = near if len(near) else tree.query_nearest(shape)
    j, off = min(((int(j), float(shapely.hausdorff_distance(shape, shapes[j]))) for j in near), key=lambda t: t[1])
    return shapes[j], off


def _contract_shape_tolerance(crs):
    """(how far a kept shape may be, its unit): 1 m, or 1e-5 degrees in lon/lat."""
    return (1e-5, "°") if crs is None or crs.is_geographic else (1.0, " m")


def _contract_shapes_kept(params, data, sources):
    """(passed, observed): each feature's shape is within the tolerance (Hausdorff distance) of one
    of the input's features or of their parts (of the same dimension), the input in the file's CRS."""
    import numpy as np

    src = _contract_input(params["input"], sources)
    mine = data.geometry
    crs = mine.crs if mine.crs is not None else src.crs
    mine = mine[~(mine.isna() | mine.is_empty)]
    index = _contract_shape_index(crs, src)
    if not len(mine) or not index:
        return True, "no features to compare"
    tolerance, unit = _contract_shape_tolerance(crs)
    picked = mine.values[np.linspace(0, len(mine) - 1, min(len(mine), _CONTRACT_SHAPE_SAMPLE)).astype(int)]
    changed = [
        (i, off)
        for i, shape in enumerate(picked)
        for off in [_contract_nearest_shape(shape, index)[1]]
        if off > tolerance
    ]
    if not changed:
        return True, f"every feature's shape is one of {params['input']}'s or a part of one"
    moved = [off for _, off in changed if off < float("inf")]
    seen = ([f"off by up to {max(moved):.6g}{unit}"] if moved else []) + (
        [f"{len(changed) - len(moved)} of a kind (point, line, polygon) it has none of"]
        if len(moved) < len(changed)
        else []
    )
    return False, (
        f"{len(changed)} of {len(picked)} features' shapes are none of {params['input']}'s (nor a part of "
        f"one): {'; '.join(seen)} (e.g. feature {changed[0][0]})"
    )


def _contract_buffer_cover(params, data, sources):
    """(passed, observed): the file's polygons against the input buffered by ``distance_m`` in the
    input's UTM zone, compared as regions (overlap over union), so per-feature or dissolved buffers
    both answer; an input of points also says the distance the file looks buffered by."""
    import math

    src, distance = _contract_input(params["input"], sources), float(params["distance_m"])
    if not _contract_has_geometry(src) or src.crs is None or data.crs is None:
        return False, f"cannot compare: the file or `{params['input']}` has no CRS"
    metric = src.estimate_utm_crs()
    want = src.to_crs(metric).geometry.buffer(distance).union_all()
    got = data.to_crs(metric).geometry.make_valid().union_all()
    union = want.union(got).area
    overlap = want.intersection(got).area / union if union else 0.0
    ratio = got.area / want.area if want.area else float("inf")
    seen = ""
    if set(src.geometry.geom_type.dropna()) <= {"Point"} and 0 < ratio < float("inf") and abs(ratio - 1) > 0.03:
        seen = f"; as if buffered by about {distance * math.sqrt(ratio):.4g} m"
    ok = overlap >= 0.95
    return ok, (
        f"the polygons cover {ratio:.3g} × the area of `{params['input']}` buffered by {distance:g} m, "
        f"{overlap:.0%} of the two overlapping" + ("" if ok else seen)
    )


def _contract_key(value):
    """A key as compared across files: 3, 3.0, "3" and "03" alike; text stripped."""
    text = str(value).strip()
    try:
        number = float(text)
    except ValueError:
        return text
    return str(int(number)) if number.is_integer() else text


def _contract_nearest_metres(origin, target):
    """Metres from each geometry of the GeoSeries ``origin`` to the nearest feature of the frame
    ``target`` (None where it has none), measured in ``origin``'s UTM zone: a straight line, within a
    fraction of a percent of the geodesic at a region's scale. The contract's mend embeds it."""
    import geopandas as gpd

    utm = origin.estimate_utm_crs()
    a = gpd.GeoDataFrame(geometry=origin.to_crs(utm).values, crs=utm)
    a = a[~(a.geometry.isna() | a.geometry.is_empty)]
    b = gpd.GeoDataFrame(geometry=target.geometry.to_crs(utm).values, crs=utm)
    b = b[~(b.geometry.isna() | b.geometry.is_empty)]
    found = gpd.sjoin_nearest(a, b, distance_col="_contract_d")["_contract_d"].groupby(level=0).min()
    return [None if v != v else float(v) for v in found.reindex(range(len(origin))).tolist()]


def _contract_row_origins(params, data, sources, name):
    """(GeoSeries of each row's feature, "") — the file's own geometries, else the input feature of
    the same key — or (None, why not)."""
    import geopandas as gpd

    if _contract_has_geometry(data) and data.crs is not None:
        return gpd.GeoSeries(data.geometry.values, crs=data.crs), ""
    src = _contract_input(params["input"], sources)
    match = _contract_key_match(data, src, name) if _contract_has_geometry(src) and src.crs is not None else None
    if not match:
        return None, f"cannot check `{name}`: the rows have no geometry and no key of `{params['input']}`"
    return gpd.GeoSeries(src.geometry.values[match[1]], crs=src.crs), ""


def _contract_nearest_rows(origin, target):
    """For each geometry of the GeoSeries ``origin``: the positions in the frame ``target`` of its
    nearest features (the nearest first, then any within 0.5 % or 1 m of it: ties), measured in
    ``origin``'s UTM zone; [] where it has none. The contract's mend embeds it."""
    import numpy as np
    import shapely

    utm = origin.estimate_utm_crs()
    a, b = origin.to_crs(utm).to_numpy(), target.geometry.to_crs(utm).to_numpy()
    present = ~(shapely.is_missing(b) | shapely.is_empty(b))
    tree = shapely.STRtree(np.where(present, b, None))
    found = [[] for _ in range(len(a))]
    ok = np.flatnonzero(~(shapely.is_missing(a) | shapely.is_empty(a)))
    if not len(ok) or not present.any():
        return found
    (i, j), d = tree.query_nearest(a[ok], return_distance=True, all_matches=False)
    near = dict(zip(ok[i].tolist(), zip(j.tolist(), d.tolist())))
    reach = np.array([near[k][1] + max(1.0, 0.005 * near[k][1]) for k in ok])
    ii, jj = tree.query(shapely.buffer(a[ok], reach), predicate="intersects")
    for k, t in zip(ok[ii].tolist(), jj.tolist()):
        first, dmin = near[k]
        if t != first and shapely.distance(a[k], b[t]) <= dmin + max(1.0, 0.005 * dmin):
            found[k].append(t)
    for k, (first, _) in near.items():
        found[k].insert(0, first)
    return found


def _contract_nearest_attribute(params, data, sources):
    """(passed, observed) of a column naming each row's nearest feature of ``params["to"]``: its
    value is ``params["column"]`` of that feature (or of one tied with it)."""
    name, to, column = params["name"], params["to"], params["column"]
    origin, why = _contract_row_origins(params, data, sources, name)
    target = _contract_input(to, sources)
    if origin is None:
        return False, why
    if not _contract_has_geometry(target) or target.crs is None or column not in target.columns:
        return False, f"cannot check `{name}`: `{to}` has no geometry with a CRS or no `{column}`"
    values = target[column].tolist()
    wrong = [
        (v, rows)
        for v, rows in zip(data[name].tolist(), _contract_nearest_rows(origin, target))
        if rows and _contract_key(v) not in {_contract_key(values[t]) for t in rows}
    ]
    if wrong:
        v, rows = wrong[0]
        return False, (
            f"`{name}` is not the `{column}` of the nearest feature of `{to}` on {len(wrong)} of {len(data)} "
            f"rows (e.g. '{_contract_short(v, 30)}', nearest '{_contract_short(values[rows[0]], 30)}')"
        )
    return True, f"`{name}` is the `{column}` of the nearest feature of `{to}` on all {len(data)} rows"


def _contract_nearest_distance(params, data, sources):
    """(passed, observed) of a distance column against the distance from each row's feature (its
    own geometry, else the input feature of the same key) to the nearest feature of ``params["to"]``,
    within 0.5 % or 1 m."""
    import pandas as pd

    name, unit, to = params["name"], params["unit"], params["to"]
    origin, why = _contract_row_origins(params, data, sources, name)
    if origin is None:
        return False, why.replace("cannot check", "cannot measure")
    target = _contract_input(to, sources)
    if not _contract_has_geometry(target) or target.crs is None or origin.crs is None:
        return False, f"cannot measure `{name}`: `{to}` or the rows have no geometry with a CRS"
    factor = _CONTRACT_UNIT_FACTOR[unit]
    expected = [None if m is None else m * factor for m in _contract_nearest_metres(origin, target)]
    values = pd.to_numeric(data[name], errors="coerce").tolist()
    wrong = [
        (v, e)
        for v, e in zip(values, expected)
        if e is not None and not (v == v and abs(v - e) <= max(factor, 0.005 * e))
    ]
    if wrong:
        v, e = wrong[0]
        return False, (
            f"`{name}` differs from the distance to the nearest feature of `{to}` on {len(wrong)} of "
            f"{len(values)} rows (e.g. {_contract_short(v, 20)}, expected {e:.1f} {unit})"
        )
    return True, f"`{name}` is the distance to the nearest feature of `{to}` in {unit} on all {len(values)} rows"


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


def _contract_point_counts(params, data, sources):
    """(passed, observed) of a count column against the points inside each polygon (within, or on
    its edge too: either predicate's counts pass): the file's own polygons, else the input polygon
    of the same key (and every polygon needs a row), else the counts compared as a multiset."""
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
    if held and not missing:
        return True, f"`{name}` is the number of {where}, by {how} ({len(rows)} rows, {held[0]})"
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


def _contract_density(params, data):
    """(passed, observed) of a rate against count / measure * factor of its own row, within 1 % or
    half the rounding the values show; rows without a positive measure are left out."""
    import pandas as pd

    name, count, measure, factor = params["name"], params["count"], params["measure"], float(params["factor"])
    absent = [c for c in (name, count, measure) if c not in data.columns]
    if absent:
        return False, f"{absent} not in the file"
    values, counts, measures = (pd.to_numeric(data[c], errors="coerce").tolist() for c in (name, count, measure))
    rows = [(v, c / m * factor) for v, c, m in zip(values, counts, measures) if m == m and m > 0 and c == c]
    if not rows:
        return False, f"no row has a number in `{count}` and a positive `{measure}`"
    slack = _contract_rounding_step([v for v, _ in rows if v == v]) / 2
    wrong = [(v, e) for v, e in rows if not (v == v and abs(v - e) <= 0.01 * abs(e) + slack)]
    if not wrong:
        return True, f"`{name}` = `{count}` / `{measure}` × {factor:g} on all {len(rows)} rows"
    v, e = wrong[0]
    ratio = sorted(v / e for v, e in rows if e and v == v)
    seen = f"; as if × {factor * ratio[len(ratio) // 2]:.4g}" if ratio else ""
    return False, (
        f"`{name}` differs from `{count}` / `{measure}` × {factor:g} on {len(wrong)} of {len(rows)} rows "
        f"(e.g. {_contract_short(v, 20)}, expected {e:.4g}){seen}"
    )


def _contract_layer_bounds(params, sources):
    """[(where, [minx, miny, maxx, maxy])] of an input's whole layer: in its CRS, in lon/lat and in
    ``params["epsg"]``; a table's WKT column as written (it has no CRS)."""
    src = _contract_input(params["input"], sources)
    if _contract_has_geometry(src):
        geoms = src.geometry[~(src.geometry.isna() | src.geometry.is_empty)]
    else:
        import geopandas as gpd

        columns = _wkt_columns(src)  # noqa: F821 - _70_data_probes: the column input_facts named
        if not columns:
            return []
        geoms = gpd.GeoSeries.from_wkt(src[columns[0]].dropna())
    spans = [(_contract_crs_label(geoms.crs) if geoms.crs is not None else "as written", geoms.total_bounds)]
    if geoms.crs is not None:
        for code in dict.fromkeys(c for c in (4326, params.get("epsg")) if c and c != geoms.crs.to_epsg()):
            spans.append((f"EPSG:{code}", geoms.to_crs(code).total_bounds))
    return [(where, [float(v) for v in box]) for where, box in spans]


def _contract_whole_bbox(name, nums, params, sources):
    """A bbox that must be the bounds of a whole layer: equal to them in one of its CRSs, to
    1/10000 of the extent (rounding to metres or 6 decimals of a degree passes)."""
    spans = _contract_layer_bounds(params, sources)
    if not spans:
        return False, f"`{name}` = {_contract_short(nums)}; the extent of `{params['input']}` could not be read"
    for where, box in spans:
        tolerance = 1e-4 * max(box[2] - box[0], box[3] - box[1], 1e-6)
        if all(abs(a - b) <= tolerance for a, b in zip(nums, box)):
            return True, f"`{name}` = {_contract_short(nums)}: the whole layer of `{params['input']}` ({where})"
    seen = " or ".join(f"{[round(v, 6) for v in box]} ({where})" for where, box in spans)
    return False, f"`{name}` = {_contract_short(nums)}; the whole layer of `{params['input']}` spans {seen}"


def _contract_group_keys(name, value, params, sources):
    """A JSON object keyed by every value of the group column (keys compared as text; 3.0 is '3')."""
    column = params["column"]
    if not isinstance(value, dict):
        return False, (
            f"`{name}` = {_contract_short(value, 100)}: a JSON {type(value).__name__}, not an object "
            f"keyed by the values of `{column}`"
        )
    src = _contract_input(params["input"], sources)
    if column not in getattr(src, "columns", []):
        return False, f"`{column}` is not in {params['input']}"
    want = {_contract_group_text(v) for v in src[column].dropna().tolist()}
    have = {str(k) for k in value}
    missing, foreign = sorted(want - have), sorted(have - want)
    if not missing and not foreign and params.get("counts"):  # "count_per_X": each value is its group's size
        sizes = {_contract_group_text(k): int(n) for k, n in src[column].dropna().value_counts().items()}
        wrong = {k: v for k, v in value.items() if sizes.get(str(k)) != v}
        if wrong:
            first = list(wrong)[:4]
            return False, (
                f"`{name}`: {len(wrong)} group(s) whose value is not its number of rows in "
                f"`{params['input']}`, e.g. "
                + ", ".join(f"{k}: {wrong[k]} (counted {sizes.get(str(k))})" for k in first)
            )
        return True, f"`{name}` counts the rows of each of the {len(want)} values of `{column}`"
    if not missing and not foreign:
        return True, f"`{name}` has a key for each of the {len(want)} values of `{column}`"
    said = f"`{name}` keys {sorted(have)[:6]}"
    if missing:
        said += f"; {len(missing)} value(s) of `{column}` missing, e.g. {missing[:4]}"
    if foreign:
        said += f"; {len(foreign)} key(s) that are not values of `{column}`: {foreign[:4]}"
    return False, said


def _contract_group_text(value):
    """A group value as the group-keys check compares it: 3.0 is '3'."""
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


def _contract_group_object(value, column, groups, fill=None):
    """A per-group JSON value as {group: value}, reshaped from what pandas writes without changing
    a value (the contract's mend embeds it): a frame's ``to_dict()`` ({column: {i: group}, other:
    {i: value}}) or its records ([{column: group, other: value}]), a one-key wrapper ({other:
    {group: value}}). Groups of ``groups`` it lacks get ``fill`` when one is given (0 for counts: a
    groupby leaves empty groups out). Anything else is returned as it was."""
    want = [_contract_group_text(g) for g in groups]
    if (
        isinstance(value, list)
        and value
        and all(isinstance(r, dict) and len(r) == 2 and r.keys() == value[0].keys() for r in value)
    ):
        value = {k: [r[k] for r in value] for k in value[0]}
    if isinstance(value, dict) and len(value) == 2 and all(isinstance(v, (dict, list)) for v in value.values()):
        cols = {k: list(v.values()) if isinstance(v, dict) else list(v) for k, v in value.items()}
        keyed = [k for k in cols if k == column] or [
            k for k, v in cols.items() if v and {_contract_group_text(x) for x in v} <= set(want)
        ]
        if len({len(v) for v in cols.values()}) == 1 and len(keyed) == 1:
            other = next(k for k in cols if k != keyed[0])
            value = dict(zip(map(_contract_group_text, cols[keyed[0]]), cols[other]))
    if isinstance(value, dict) and len(value) == 1:
        inner = next(iter(value.values()))
        if isinstance(inner, dict) and inner and {_contract_group_text(k) for k in inner} <= set(want):
            value = inner
    if isinstance(value, dict) and fill is not None and {_contract_group_text(k) for k in value} <= set(want):
        have = {_contract_group_text(k): v for k, v in value.items()}
        value = {**have, **{g: fill for g in want if g not in have}}
    return value


def _contract_bbox_list(value):
    """[minx, miny, maxx, maxy] from the forms a bbox gets written in by mistake: named bounds
    ({"minx": ..}), a frame's per-feature bounds (``gdf.bounds.to_dict()``: {"minx": {i: ..}, ..})
    or a list of boxes; the box around them all. Anything else is returned as it was."""
    names = ("minx", "miny", "maxx", "maxy")
    if isinstance(value, dict) and set(names) <= set(value):
        cols = [list(value[n].values()) if isinstance(value[n], dict) else value[n] for n in names]
        cols = [c if isinstance(c, list) else [c] for c in cols]
    elif isinstance(value, list) and value and all(isinstance(b, (list, tuple)) and len(b) == 4 for b in value):
        cols = [[b[i] for b in value] for i in range(4)]
    else:
        return value
    return [float(min(cols[0])), float(min(cols[1])), float(max(cols[2])), float(max(cols[3]))]


def _contract_rounding_step(values):
    """1 when every value is a whole number, 0.1 ... 1e-6 for the fewest decimals that write them all, else 0."""
    for step in (1.0, 0.1, 0.01, 1e-3, 1e-4, 1e-5, 1e-6):
        if all(abs(v / step - round(v / step)) < 1e-6 for v in values):
            return step
    return 0.0


def _contract_strings(values):
    """A column's or a JSON value's items as text, for comparing with names, templates and inputs."""
    return [str(v) for v in (values.tolist() if hasattr(values, "tolist") else values)]


def _contract_stray_column(name, stray):
    """A geometry or row-index column a table got by writing a (Geo)DataFrame whole: one of
    ``stray`` (the contract's list, ``rules.STRAY_COLUMNS``) or a written index ("Unnamed: 0")."""
    lower = str(name).lower()
    return lower in [str(n).lower() for n in stray] or lower.startswith("unnamed:")


def _contract_converted_values(name, params, mine, theirs):
    """(passed, observed) of a column converted to another type: it holds the input's values in
    that type — the same instants (a naive time read as UTC; numbers are not instants: epoch
    milliseconds read as nanoseconds are 1970 dates) or the same numbers —
    and loses none of them."""
    import pandas as pd

    dtype = str(params["as_type"]).lower()
    if dtype.startswith(("timestamp", "datetime", "date")):
        if pd.api.types.is_numeric_dtype(mine):
            return False, f"`{name}` holds numbers ({str(mine.dtype)}), not the times of {params['input']}"
        got = pd.to_datetime(mine, utc=True, errors="coerce")
        want = (
            pd.to_datetime(theirs, utc=True, errors="coerce", format="mixed")
            if not pd.api.types.is_numeric_dtype(theirs)
            else pd.Series([], dtype="datetime64[ns, UTC]")
        )
        show = lambda v: v.isoformat()  # noqa: E731
    else:
        got, want = pd.to_numeric(mine, errors="coerce"), pd.to_numeric(theirs, errors="coerce")
        show = lambda v: f"{v:g}"  # noqa: E731
    known = set(want.dropna().tolist())
    foreign = [v for v in got.dropna().tolist() if v not in known]
    lost = int(got.isna().sum()) - int(want.isna().sum())
    said = []
    if foreign:
        said.append(
            f"{len(foreign)} of {len(got)} values are none of {params['input']}'s, e.g. {show(foreign[0])}"
            + (f" (it has {show(min(known))} … {show(max(known))})" if known else "")
        )
    if lost > 0:
        said.append(f"{lost} value(s) more are missing than in {params['input']}")
    return not said, f"`{name}`: " + (
        "; ".join(said) if said else f"every value is one of {params['input']}'s, as {dtype}"
    )


def _contract_located(params, data):
    """(passed, observed): the data lies where its inputs lie (``params.bounds``, lon/lat, grown by
    their own size and at least two degrees): coordinates swapped, left in another unit or labelled
    with a CRS they are not in put it somewhere else on Earth."""
    box = _contract_geo_bounds_wgs84(data)
    if box is None:
        return False, "no CRS or no geometry to place it by"
    w, s, e, n = params["bounds"]
    grow_x, grow_y = max(2.0, e - w), max(2.0, n - s)
    inside = (
        box[1] <= n + grow_y
        and box[3] >= s - grow_y
        and (w > e or box[0] > box[2] or (box[0] <= e + grow_x and box[2] >= w - grow_x))
    )  # across +-180: lat only
    seen = f"data at lon/lat [{box[0]:.3f}, {box[1]:.3f}, {box[2]:.3f}, {box[3]:.3f}]"
    where = f"the inputs at [{w:.3f}, {s:.3f}, {e:.3f}, {n:.3f}]"
    return inside, f"{seen}: {'near' if inside else 'far from'} {where} (CRS {_contract_crs_label(data.crs)})"


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
    if not isinstance(data, dict) and not hasattr(data, "columns"):
        return False, f"the file holds a JSON {type(data).__name__}, not an object with named values"
    if name and _contract_holder(data, name) is not None:
        data = _contract_holder(data, name)  # the nested object or records, or the members, that hold it
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


def _contract_invalid_kept(params, data, sources):
    """(passed, observed): every key of the input's invalid features is in the file (repaired,
    not dropped)."""
    src, key = _contract_input(params["input"], sources), params["key"]
    if not _contract_has_geometry(src) or key not in src.columns:
        return True, f"0 of {len(data)} geometries are invalid"
    present = src[src.geometry.notna() & ~src.geometry.is_empty]
    invalid = {_contract_key(v) for v in present.loc[~present.geometry.is_valid, key].tolist()}
    lost = sorted(invalid - {_contract_key(v) for v in data[key].tolist()})
    said = (
        f"0 of {len(data)} geometries are invalid; {len(invalid)} feature(s) of `{params['input']}` had "
        "invalid geometries"
    )
    if not lost:
        return True, said + (", each kept" if invalid else "")
    return False, (
        f"{said} and {len(lost)} of them are missing (`{key}` {', '.join(lost[:5])}): repair them with "
        "make_valid(), do not drop them"
    )


def _contract_feature_keys(data):
    """Each feature as one text, its attributes and its geometry alike (the layer-split mend keeps
    each once by the same key: it embeds this function). An empty layer has none (pandas' row-wise
    ``agg`` of no rows gives a frame, not a series)."""
    if not len(data):
        return data.geometry.to_wkb(hex=True).astype(object)
    return data.drop(columns=[data.geometry.name]).astype(str).agg("|".join, axis=1) + data.geometry.to_wkb(hex=True)


def _contract_shared_features(layers):
    """How many features (geometry and attributes alike) of a layered file are in more than one layer."""
    seen, shared = {}, set()
    for name, data in layers.items():
        if not _contract_has_geometry(data):
            continue
        for key in set(_contract_feature_keys(data).tolist()):
            if seen.setdefault(key, name) != name:
                shared.add(key)
    return len(shared)


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
