"""GIS hints: what a failure or a warning of geopandas, shapely, pyproj or GDAL usually means and
its known fix, said to the model that repairs the code.

The kernel layer only shortens errors (``kernel.errors``); what an error means for a geospatial
analysis is the agent's business, so the table lives here, beside the repairs that read it.
"""

from __future__ import annotations

import re

from ..kernel.errors import strip_ansi
from ..kernel.results import ExecutionError

# GeoDataFrame/GeoSeries members that plain pandas objects lack.
GEO_MEMBERS = {
    "total_bounds",
    "bounds",
    "crs",
    "to_crs",
    "set_crs",
    "geometry",
    "area",
    "length",
    "buffer",
    "centroid",
    "sjoin",
    "sjoin_nearest",
    "dissolve",
    "overlay",
    "clip",
    "explode",
    "is_valid",
    "make_valid",
    "to_file",
    "estimate_utm_crs",
    "within",
    "contains",
    "intersects",
    "distance",
    "unary_union",
    "union_all",
    "envelope",
    "convex_hull",
    "geom_type",
    "is_empty",
    "simplify",
    "representative_point",
    "cx",
    "x",
    "y",
}


DEGREES_HINT = (
    "Areas, lengths, buffers and distances in a geographic CRS (degrees) are wrong: "
    "reproject to a projected CRS first, e.g. gdf.to_crs(gdf.estimate_utm_crs())."
)
_TO_MULTI = (
    "make each single-part geometry multi-part with shapely, leaving multi-parts as they are, e.g. "
    "from shapely.geometry import MultiPolygon; gdf['geometry'] = gdf.geometry.apply("
    "lambda g: MultiPolygon([g]) if g is not None and g.geom_type == 'Polygon' else g)."
)

# geopandas' UserWarning for an operation run in degrees, with the operations to match.
_GEOGRAPHIC_RESULT = r"geographic CRS\. Results from '({})'"
_MEASURED_IN_DEGREES = re.compile(
    _GEOGRAPHIC_RESULT.format("area|length|buffer|distance|sjoin_nearest|dwithin") + " are likely incorrect"
)


def measured_in_degrees(stderr: str) -> str | None:
    """A warning for a step that ran but measured in degrees (geopandas says so on stderr; the
    code runs, the numbers are wrong, so only this tells), or None."""
    match = _MEASURED_IN_DEGREES.search(strip_ansi(stderr or ""))
    if match is None:
        return None
    return (
        f"geopandas warned that '{match.group(1)}' ran in a geographic CRS, so its result is in degrees. {DEGREES_HINT}"
    )


# geopandas' UserWarning for a join/overlay/clip of two layers in different CRSs: it runs, and
# matches nothing (a spatial join of lon/lat points with LAEA polygons is empty).
_CRS_MISMATCH = re.compile(
    r"CRS mismatch between the CRS of left geometries and the CRS of right geometries"
    r"(?:.*?Left CRS: (?P<left>[^\n]+)\s*Right CRS: (?P<right>[^\n]+))?",
    re.S,
)


def crs_mismatch(stderr: str) -> str | None:
    """A warning for a step that joined, overlaid or clipped layers in different CRSs (geopandas
    says so on stderr; the code runs and its result is empty or wrong), or None."""
    match = _CRS_MISMATCH.search(strip_ansi(stderr or ""))
    if match is None:
        return None
    which = (
        f" (left {match.group('left').strip()}, right {match.group('right').strip()})" if match.group("left") else ""
    )
    return (
        f"geopandas warned that the two layers of a join, overlay or clip are in different CRSs{which}, so "
        "their geometries were compared in different units and the result is empty or wrong. Reproject one "
        "to the other's CRS first: right = right.to_crs(left.crs)."
    )


