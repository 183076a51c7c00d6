"""File formats and shapes: CSV with WKT, GeoPackage layers, several outputs, bbox arrays vs columns."""

from __future__ import annotations

import geopandas as gpd
import pandas as pd
import shapely

from ._common import (
    EXAMPLES,
    dev,
    entry,
    read,
    write_csv,
    write_geojson,
    write_json,
)

NYC_PARKS = dev("geo-l2-nyc-park-symdiff", "nyc_parks.gpkg")
LONDON = dev("crs-l1-london-laea-areas", "london_admin.geojson")


def _addresses_per_postcode(mistake):
    a = pd.read_csv("nyc_addresses.csv")
    if mistake != "missing_postcode_kept":
        a = a.dropna(subset=["postcode"])
    postcode = a.postcode if mistake == "postcode_as_float" else a.postcode.map(_zip5)
    out = a.groupby(postcode, dropna=False).size().rename("addresses").reset_index()
    write_csv(
        out.sort_values("addresses" if mistake == "sorted_by_count" else "postcode"), "addresses_per_postcode.csv"
    )


def _zip5(code) -> str:
    """A ZIP code read as a float (10002.0) back to its five digits."""
    return f"{int(code):05d}" if pd.notna(code) else ""


def _web_footprints(mistake):
    b = read("tokyo_buildings_legacy.geojson")
    shapes = b.geometry.values
    if mistake == "holes_dropped":
        shapes = shapely.polygons(shapely.get_exterior_ring(shapes))
    if mistake != "winding_left":
        shapes = shapely.orient_polygons(shapes, exterior_cw=False)
    b = b.set_geometry(gpd.GeoSeries(shapes, index=b.index, crs=b.crs))
    if mistake == "last_feature_only":  # a loop that writes each feature over the file
        b = b.iloc[-1:]
    write_geojson(b, "web_footprints.geojson")


def _capetown_layers(mistake):
    crs = {"left_in_lonlat": 4326, "northern_zone": 32634}.get(mistake, 32734)
    layers = {"hospitals": "capetown_hospitals.parquet", "addresses": "capetown_addresses.parquet"}
    for layer, source in layers.items():
        name = source.removesuffix(".parquet") if mistake == "layers_named_after_files" else layer
        read(source).to_crs(crs).to_file("capetown_utm.gpkg", layer=name, driver="GPKG")


def _stations_pair(mistake):
    s = read("vienna_stations.geojson")
    d = read("vienna_districts.geojson")
    joined = gpd.sjoin(s, d, predicate="within", how="left")
    columns = ["station_id", "name", "district_code", "district_name"]
    table = pd.DataFrame(joined) if mistake == "csv_geometry_and_index_right" else joined[columns]
    write_csv(table, "stations_table.csv")
    spatial = s if mistake == "geojson_without_district" else joined[[*columns, "geometry"]]
    write_geojson(spatial, "stations_joined.geojson")


def _label_points(mistake):
    a = read("london_admin.geojson")
    loc = a[a.subtype == "locality"]
    points = loc.centroid if mistake == "centroids" else loc.representative_point()
    if mistake == "wkt_in_national_grid":
        points = points.to_crs(27700)
    out = loc[["id", "name"]].copy()
    if mistake == "xy_columns_instead_of_wkt":
        out["lon"], out["lat"] = points.x, points.y
    else:
        out["wkt"] = points.to_wkt()
    write_csv(out, "label_points.csv")


def _class_extents(mistake):
    lu = read("lagos_landuse.geojson")
    if mistake == "bbox_in_utm":
        lu = lu.to_crs(32631)
    bounds = lu.geometry.bounds.groupby(lu["class"]).agg({"minx": "min", "miny": "min", "maxx": "max", "maxy": "max"})
    if mistake == "records_with_bound_columns":
        write_json(bounds.reset_index().to_dict(orient="records"), "class_extents.json")
        return
    order = ["miny", "minx", "maxy", "maxx"] if mistake == "lat_first" else ["minx", "miny", "maxx", "maxy"]
    write_json({cls: [float(v) for v in row] for cls, row in bounds[order].iterrows()}, "class_extents.json")


