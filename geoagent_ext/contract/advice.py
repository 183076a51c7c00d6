"""How to meet a failed requirement: one concrete line per kind for the repair prompt.

The repair sees the requirement, what the file showed, and this line; small models fix a
named defect far more often than an unnamed one ("the result looks wrong")."""

from __future__ import annotations

import re

from .mend import mend_code
from .model import Contract, Requirement
from .rules import file_format

ADVICE = {
    "exists": "write the file with the right writer for its format (to_file / to_csv / to_parquet / json.dump)",
    "columns": (
        "add the missing columns before writing; a column that is not in the input must be computed "
        "(from geometry.bounds, .area/.length in a metric CRS, a spatial join with the other layer, "
        "or a rename of an existing column)"
    ),
    "layers": (
        "write each layer from the rows it holds with gdf.to_file(path, layer=NAME, driver='GPKG'), e.g. "
        "one geometry kind per layer: gdf[gdf.geom_type.isin(['Point', 'MultiPoint'])].to_file(path, "
        "layer='points', driver='GPKG') (a GeoDataFrame's rows, not a unary_union)"
    ),
    "json_shape": (
        "write the shape asked for: json.dump(df.to_dict(orient='records'), f) for a list of records, "
        "json.dump([...], f) for a list of values, json.dump({...}, f) for one object; not gdf.to_json() "
        "(a GeoJSON FeatureCollection) or df.to_json() (columns of values)"
    ),
    "crs_present": (
        "give the frame its CRS before writing: the input's (gdf.set_crs(src.crs) only when the "
        "coordinates are in it) or the one it was reprojected to with to_crs"
    ),
    "located": (
        "the coordinates are not where the input data is: check x/y order (lon, lat), the CRS the "
        "coordinates are really in (to_crs converts, set_crs only labels), and the unit"
    ),
    "crs_epsg": "reproject with gdf.to_crs(epsg=CODE) before writing (set_crs only labels, it does not convert)",
    "crs_projected_metres": (
        "reproject with gdf.to_crs(...) to a projected CRS in metres made for this region "
        "(its national grid, or gdf.estimate_utm_crs()) before measuring and writing"
    ),
    "geometry_types": (
        "convert the geometries: shapely.geometry.MultiPolygon([p]) / MultiLineString([l]) "
        "wraps single parts; gdf.explode(index_parts=False) splits multi-parts"
    ),
    "lonlat": "reproject to EPSG:4326 first (gdf.to_crs(4326)) and take the values from that",
    "bbox": "use [minx, miny, maxx, maxy] = list(map(float, gdf.total_bounds))",
    "buffer_distance": (
        "buffer once, by exactly DIST metres (a radius, not a diameter), in a projected CRS in metres made "
        "for the data (not EPSG:4326's degrees, not Web Mercator): out = gdf.to_crs(gdf.estimate_utm_crs()) "
        "(or the advised CRS); out['geometry'] = out.buffer(DIST); then out.to_crs(...) if the file must "
        "be in another CRS"
    ),
    "group_keys": (
        "make it a dict {group value: value} over every value of the group column, e.g. "
        "counts.reindex(sorted(layer[GROUP].dropna().unique()), fill_value=0) then "
        "{str(k): int(v) for k, v in counts.items()}; not a list of records, not df.to_dict()"
    ),
    "point_counts": (
        "count by location, not by an attribute of the points: pts = gpd.read_file(PFILE); "
        "polys = gpd.read_file(GFILE); j = gpd.sjoin(pts.to_crs(polys.crs), polys[[KEY, 'geometry']], "
        "predicate='within'); polys[COLUMN] = polys[KEY].map(j.groupby(KEY).size()).fillna(0).astype(int); "
        "then write one row per polygon of polys (0 where none) with the columns asked for"
    ),
    "density": "compute it from its own row's columns just before writing: df[COLUMN] = df[NUM] / df[DEN] * FACTOR",
    "integer": (
        "cast with pd.to_numeric(...).astype(int) (fill missing counts with 0 first, or use 'Int64' to keep "
        "nulls); in JSON use int(...)"
    ),
    "numeric": "convert with pd.to_numeric(gdf[COLUMN], errors='coerce') (placeholders become NaN) before writing",
    "dtype": (
        "cast just before writing: df[COLUMN] = df[COLUMN].astype('int32') / 'float64' / 'string' / 'bool'; a timestamp: "
        "pd.to_datetime(df[COLUMN], utc=True).dt.tz_localize(None).astype('datetime64[us]') (the unit the requirement names; "
        "utc=True reads zoned and plain times alike); write GeoParquet with "
        "to_parquet, which keeps these types"
    ),
    "non_negative": "compute the measure in a metric CRS; drop nothing, and check for NaN/inf",
    "nearest_distance": (
        "join in a projected CRS in metres made for the data and keep the join's own distance: "
        "a = rows.to_crs(rows.estimate_utm_crs()); j = gpd.sjoin_nearest(a, other.to_crs(a.crs), "
        "distance_col=COLUMN); not the distance of a geometry to itself (0), not degrees"
    ),
    "nearest_attribute": (
        "take it from the nearest join's own row: j = gpd.sjoin_nearest(rows, other.to_crs(rows.crs)); "
        "j[COLUMN] = j[<the other layer's column>] — never other[...] assigned by index"
    ),
    "non_empty": "fill every row: join or compute the value for all rows, not only some",
    "measure_units": (
        "measure in a projected CRS in metres made for the data (an equal-area one for areas, the "
        "local UTM zone or national grid for lengths), never in degrees or Web Mercator, then convert "
        "to the unit the name says (m² / 1e6 = km², m² / 1e4 = ha, m / 1000 = km)"
    ),
    "unique": "make the values unique (drop duplicate rows, or rank with method='first')",
    "sorted": "sort with .sort_values(COLUMN) just before writing",
    "rows_as_input": (
        "one row per input feature: do not filter, explode or inner-join away rows "
        "(use how='left' and keep every input row)"
    ),
    "values_from_input": "keep the input's original values of this column unchanged (do not renumber or rebuild it)",
    "values_in": "use exactly the allowed strings as values",
    "pattern": "format every value exactly like the template (e.g. f'EPSG:{crs.to_epsg()}'), no other text",
    "geometries_present": "drop rows whose geometry is null or empty: gdf = gdf[~(gdf.geometry.isna() | gdf.geometry.is_empty)]",
    "geometries_valid": (
        "repair with gdf.geometry = gdf.geometry.make_valid() and keep only the wanted type "
        "(e.g. .collection_extract / explode and regroup), then check gdf.geometry.is_valid.all()"
    ),
    "geometries_unique": "drop repeated geometries: gdf = gdf[~gdf.geometry.normalize().to_wkb().duplicated()]",
    "geometry_unchanged": (
        "keep the geometry column as read from the input: no to_crs, buffer, simplify or "
        "make_valid; change only the attributes the request names"
    ),
    "min_area": (
        "drop the polygons below the area on the ellipsoid (or in an equal-area CRS): "
        "gdf = gdf[gdf.to_crs(gdf.estimate_utm_crs()).area >= N]"
    ),
    "shapes_kept": (
        "keep each feature's geometry as read: reproject with to_crs and split multi-parts with "
        "explode where asked, but no simplify, buffer, make_valid, rounding or coordinate edits"
    ),
    "antimeridian_cut": (
        "cut the crossing features while they are still in EPSG:4326: write them with "
        "gdf.to_file('cut.geojson', driver='GeoJSON', RFC7946='YES') (GDAL splits them at ±180° "
        "into Multi* parts, one feature each), read that file back with gpd.read_file, and only "
        "then reproject, measure and write"
    ),
    "geometry_once": (
        "drop the text column once the geometry is built from it: gdf = gdf.drop(columns=[COLUMN]) before writing"
    ),
    "rfc7946_winding": (
        "orient the rings without moving a vertex: gdf.geometry = shapely.orient_polygons("
        "gdf.geometry.values, exterior_cw=False) (or write in EPSG:4326 with "
        "gdf.to_file(path, driver='GeoJSON', RFC7946='YES')); do not simplify, buffer or make_valid"
    ),
}