# (pattern searched in "ename: evalue\n<traceback>\n<stderr>", hint). Order = priority.
GIS_HINTS: list[tuple[re.Pattern[str], str]] = [
    (
        re.compile(r"CRS mismatch|crs mismatch|different CRS|CRS of .* do(es)? not match", re.I),
        "The two layers have different CRS: reproject one with .to_crs(other.crs) before "
        "joining, overlaying or comparing them.",
    ),
    (
        re.compile(r"naive geometr|has no CRS|crs is None|Cannot transform naive", re.I),
        "The data has no CRS: declare the one it is really in with .set_crs(epsg=...) (not .to_crs), then reproject.",
    ),
    (
        re.compile(_GEOGRAPHIC_RESULT.format("area|length|buffer|distance|centroid"), re.I),
        DEGREES_HINT,
    ),
    (
        re.compile(
            r"TopologyException|Self-intersection|IllegalArgumentException|"
            r"invalid geometr|not a valid geometry|Ring Self-intersection|"
            r"LinearRing.*closed",
            re.I,
        ),
        "Some geometries are invalid: repair them with .make_valid() (or .buffer(0)) "
        "and drop empty ones before overlay/dissolve.",
    ),
    (
        re.compile(r"to_file\([^\n]*\.(geo)?parquet|driver=['\"](Geo)?Parquet['\"]", re.I),
        "Write GeoParquet with gdf.to_parquet('name.geoparquet') (pyarrow), not to_file: "
        "reproject first with gdf.to_crs(...) if another CRS is wanted.",
    ),
    (
        re.compile(r"Passing 'crs' is not supported", re.I),
        "to_file writes the frame's own CRS and takes no crs=: reproject first, "
        "out = gdf.to_crs(epsg=...), then out.to_file(path).",
    ),
    (
        re.compile(r"already has a CRS which is not equal to the passed CRS", re.I),
        "set_crs only declares the CRS the coordinates are already in; to change the coordinates into another "
        "CRS use gdf.to_crs(epsg=...) (it takes no allow_override).",
    ),
    (
        re.compile(r"cannot insert (.+?), already exists"),
        "The frame has that name both as its index (a dissolve/groupby key stays the index) and as a "
        "column, and writing it (or reset_index()) would add the index as a second column of that name: "
        "drop the index level first, gdf.reset_index(level='<name>', drop=True), or do not set the column again.",
    ),
    (  # a file or layer, not pandas' "cannot insert <column>, already exists" above
        re.compile(r"(?:already exists|File exists|FileExistsError)(?<!, already exists)", re.I),
        "The output already exists: choose a new name or overwrite explicitly "
        "(mode='w' for to_file, overwrite=True where supported, or remove it first).",
    ),
    (
        re.compile(
            r"No such file or directory|FileNotFoundError|does not exist in the file system|"
            r"not recognized as (a|being in a) supported file format|DataSourceError",
            re.I,
        ),
        "The file was not found or not readable: paths are relative to the kernel's working "
        "directory; check os.getcwd() and os.listdir() and the file's format.",
    ),
    (
        re.compile(r"CRSError|Invalid projection|Invalid EPSG|crs input", re.I),
        "The CRS could not be parsed: pass an EPSG code (epsg=3857) or 'EPSG:3857'.",
    ),
    (
        re.compile(r"^ImportError: cannot import name", re.M),
        "That name does not exist in the module: import it from where it really lives "
        "(the real members of the module are listed below when known).",
    ),
    (
        re.compile(r"^ModuleNotFoundError|^ImportError: (?!cannot import name)", re.M),
        "The package is not installed in the kernel's environment, and nothing is installed during a run: "
        "write the step with the installed libraries instead (geopandas, shapely, pyproj, pandas, numpy); "
        "geodesic distances in metres: pyproj.Geod(ellps='WGS84').inv(lon1, lat1, lon2, lat2)[2], or "
        "GeoSeries.distance after to_crs to a projected CRS.",
    ),
    (
        # A band taken by its name from a raster read as a DataArray (`open_rasterio(path)['red']`)
        re.compile(r"^KeyError: [\s\S]*open_rasterio\(", re.M),
        "A raster read with rioxarray is one DataArray with a `band` dimension numbered from 1, not a "
        "table of named bands: take a band with da.sel(band=1) (which band is which: the file's band "
        "descriptions in da.attrs.get('long_name'), or rasterio.open(path).descriptions), as floats "
        "with nodata masked: da.where(da != da.rio.nodata).astype('float64').",
    ),
    (
        re.compile(r"^KeyError: [\s\S]*\.merge\(", re.M),
        "merge needs a column both tables have: to relate two layers by location use "
        "gpd.sjoin(points, polygons, predicate='within') or gpd.sjoin_nearest(left, right, distance_col='distance'), "
        "both in the same projected CRS for distances.",
    ),
    (
        re.compile(r"^KeyError: ['\"]", re.M),
        "A column or key does not exist: check the real names with df.columns.",
    ),
    (
        re.compile(
            r"^AttributeError: '(DataFrame|Series)' object has no attribute "
            r"'(%s)'" % "|".join(sorted(GEO_MEMBERS)),
            re.M,
        ),
        "This is a plain pandas object, not a GeoDataFrame/GeoSeries (a column of geometries in "
        "a DataFrame is still a plain Series): first make the DataFrame a GeoDataFrame with "
        "gpd.GeoDataFrame(frame, geometry=..., crs=...) from its real geometry, WKT or coordinate "
        "columns, then call the method on the GeoDataFrame.",
    ),
    (
        # Text methods asked of a whole table (`layer.astype(str).str.contains(...)`): .str is a column's.
        re.compile(r"^AttributeError: 'DataFrame' object has no attribute 'str'", re.M),
        "A DataFrame has no .str: text methods belong to one column (a Series). To look at every text "
        "column take them one by one, e.g. text = frame.select_dtypes(include='object'); "
        "any(text[c].astype(str).str.contains(pattern).any() for c in text.columns).",
    ),
    (
        # A layer name or path used as if it were the layer (`for layer in gpd.list_layers(path)['name']: layer.crs`).
        re.compile(
            r"^AttributeError: 'str' object has no attribute '(%s|crs|to_crs|columns|head|iloc|loc)'"
            % "|".join(sorted(GEO_MEMBERS)),
            re.M,
        ),
        "That value is text (a file path, or a layer name from gpd.list_layers(path)['name']), not a "
        "GeoDataFrame: read it first, e.g. for name in gpd.list_layers(path)['name']: "
        "layer = gpd.read_file(path, layer=name); then use layer.crs, layer.geom_type, len(layer).",
    ),
    (
        re.compile(
            r"^AttributeError: 'GeoSeries' object has no attribute "
            r"'(to_parquet|to_feather|columns|merge|drop|rename|sort_values|set_geometry|loc\w*)'",
            re.M,
        ),
        "A GeoSeries is only the geometry column: keep the other columns by replacing the "
        "geometry of the GeoDataFrame instead, e.g. out = gdf.copy(); "
        "out['geometry'] = gdf.geometry.buffer(distance_m); then out.to_parquet(...).",
    ),
    (
        re.compile(
            r"^AttributeError: (?:module 'geopandas' has no attribute 'concat'|"
            r"'(?:Geo)?DataFrame' object has no attribute 'append')",
            re.M,
        ),
        "geopandas has no concat and pandas 2 removed DataFrame.append: stack frames with "
        "pd.concat([a, b], ignore_index=True) (import pandas as pd); "
        "GeoDataFrames in the same CRS stay a GeoDataFrame.",
    ),
    (
        re.compile(r"data type '(?:Multi)?(?:Polygon|LineString|Point)' not understood", re.I),
        "A geometry type is not a dtype: " + _TO_MULTI,
    ),
    (
        re.compile(
            r"Sequences of multi-(?:polygons|linestrings|points) are not valid arguments|"
            r"has no attribute '(?:to_|as_)?multi\w*'",
            re.I,
        ),
        "Some geometries are multi-part already, and geopandas has no to-multi method: " + _TO_MULTI,
    ),
    (
        re.compile(
            r"^AttributeError: (?:type object|module) '(?:GeoDataFrame|geopandas)' has no attribute "
            r"'(?:from_wkt|read_wkt|from_wkb)'",
            re.M,
        ),
        "Parse WKT text with gpd.GeoSeries.from_wkt(df['wkt_column']), then build the frame: "
        "gdf = gpd.GeoDataFrame(df, geometry=gpd.GeoSeries.from_wkt(df['wkt_column']), crs='EPSG:4326').",
    ),
    (
        re.compile(r"timezone-aware dtype to timezone-naive|index is not a valid DatetimeIndex or PeriodIndex", re.I),
        "Time zones of a column's values go through .dt: s = pd.to_datetime(df[col], utc=True); "
        "s.dt.tz_convert('UTC').dt.tz_localize(None) drops the zone (Series.tz_localize acts on the index); "
        "then .astype('datetime64[us]') if that unit is wanted.",
    ),
    (
        re.compile(
            r"'NoneType' object has no attribute '(?:centroid|area|length|buffer|bounds|exterior|interiors|"
            r"geom_type|is_valid|is_empty|representative_point|coords|geoms|convex_hull|envelope|simplify)'"
        ),
        "Some geometries are missing (None), e.g. left empty by an overlay: use the GeoSeries methods "
        "(gdf.geometry.centroid, .representative_point(), .area), which keep None as None, instead of "
        ".apply(lambda g: ...), or drop them first: gdf = gdf[gdf.geometry.notna() & ~gdf.geometry.is_empty].",
    ),
    (
        re.compile(r"x attribute access only provided for Point geometries", re.I),
        ".x and .y exist only for points. To reproject any geometry (lines, polygons) use "
        "gdf = gdf.to_crs(target_crs), not a pyproj Transformer over coordinates; the coordinates of "
        "any geometry are shapely.get_coordinates(gdf.geometry.values).",
    ),
    (
        re.compile(r"nested renamer is not supported", re.I),
        "A selected column's .agg takes a function name, not a dict: df.groupby(KEY)[COL].agg('sum') "
        "(or .sum()); to name the result, df.groupby(KEY).agg(new_name=(COL, 'sum')).",
    ),
    (
        re.compile(r"IntCastingNaNError|Cannot convert non-finite values \(NA or inf\) to integer", re.I),
        "Some values are missing: fill them before the cast, df[COL] = df[COL].fillna(0).astype(int) "
        "(a count with no match is 0), or keep them missing with .astype('Int64').",
    ),
    (
        re.compile(r"^KeyError: .*not found in axis", re.M),
        "That column is not in the frame any more (an earlier step dropped or renamed it; see its real "
        "columns): drop only what is there, df.drop(columns=[...], errors='ignore').",
    ),
    (
        re.compile(r"^EOFError: EOF when reading a line", re.M),
        "The code asked for keyboard input, which a kernel run cannot answer (geemap.Map() "
        "asks to sign in to Earth Engine): use geemap.Map(ee_initialize=False) or leafmap.Map(), "
        "and never call input().",
    ),
    (
        re.compile(r"is not JSON serializable", re.I),
        "json cannot write numpy or pandas objects: convert them first, e.g. a Series with "
        ".to_dict(), an array (such as total_bounds) with .tolist(), a numpy number with int() or float().",
    ),
    (
        re.compile(r"^ValueError: The truth value of an? (?:Geo)?(?:Series|DataFrame) is ambiguous", re.M),
        "A whole column is neither True nor False. For one value of a layer take one feature's: "
        "layer.geometry.iloc[0] (e.g. x = layer.geometry.iloc[0].centroid.x) or a summary (.mean(), .any()); "
        "to test for rows use `if len(layer):` or `.empty`; to choose per row use "
        "series.where(condition, other) or numpy.where(condition, a, b), never `x if series else y`.",
    ),
    (
        re.compile(r"^AttributeError: .* has no attribute", re.M),
        "That attribute does not exist on the object: use one of its real members.",
    ),
]


def gis_hints(ename: str, evalue: str, traceback: list[str] | str = "", stderr: str = "") -> list[str]:
    """Hints for a failure; ``stderr`` carries warnings such as the geographic-CRS one."""
    tb = traceback if isinstance(traceback, str) else "\n".join(traceback)
    text = f"{ename}: {strip_ansi(evalue).strip()}\n{strip_ansi(tb)}\n{strip_ansi(stderr)}"
    return [hint for pattern, hint in GIS_HINTS if pattern.search(text)]


def error_hints(error: ExecutionError, stderr: str = "") -> list[str]:
    """Everything worth telling the model about a failed execution: the kernel's own hints (a
    trial's memory limit, its missing network) first, then what the error means for GIS code."""
    return [*error.hints, *gis_hints(error.ename, error.evalue, error.traceback, stderr)]
