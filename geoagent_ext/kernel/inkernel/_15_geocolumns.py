# Where a plain table keeps its geometry, and the expression that builds it.
# Shared: the helper uses it for variable hints and for the file profiles of the
# data probes (_70_data_probes.py), so there is one rule for both.
# Small models copy an exact call built from the real column names instead of
# guessing one. GeoParquet's "geo" metadata is read here too, once for every part
# that needs it (contract checks, CRS advisor, data probes).

GEO_WKT_PREFIXES = (
    "POINT",
    "LINESTRING",
    "POLYGON",
    "MULTIPOINT",
    "MULTILINESTRING",
    "MULTIPOLYGON",
    "GEOMETRYCOLLECTION",
)
GEO_LON_LAT = (("lon", "lat"), ("longitude", "latitude"), ("lng", "lat"), ("x", "y"))


def is_wkt_text(value):
    """Whether a cell holds a geometry written as WKT text ("POINT (-73.9 40.7)")."""
    return isinstance(value, str) and value.lstrip().upper().startswith(GEO_WKT_PREFIXES)


def geometry_source(df, name):
    """(``geometry=`` expression over frame ``name``, what was found) or (None, "").

    Real geometry columns first, then WKT text, then longitude/latitude columns.
    """
    firsts = {}
    for col in list(df.columns)[:60]:
        nonnull = df[col].dropna()
        if len(nonnull):
            firsts[col] = nonnull.iloc[0]
    for col, first in firsts.items():
        if str(getattr(df[col], "dtype", "")) == "geometry" or hasattr(first, "geom_type"):
            return "%r" % (col,), "column %r holds geometries" % (col,)
    for col, first in firsts.items():
        if is_wkt_text(first):
            return (
                "gpd.GeoSeries.from_wkt(%s[%r])" % (name, col),
                "column %r holds WKT geometry, e.g. %s" % (col, first.strip()[:60]),
            )
    lower = {str(c).lower(): c for c in df.columns}
    for lon, lat in GEO_LON_LAT:
        if lon in lower and lat in lower:
            return (
                "gpd.points_from_xy(%s[%r], %s[%r])" % (name, lower[lon], name, lower[lat]),
                "coordinates in columns %r/%r" % (lower[lon], lower[lat]),
            )
    return None, ""


def geoparquet_meta(schema):
    """The GeoParquet "geo" metadata of a pyarrow schema as a dict; {} for plain Parquet."""
    return json.loads((schema.metadata or {}).get(b"geo", b"null") or "null") or {}


def geoparquet_primary(geo):
    """(name, metadata, CRS) of the primary geometry column of GeoParquet metadata. The spec:
    no "crs" key means OGC:CRS84 (lon/lat); "crs": null means unknown (None here)."""
    name = geo.get("primary_column", "geometry")
    column = geo.get("columns", {}).get(name, {})
    return name, column, column["crs"] if "crs" in column else "OGC:CRS84"
