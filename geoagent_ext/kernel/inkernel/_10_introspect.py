"""Members, closest names, profiles and variable summaries of live objects."""

# Part of the in-kernel helper: the parts are executed IN ORDER in one module
# namespace (see inkernel/__init__.py), so names of earlier parts are globals here.
import builtins
import difflib
import inspect
import sys
import types as _types

# ---------------------------------------------------------------- members


def _plain_signature(func, name):
    try:
        sig = inspect.signature(func)
    except (TypeError, ValueError):
        return ""
    params = [p.replace(annotation=inspect.Parameter.empty) for p in sig.parameters.values()]
    sig = sig.replace(parameters=params, return_annotation=inspect.Signature.empty)
    return name + str(sig)


def _first_doc_line(obj):
    doc = getattr(obj, "__doc__", None)
    if not isinstance(doc, str):
        return ""
    for line in doc.strip().splitlines():
        line = line.strip()
        if line:
            return line[:160]
    return ""


# properties, C getset descriptors and slots: never evaluated by members()
_PROPERTY_TYPES = (property, _types.GetSetDescriptorType, _types.MemberDescriptorType)


def _member(obj, name):
    try:
        static = inspect.getattr_static(obj, name)
    except AttributeError:
        static = None
    if isinstance(static, (staticmethod, classmethod)):
        static = static.__func__
    if isinstance(static, _PROPERTY_TYPES):
        # never run a property's getter: it may read a whole raster band
        return {"name": name, "kind": "property", "signature": "", "doc": _first_doc_line(static)}
    try:
        value = getattr(obj, name)
    except Exception:
        return {"name": name, "kind": "attribute", "signature": "", "doc": ""}
    if inspect.ismodule(value):
        kind = "module"
    elif inspect.isclass(value):
        kind = "class"
    elif callable(value):
        kind = "function" if inspect.ismodule(obj) or inspect.isclass(obj) else "method"
    else:
        kind = "attribute"
    sig = _plain_signature(value, name) if kind in ("function", "method", "class") else ""
    doc = _first_doc_line(value) if kind != "attribute" else type(value).__name__
    return {"name": name, "kind": kind, "signature": sig, "doc": doc}


# What one answer may carry: a GeoDataFrame has ~350 public members; a frame with thousands of
# columns (each an attribute) or a class with a long generated signature must not make the
# answer, the event or the prompt it goes into that large.
MAX_MEMBERS = 1000
MAX_SIGNATURE = 400  # characters


def members(expression, include_private=False):
    """Real members of the live object a name or attribute chain names, with call signatures."""
    obj = _resolve(expression)
    names = sorted(n for n in set(dir(obj)) if include_private or not n.startswith("_"))
    return [_bounded_member(_member(obj, n)) for n in names[:MAX_MEMBERS]]


def _bounded_member(member):
    signature = member["signature"]
    if len(signature) > MAX_SIGNATURE:
        member["signature"] = signature[: MAX_SIGNATURE - 3] + "..."
    return member


def closest_names(expression, wrong_name, n=5):
    """Names closest to a wrong one: members of ``expression`` or, if empty, variables."""
    if expression.strip():
        candidates = list(dir(_resolve(expression)))
    else:
        candidates = list(_ns()) + dir(builtins)
    candidates = [c for c in set(candidates) if not (c.startswith("__") and c.endswith("__"))]
    lower = wrong_name.lower()
    exact_ci = [c for c in candidates if c.lower() == lower and c != wrong_name]
    close = difflib.get_close_matches(wrong_name, candidates, n=n, cutoff=0.6)
    close_ci = difflib.get_close_matches(lower, candidates, n=n, cutoff=0.6)
    out = []
    for c in exact_ci + close + close_ci:
        if c not in out and c != wrong_name:
            out.append(c)
    return out[:n]