NO_GEOMETRY = "no geometry in the file"  # what every geometry check of the in-kernel checker sees then


def no_geometry_line(output: str, texts: list[str]) -> str:
    """One line for all the geometry requirements of a file written without its geometry (cairo
    at 40cb1d5: four lines of geometry advice, and the repairs kept editing a missing column)."""
    return (
        f"`{output}` has no geometry, so it cannot satisfy: {'; '.join(texts)}. How: the frame written lost "
        "its geometry column (a selection like gdf[['a', 'b']] drops it): keep it with "
        "gdf[['a', 'b', 'geometry']]; a GeoDataFrame built from columns needs "
        "gpd.GeoDataFrame({...}, geometry=gdf.geometry); or write the GeoDataFrame the geometry steps built."
    )


def repair_line(requirement: Requirement, observed: str) -> str:
    """'`out.csv` must: rows are sorted by `code` ascending. Seen: ... How: ...'"""
    how = ADVICE.get(requirement.kind, "")
    missing = observed.split("; it has", 1)[0]  # "missing ['a', 'b']; it has [...]"
    carried = {
        n: source
        for n, source in (requirement.params.get("provenance") or {}).items()
        if source.startswith("from `") and re.search(rf"'{re.escape(n)}'|\b{re.escape(n)}\b", missing)
    }
    if requirement.kind == "columns" and carried:  # lost on the way or never joined in: not to be computed
        files = ", ".join(sorted({f"`{source.split('`')[1]}`" for source in carried.values()}))
        how = (
            f"{', '.join(carried)} come(s) from {files}: write the frame read from it, changing only what the "
            "steps change (gdf['geometry'] = new_geometries, or gdf.set_geometry(...)); a new "
            "gpd.GeoDataFrame(geometry=...) drops every attribute. When the frame you write was built from "
            "another layer, bring the columns in: by location, gpd.sjoin(points, polygons[[...columns, "
            "'geometry']], predicate='within') (or count per polygon and keep every polygon), or .merge on a "
            "key both layers really share. " + how
        )
    if (
        requirement.kind in ("crs_epsg", "crs_projected_metres")
        and file_format(requirement.output) == "geojson"
        and observed.startswith("EPSG:4326")
    ):  # the frame may be right and the writer undo it
        how += (
            "; GDAL writes GeoJSON with RFC7946='YES' in EPSG:4326 whatever the frame's CRS, so write this "
            "file without RFC7946 (cut at the antimeridian in an earlier file, if needed)"
        )
    as_type = str(requirement.params.get("as_type") or "")
    if requirement.kind == "values_from_input" and as_type:  # a cast that changed the values, not only the type
        cast = (
            f"pd.to_datetime(df[COLUMN], utc=True).dt.tz_localize(None).astype('datetime64[{as_type[10:-1] or 'us'}]')"
            if as_type.startswith("timestamp[")
            else f"pd.to_numeric(df[COLUMN]).astype('{as_type}')"
        )
        how = (
            f"convert the input's own column once, just before writing: df[COLUMN] = {cast}; never through "
            "integers or another unit (epoch numbers read back as nanoseconds are 1970 dates)"
        )
    how = _filled(how, requirement)
    return f"`{requirement.output}` must satisfy: {requirement.text}. Seen: {observed}." + (
        f" How: {how}." if how else ""
    )