def _building_bounds(mistake):
    b = read("tokyo_buildings_legacy.geojson")
    if mistake == "projected_units":
        b = b.to_crs(32654)
    bounds = b.geometry.bounds
    out = b[["feature_id"]].copy()
    if mistake == "bbox_array_column":
        out["bbox"] = bounds.values.tolist()
    else:
        out[["minx", "miny", "maxx", "maxy"]] = bounds
    write_csv(out, "building_bounds.csv")


def _markers_and_summary(mistake):
    h = read("heritage_sites.geojson")
    markers = h[h.feature_kind.str.startswith("marker")]
    utm = markers.to_crs(32636)
    (markers if mistake == "gpkg_left_in_lonlat" else utm).to_file("markers_utm.gpkg", layer="markers", driver="GPKG")
    bbox = (utm if mistake == "bbox_in_utm" else markers).total_bounds
    sites = len(markers) if mistake == "sites_counted_as_markers" else markers.site_id.nunique()
    write_json({"markers": len(markers), "sites": sites, "bbox": [float(v) for v in bbox]}, "markers_summary.json")


def _parks_wkt(mistake):
    p = read("nyc_parks.gpkg", layer="parks_official")
    if mistake != "wkt_in_feet":
        p = p.to_crs(4326)
    out = p[["park_id", "park_class"]].copy()
    if mistake != "wkt_missing":
        out["wkt"] = p.geometry.to_wkt()
    write_csv(out, "parks_wkt.csv")


def _service_areas(mistake):
    h = read("capetown_hospitals.parquet")
    metric = h.to_crs(32734)
    areas = metric[["hospital_id", "name"]].copy()
    if mistake == "geometry_in_second_column":  # the buffers beside the points, made the geometry as they are
        metric["service_area"] = metric.buffer(2000)
        metric.set_geometry("service_area").to_parquet("service_areas.parquet")
        return
    areas = areas.set_geometry(metric.buffer(2000), crs=metric.crs)
    if mistake == "buffered_in_degrees":
        areas = areas.set_geometry(h.buffer(0.02), crs=h.crs)
    areas.to_parquet("service_areas.parquet")