def home_of(module, name):
    """Where ``name`` really lives when ``module`` lacks it, as ``[{"module", "alias"}]``: the loaded
    public modules of the same package first, shortest path first (``from shapely.ops import
    buffer``: ``shapely``, whose 2.x functions live at the top, so a model that guesses submodules
    is sent to the right one at once); else a module the session has bound to a name, or a loaded
    data library (``gpd.to_numeric``: ``pandas`` as ``pd``)."""
    import importlib

    root = str(module).split(".")[0]
    if not root or str(name).startswith("_"):
        return []
    try:
        importlib.import_module(root)
    except Exception:
        return []

    def has(mod):
        found = getattr(mod, name, None)
        return found is not None and not isinstance(found, _types.ModuleType)

    homes = []
    for mod_name in sorted(
        (m for m in list(sys.modules) if m == root or m.startswith(root + ".")), key=lambda m: (m.count("."), m)
    ):
        mod = sys.modules.get(mod_name)
        if (
            mod_name != module
            and mod is not None
            and not any(p.startswith("_") for p in mod_name.split("."))
            and has(mod)
        ):
            homes.append({"module": mod_name, "alias": None})
    if not homes:
        bound = {
            v.__name__: k
            for k, v in sorted(_ns().items())
            if isinstance(v, _types.ModuleType) and not k.startswith("_")
        }
        needed = _requirements_of(root)  # the package's own dependencies first: geopandas' CRS is pyproj's
        for mod_name in sorted([*bound, *_DATA_LIBRARIES], key=lambda m: m.split(".")[0] not in needed):
            mod = sys.modules.get(mod_name)
            if (
                mod_name.split(".")[0] != root
                and mod is not None
                and has(mod)
                and mod_name not in [h["module"] for h in homes]
            ):
                homes.append({"module": mod_name, "alias": bound.get(mod_name)})
    return homes[:3]


_DATA_LIBRARIES = ("pandas", "numpy", "shapely", "geopandas", "pyproj")


def _requirements_of(root):
    """The import names of what the installed distribution of package ``root`` requires (extras
    aside), or an empty set when its metadata cannot tell."""
    import re
    from importlib import metadata

    try:
        dist = metadata.packages_distributions().get(root, [root])[0]
        wanted = [r for r in metadata.requires(dist) or [] if "extra ==" not in r]
    except Exception:
        return set()
    return {re.split(r"[\s;<>=!~\[(]", r, maxsplit=1)[0].lower().replace("-", "_") for r in wanted}


# ---------------------------------------------------------------- profiles


def _qualname(obj):
    t = type(obj)
    mod = t.__module__.split(".")[0]
    return t.__name__ if mod == "builtins" else "%s.%s" % (mod, t.__name__)


def _crs_text(crs):
    if crs is None:
        return "no CRS"
    try:
        from pyproj import CRS

        c = crs if isinstance(crs, CRS) else CRS.from_user_input(getattr(crs, "to_wkt", lambda: crs)())
        code = c.to_epsg(min_confidence=70)
        label = "EPSG:%s" % code if code else c.name
        units = c.axis_info[0].unit_name if c.axis_info else "?"
        kind = "geographic" if c.is_geographic else "projected"
        return "%s (%s, %s, units: %s)" % (label, c.name, kind, units)
    except Exception:
        return str(crs)[:120]


def _short(value, width=40):
    if hasattr(value, "item") and getattr(value, "ndim", 1) == 0:  # numpy scalar -> 3, not np.int64(3)
        try:
            value = value.item()
        except Exception:
            pass
    text = repr(value)
    return text if len(text) <= width else text[: width - 3] + "..."


def _is_pandas(obj, cls):
    pd = sys.modules.get("pandas")
    return pd is not None and isinstance(obj, getattr(pd, cls))


def _is_geo(obj):
    gpd = sys.modules.get("geopandas")
    return gpd is not None and isinstance(obj, (gpd.GeoDataFrame, gpd.GeoSeries))


def _geodataframe_hint(df, name):
    """For a plain DataFrame holding geometries, the exact call that makes it a GeoDataFrame.

    Small models keep calling GeoDataFrame methods on plain frames; a call built from
    the real column names is the fix they can copy (``geometry_source``, in _15_geocolumns).
    """
    geometry, _ = geometry_source(df, name)
    if geometry is None:
        return ""
    return (
        "this is a plain pandas DataFrame, not a GeoDataFrame; for spatial methods: "
        "%s = gpd.GeoDataFrame(%s, geometry=%s, crs='EPSG:4326') "
        "(the crs the coordinates are in; EPSG:4326 for longitude/latitude)" % (name, name, geometry)
    )