def _filled(how: str, requirement: Requirement) -> str:
    """The advice with the requirement's own names in place of its capitalised words (COLUMN, DIST, ...)."""
    params = requirement.params
    for word, value in (
        ("COLUMN", f"'{params.get('name', '')}'"),
        ("GROUP", f"'{params.get('column', '')}'"),
        ("CODE", str(params.get("epsg", ""))),
        ("DIST", f"{params.get('distance_m', 0):g}"),
        ("PFILE", repr(str(params.get("points", "")))),
        ("GFILE", repr(str(params.get("polygons", "")))),
        ("KEY", repr(str(params.get("key") or "id"))),
        ("NUM", f"'{params.get('count', '')}'"),
        ("DEN", f"'{params.get('measure', '')}'"),
        ("FACTOR", f"{params.get('factor', 1):g}"),
    ):
        how = how.replace(word, value)
    return how


# Requirements the request did not spell out (defects found in the input data): the coder is
# told how to meet them before its first attempt, not only after a failed check.
# A point count too: the small model counts with a groupby on a column the points lack.
HOW_UP_FRONT = frozenset({"antimeridian_cut", "rfc7946_winding", "numeric", "geometry_once", "point_counts"})


# Values the mend computes on the written file by their definition (``contract.mend``): the coder
# leaves them out rather than compute them on the wrong rows (example 01 at 481be20).
MENDED_VALUES = frozenset({"point_counts", "density"})


def mended_values(contract: Contract | None) -> set[str]:
    """The columns the contract's mend computes on the written file (counts and rates with a key
    to carry them by)."""
    return {
        str(r.params.get("name"))
        for r in (contract.requirements if contract else [])
        if r.kind in MENDED_VALUES and mend_code(contract, r.output, [r]) is not None
    }


def coder_view(contract: Contract) -> str:
    """The contract as the coder reads it: each requirement, and for the data-defect ones, how."""
    computed = mended_values(contract)

    def how(r: Requirement) -> str:
        if r.kind in MENDED_VALUES and str(r.params.get("name")) in computed:
            return (
                f". Computed on the written file by the contract's mend: leave `{r.params.get('name')}` out of "
                "the code and write the other columns"
            )
        return f". How: {_filled(ADVICE[r.kind], r)}." if r.kind in HOW_UP_FRONT else ""

    return contract.text(how)