ENTRIES = [
    entry(
        "count-per-code-zip-as-text-sorted",
        """
        Count the addresses per postcode in nyc_addresses.csv. Postcodes are 5-digit ZIP codes, write
        them as such (10002, not 10002.0). Skip addresses without a postcode. Output
        addresses_per_postcode.csv with postcode and addresses, ordered by postcode ascending.
        """,
        [dev("fio-l1-nyc-csvwkt-addresses", "nyc_addresses.csv")],
        ["addresses_per_postcode.csv"],
        _addresses_per_postcode,
        ["postcode_as_float", "missing_postcode_kept", "sorted_by_count"],
    ),
    entry(
        "geopackage-two-named-layers-utm",
        """
        Package the Cape Town points for QGIS: one GeoPackage, capetown_utm.gpkg, with two layers named
        "hospitals" (from capetown_hospitals.parquet) and "addresses" (from capetown_addresses.parquet),
        both in UTM zone 34 South, WGS 84 (EPSG:32734), all attributes kept.
        """,
        [EXAMPLES + "capetown_hospitals.parquet", EXAMPLES + "capetown_addresses.parquet"],
        ["capetown_utm.gpkg"],
        _capetown_layers,
        ["left_in_lonlat", "northern_zone", "layers_named_after_files"],
    ),
    entry(
        "two-outputs-table-and-geojson",
        """
        Two files please, from vienna_stations.geojson and vienna_districts.geojson:
        1. stations_table.csv — station_id, name, district_code, district_name (the district each
           station lies in). A plain table: no geometry, no join leftovers.
        2. stations_joined.geojson — the same attributes plus the station points.
        """,
        [EXAMPLES + "vienna_stations.geojson", EXAMPLES + "vienna_districts.geojson"],
        ["stations_table.csv", "stations_joined.geojson"],
        _stations_pair,
        ["csv_geometry_and_index_right", "geojson_without_district"],
    ),
    entry(
        "label-points-inside-as-wkt-not-centroids",
        """
        I need a label point for every locality in london_admin.geojson (subtype "locality") that is
        guaranteed to fall inside the locality — so not the centroid. label_points.csv with id, name
        and wkt (the point as WKT, in longitude/latitude).
        """,
        [LONDON],
        ["label_points.csv"],
        _label_points,
        ["centroids", "wkt_in_national_grid", "xy_columns_instead_of_wkt"],
    ),
    entry(
        "bbox-array-per-class-lonlat",
        """
        For each land-use class in lagos_landuse.geojson I want its extent as a lon/lat bounding box
        array. class_extents.json: an object mapping class -> [min_lon, min_lat, max_lon, max_lat].
        """,
        [dev("spa-l2-lagos-hotspot-overlaps", "lagos_landuse.geojson")],
        ["class_extents.json"],
        _class_extents,
        ["bbox_in_utm", "records_with_bound_columns", "lat_first"],
    ),
    entry(
        "per-feature-bound-columns-lonlat",
        """
        building_bounds.csv: for every building in tokyo_buildings_legacy.geojson its feature_id and the
        corners of its bounding box as four separate columns minx, miny, maxx, maxy, in degrees
        (longitude/latitude).
        """,
        [dev("dc-l1-tokyo-ring-orientation", "tokyo_buildings_legacy.geojson")],
        ["building_bounds.csv"],
        _building_bounds,
        ["bbox_array_column", "projected_units"],
    ),
    entry(
        "gpkg-in-utm-plus-json-summary-with-lonlat-bbox",
        """
        Two deliverables from the marker points of heritage_sites.geojson (feature_kind starting with
        "marker"):
        - markers_utm.gpkg, layer "markers", in UTM zone 36N (EPSG:32636), attributes kept;
        - markers_summary.json: {"markers": <number of markers>, "sites": <number of distinct
          site_id>, "bbox": [min_lon, min_lat, max_lon, max_lat]} — the bbox in degrees, even though
          the GeoPackage is in UTM.
        """,
        [dev("fio-l2-cairo-mixedgeom-split", "heritage_sites.geojson")],
        ["markers_utm.gpkg", "markers_summary.json"],
        _markers_and_summary,
        ["bbox_in_utm", "gpkg_left_in_lonlat", "sites_counted_as_markers"],
    ),
    entry(
        "gpkg-layer-to-csv-wkt-wgs84",
        """
        Export the parks_official layer of nyc_parks.gpkg to parks_wkt.csv for a colleague who only
        has Excel: park_id, park_class and the outline as WKT in a column called wkt, converted to
        WGS84 lon/lat.
        """,
        [NYC_PARKS],
        ["parks_wkt.csv"],
        _parks_wkt,
        ["wkt_in_feet", "wkt_missing"],
    ),
    entry(
        "footprints-drawn-right-in-web-maps",
        """
        Our web map draws the buildings of tokyo_buildings_legacy.geojson inside out: courtyards come out
        solid and the roofs hollow. Give me web_footprints.geojson that browsers draw properly, same
        buildings and attributes as delivered.
        """,
        [dev("dc-l1-tokyo-ring-orientation", "tokyo_buildings_legacy.geojson")],
        ["web_footprints.geojson"],
        _web_footprints,
        ["winding_left", "last_feature_only", "holes_dropped"],
    ),
    entry(
        "service-areas-geoparquet-geometry-named",
        """
        Draw a 2 km service area around every hospital in capetown_hospitals.parquet (UTM zone 34 South
        is fine for the buffering) and hand me service_areas.parquet as GeoParquet: one polygon per
        hospital, with hospital_id and name.
        """,
        [EXAMPLES + "capetown_hospitals.parquet"],
        ["service_areas.parquet"],
        _service_areas,
        ["geometry_in_second_column", "buffered_in_degrees"],
        notes="""
        GeoParquet keeps the geometry column's name: buffers put in a second column and made the
        geometry as they are leave readers without a `geometry` column (and the points beside them).
        """,
    ),
]