def _columns_text(df, limit=40):
    lines = []
    for i, col in enumerate(df.columns):
        if i >= limit:
            lines.append("  ... %d more columns" % (len(df.columns) - limit))
            break
        s = df[col]
        if _is_geo(s):
            lines.append("  %s: geometry" % col)
            continue
        nulls = int(s.isna().sum())
        example = ""
        nonnull = s.dropna()
        if len(nonnull):
            example = ", e.g. %s" % _short(nonnull.iloc[0])
            if str(s.dtype).startswith(("int", "float", "uint")):
                example = ", range %s..%s" % (_short(nonnull.min(), 16), _short(nonnull.max(), 16))
        lines.append("  %s: %s, %d nulls%s" % (col, s.dtype, nulls, example))
    return lines


def _geometry_text(geo):
    types = geo.geom_type.value_counts(dropna=False)
    kinds = ", ".join("%s %d" % (k, v) for k, v in types.items())
    missing = int(geo.isna().sum())
    empty = int(geo.is_empty.sum())
    line = "geometry: %s; %d missing, %d empty" % (kinds or "none", missing, empty)
    if len(geo) <= 200_000:
        invalid = int((~geo.is_valid).sum())
        line += ", %d invalid" % invalid
    return line


def _bounds(b):
    return None if b is None else tuple(round(float(v), 6) for v in b)


def _profile_obj(obj, name):
    if _is_pandas(obj, "DataFrame") and _is_geo(obj):
        b = obj.total_bounds if len(obj) else None
        lines = [
            "%s: GeoDataFrame, %d rows x %d columns" % (name, len(obj), obj.shape[1]),
            "CRS: %s" % _crs_text(obj.crs),
            "bounds (xmin, ymin, xmax, ymax): %s" % (_bounds(b),),
            "active " + _geometry_text(obj.geometry) + " (column %r)" % obj.geometry.name,
            "columns:",
        ]
        return "\n".join(lines + _columns_text(obj))
    if _is_geo(obj):  # GeoSeries
        return "\n".join(
            [
                "%s: GeoSeries, %d rows" % (name, len(obj)),
                "CRS: %s" % _crs_text(obj.crs),
                "bounds: %s" % (_bounds(obj.total_bounds if len(obj) else None),),
                _geometry_text(obj),
            ]
        )
    if _is_pandas(obj, "DataFrame"):
        lines = ["%s: DataFrame, %d rows x %d columns" % (name, len(obj), obj.shape[1]), "columns:"]
        hint = _geodataframe_hint(obj, name)
        return "\n".join(lines + _columns_text(obj) + ([hint] if hint else []))
    if _is_pandas(obj, "Series"):
        nulls = int(obj.isna().sum())
        return "%s: Series %r, %d rows, dtype %s, %d nulls" % (name, obj.name, len(obj), obj.dtype, nulls)
    mod = type(obj).__module__
    if mod.startswith("rasterio") and hasattr(obj, "profile") and hasattr(obj, "count"):
        if getattr(obj, "closed", False):
            return "%s: rasterio dataset %r (closed)" % (name, getattr(obj, "name", ""))
        return "\n".join(
            [
                "%s: rasterio %s %r, %d bands x %d rows x %d cols, dtype %s"
                % (name, type(obj).__name__, obj.name, obj.count, obj.height, obj.width, obj.dtypes[0]),
                "CRS: %s" % _crs_text(obj.crs),
                "nodata: %s, resolution: %s, bounds: %s" % (obj.nodata, obj.res, _bounds(obj.bounds)),
            ]
        )
    if mod.startswith("xarray"):
        return _xarray_text(obj, name)
    np = sys.modules.get("numpy")
    if np is not None and isinstance(obj, np.ndarray):
        text = "%s: ndarray shape %s, dtype %s" % (name, obj.shape, obj.dtype)
        if obj.size and obj.size <= 10_000_000 and obj.dtype.kind in "iufb":
            text += ", min %s, max %s, nan %d" % (
                obj.min(),
                obj.max(),
                int(np.isnan(obj).sum()) if obj.dtype.kind == "f" else 0,
            )
        return text
    return "%s: %s = %s" % (name, _qualname(obj), _short(obj, 300))


def _xarray_text(obj, name):
    kind = type(obj).__name__
    lines = ["%s: xarray %s, dims %s" % (name, kind, dict(obj.sizes))]
    if kind == "DataArray":
        lines[0] += ", dtype %s, name %r" % (obj.dtype, obj.name)
    else:
        for var, da in list(obj.data_vars.items())[:20]:
            lines.append("  %s: %s %s" % (var, da.dims, da.dtype))
    rio = None
    try:
        rio = obj.rio  # rioxarray accessor, when installed
    except Exception:
        rio = None
    if rio is not None:
        try:
            lines.append("CRS: %s" % _crs_text(rio.crs))
            nodata = rio.nodata if kind == "DataArray" else None
            lines.append("nodata: %s, resolution: %s" % (nodata, rio.resolution()))
        except Exception:
            pass
    if kind == "DataArray" and "_FillValue" in obj.attrs:
        lines.append("_FillValue: %s" % obj.attrs["_FillValue"])
    return "\n".join(lines)


def profile(name):
    """Compact text profile of a variable or an attribute chain for the LLM."""
    return _profile_obj(_resolve(name), name)


def _summary(obj):
    if inspect.ismodule(obj):
        version = getattr(obj, "__version__", "")
        return "module %s %s" % (obj.__name__, version)
    if _is_pandas(obj, "DataFrame"):
        head = "%s %d rows x %d cols" % (type(obj).__name__, len(obj), obj.shape[1])
        if _is_geo(obj):
            types = ",".join(map(str, obj.geom_type.dropna().unique()[:3]))
            return "%s, %s, %s" % (head, _crs_text(obj.crs).split(" (")[0], types)
        cols = ", ".join(map(str, list(obj.columns)[:8]))
        return "%s: %s%s" % (head, cols, ", ..." if obj.shape[1] > 8 else "")
    if _is_geo(obj) or _is_pandas(obj, "Series"):
        return "%s %d rows, dtype %s" % (type(obj).__name__, len(obj), obj.dtype)
    if inspect.isfunction(obj) or inspect.isbuiltin(obj):
        return "function " + (_plain_signature(obj, obj.__name__) or obj.__name__)
    if inspect.isclass(obj):
        return "class %s" % obj.__name__
    if isinstance(obj, (list, tuple, set, frozenset, dict)):
        return "%s of %d items: %s" % (type(obj).__name__, len(obj), _short(obj, 60))
    try:
        first = _profile_obj(obj, "x").splitlines()[0]
        return first[3:] if first.startswith("x: ") else first
    except Exception:
        return _short(obj, 80)


def frames_with_rows_of(name):
    """The user's GeoDataFrames with the rows (index) of the series ``name``: the frame a geometry
    operation's GeoSeries came from, whose other columns a file of it needs."""
    ns = _ns()
    obj = _resolve(name)
    if not hasattr(obj, "index") or _is_pandas(obj, "DataFrame"):
        return []
    found = []
    for var in sorted(_user_names(ns, private=False)):
        other = ns[var]
        try:
            if other is not obj and _is_pandas(other, "DataFrame") and _is_geo(other) and other.index.equals(obj.index):
                found.append(var)
        except Exception:
            continue
    return found


def column_holders(column, names):
    """[frame, holder, how] for each of ``names`` holding a DataFrame without the column ``column``
    and each other user DataFrame that has it: the column a failing line asked of the wrong table
    (a ``KeyError``). ``how`` says how its rows can get it: "within" (the frame's points lie in the
    holder's polygons), "intersects" (both carry other geometries) or "key" (a plain table, joined
    on a column both share)."""
    ns = _ns()
    found = []
    for name in names:
        obj = ns.get(name)
        if not _is_pandas(obj, "DataFrame") or column in obj.columns:
            continue
        for var in sorted(_user_names(ns, private=False)):
            other = ns[var]
            try:
                if other is obj or not _is_pandas(other, "DataFrame") or column not in other.columns:
                    continue
                if _is_geo(obj) and _is_geo(other):
                    points = set(map(str, obj.geometry.geom_type.dropna().unique())) <= {"Point", "MultiPoint"}
                    areas = set(map(str, other.geometry.geom_type.dropna().unique())) <= {"Polygon", "MultiPolygon"}
                    how = "within" if points and areas else "intersects"
                else:
                    how = "key"
                found.append([name, var, how])
            except Exception:
                continue
    return found[:3]


def _geo_frames_of(names):
    """(name, frame, its active geometry column's name) for each of ``names`` holding a GeoDataFrame."""
    ns = _ns()
    for name in names:
        obj = ns.get(name)
        if _is_pandas(obj, "DataFrame") and _is_geo(obj):
            yield name, obj, getattr(getattr(obj, "geometry", None), "name", None)


def geo_frames(names):
    """{name: its other columns} for each of ``names`` that holds a GeoDataFrame: asked before a
    step that rebinds them to their own geometry, so its trial can tell that it lost them."""
    return {name: [str(c) for c in obj.columns if c != geometry] for name, obj, geometry in _geo_frames_of(names)}


def geometry_names(names):
    """{name: its active geometry column} for each of ``names`` holding a GeoDataFrame: asked before
    a step that selects columns of them, so its trial can tell the geometry was left out."""
    return {name: str(geometry) for name, _, geometry in _geo_frames_of(names) if geometry is not None}


def selection_source(names):
    """[name, source, its geometry column] for the first of ``names`` holding a plain DataFrame that
    a column selection of one GeoDataFrame left without its geometry: its rows are rows of that
    GeoDataFrame (its index within the other's, unique) and its columns are the other's. Two
    sources with different geometries for those rows answer nothing (not ours to choose). None
    when no name is such a frame."""
    ns = _ns()
    frames = [
        (k, v)
        for k, v in ns.items()
        if not k.startswith("_") and _is_pandas(v, "DataFrame") and _is_geo(v) and v.index.is_unique
    ]
    for name in names:
        obj = ns.get(name)
        if not _is_pandas(obj, "DataFrame") or _is_geo(obj) or not len(obj):
            continue
        found = []
        for source, frame in frames:
            try:
                geometry = frame.geometry.name
                shared = [c for c in obj.columns if c in frame.columns and c != geometry]
                if (
                    geometry in obj.columns
                    or not shared
                    or len(shared) < len(obj.columns)
                    or not obj.index.isin(frame.index).all()
                ):
                    continue
                found.append((source, frame, geometry))
            except Exception:
                continue
        if not found:
            continue
        first = found[0][1].geometry.loc[obj.index]
        if all(f.crs == found[0][1].crs and f.geometry.loc[obj.index].equals(first) for _, f, _ in found[1:]):
            return [name, found[0][0], str(found[0][2])]
    return None


def series_source(names):
    """[name, source] for the first of ``names`` holding a GeoSeries made from one GeoDataFrame's
    geometry (``gdf.buffer(400)``): the same index as that frame's, rows for rows. Frames of
    that index with different attributes answer nothing (not ours to choose). None when no name is
    such a series."""
    ns = _ns()
    gpd = sys.modules.get("geopandas")
    if gpd is None:
        return None
    for name in names:
        obj = ns.get(name)
        if not isinstance(obj, gpd.GeoSeries) or not len(obj):
            continue
        found = []
        for source, frame in ns.items():
            try:
                if (
                    source.startswith("_")
                    or not isinstance(frame, gpd.GeoDataFrame)
                    or not frame.index.equals(obj.index)
                ):
                    continue
                found.append((source, frame.drop(columns=frame.geometry.name)))
            except Exception:
                continue
        if found and all(f.equals(found[0][1]) for _, f in found[1:]):
            return [name, found[0][0]]
    return None


def bounds_frames(names):
    """The ones of ``names`` holding a frame of per-feature bounds (what ``GeoSeries.bounds`` gives:
    exactly the columns minx, miny, maxx, maxy), in their order."""
    ns = _ns()
    found = []
    for name in names:
        obj = ns.get(name)
        if _is_pandas(obj, "DataFrame") and [str(c) for c in obj.columns] == ["minx", "miny", "maxx", "maxy"]:
            found.append(name)
    return found


def filled_columns(names):
    """{name: [rows, its columns with a value in some row]} for each of ``names`` holding a DataFrame
    with rows: asked before a step that rebinds them, so its trial can tell a column it emptied (a
    frame rebuilt from its geometry alone, ``gpd.GeoDataFrame(gdf.geometry.to_crs(...), columns=gdf.columns)``)."""
    ns = _ns()
    found = {}
    for name in names:
        obj = ns.get(name)
        if _is_pandas(obj, "DataFrame") and len(obj):
            try:
                found[name] = [len(obj), [str(c) for c, filled in obj.notna().any().items() if filled]]
            except Exception:
                continue
    return found


def measure_units(names, column):
    """{name: "metre" | "geographic"} for each of ``names`` holding a GeoDataFrame with no column
    ``column`` whose CRS is projected in metres or geographic (no entry for any other CRS or none):
    asked after ``gdf['area']`` failed, so the read becomes the geometry's measure in the right
    units."""
    found = {}
    for name, obj, _ in _geo_frames_of(names):
        crs = getattr(obj, "crs", None)
        if column in obj.columns or crs is None:
            continue
        try:
            unit = crs.axis_info[0].unit_name if crs.axis_info else ""
        except Exception:
            continue
        if crs.is_geographic:
            found[name] = "geographic"
        elif crs.is_projected and unit in ("metre", "meter"):
            found[name] = "metre"
    return found


def record_reprs(names):
    """{name: [repr of each record]} for each of ``names`` holding a list of dicts (at most 500
    records): asked before a step that appends to them, so its trial can tell a loop that appended
    again the records an earlier step had collected."""
    ns = _ns()
    found = {}
    for name in names:
        obj = ns.get(name)
        if isinstance(obj, list) and obj and len(obj) <= 500 and all(isinstance(r, dict) for r in obj):
            try:
                found[name] = [repr(r) for r in obj]
            except Exception:
                continue
    return found


def geo_present(names):
    """{name: [rows, geometries neither null nor empty]} for each of ``names`` holding a
    GeoDataFrame or GeoSeries: asked before a step that buffers their geometry by 0, so its trial
    can tell which geometries it emptied (points and lines buffered by 0 are empty polygons)."""
    ns = _ns()
    found = {}
    for name in names:
        obj = ns.get(name)
        if _is_geo(obj):
            geoms = obj.geometry if _is_pandas(obj, "DataFrame") else obj
            found[name] = [len(geoms), int((~(geoms.isna() | geoms.is_empty)).sum())]
    return found


def geo_invalid(names):
    """{name: the index labels of its invalid geometries} for each of ``names`` holding a
    GeoDataFrame: asked before a step that filters it by ``is_valid`` when the contract keeps invalid
    features repaired, so its trial can tell whether it dropped them (up to 1000 labels)."""
    ns = _ns()
    found = {}
    for name in names:
        obj = ns.get(name)
        if _is_pandas(obj, "DataFrame") and _is_geo(obj):
            geoms = obj.geometry
            invalid = obj.index[~(geoms.isna() | geoms.is_empty | geoms.is_valid)]
            found[name] = [v.item() if hasattr(v, "item") else v for v in invalid[:1000]]
    return found


def variables():
    """The user's variables (modules included: aliases matter) with one-line summaries."""
    ns = _ns()
    out = []
    for name in sorted(_user_names(ns, private=False)):
        obj = ns[name]
        try:
            summary = _summary(obj)
        except Exception as e:
            summary = "%s (summary failed: %s)" % (_qualname(obj), e)
        out.append({"name": name, "type": _qualname(obj), "summary": summary[:200]})
    return out
