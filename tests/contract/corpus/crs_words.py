"""Coordinate reference systems named by vague words ("the national grid", "plain lat/lon",
"web mercator", "UTM", "in metres") and by explicit EPSG codes."""

from __future__ import annotations

from ._common import (
    EXAMPLES,
    dev,
    entry,
    geodesic_area_m2,
    read,
    swap_xy,
    without_crs,
    write_geojson,
)


def _london_national_grid(mistake):
    a = read("london_admin.geojson")
    if mistake != "still_wgs84":
        a = a.to_crs(6933 if mistake == "world_wide_crs" else 27700)
    if mistake == "crs_missing":
        a = without_crs(a)
    if mistake == "attributes_dropped":
        a = a[["id", "name", "geometry"]]
    a.to_file("london_bng.gpkg", layer="admin", driver="GPKG")


def _districts_ha(mistake):
    d = read("districts.geojson")
    if mistake != "invalid_left":
        d = d.set_geometry(d.make_valid())
    d["area_ha"] = geodesic_area_m2(d.geometry) / (1 if mistake == "area_in_m2" else 1e4)
    if mistake == "converted_to_lonlat":
        d = d.to_crs(4326)
    if mistake == "crs_member_missing":
        d = without_crs(d)
    write_geojson(d, "districts_ha.geojson")


def _hospitals_utm(mistake):
    h = read("capetown_hospitals.parquet")
    crs = {"northern_zone": 32634, "web_mercator": 3857}.get(mistake, 32734)
    (h if mistake == "left_in_degrees" else h.to_crs(crs)).to_parquet("hospitals_utm.parquet")


def _parks_lonlat(mistake):
    p = read("nyc_parks.gpkg", layer="parks_osm")
    if mistake != "still_in_feet":
        p = p.to_crs(3857 if mistake == "web_mercator" else 4326)
    if mistake == "lat_lon_swapped":
        p = swap_xy(p)
    write_geojson(p, "parks_osm_lonlat.geojson")


def _cairo_web_mercator(mistake):
    p = read("cairo_parcels_legacy.geojson")
    crs = {"left_in_red_belt": p.crs, "plain_lonlat": 4326}.get(mistake, 3857)
    p = p.to_crs(crs)
    if mistake == "crs_missing":
        p = without_crs(p)
    p.to_file("cairo_3857.gpkg", layer="parcels", driver="GPKG", promote_to_multi=False)


def _marker_zones(mistake):
    h = read("heritage_sites.geojson")
    markers = h[h.feature_kind.str.startswith("marker")]
    if mistake == "buffer_in_degrees":
        zones = markers.buffer(100)
    elif mistake == "web_mercator_metres":
        zones = markers.to_crs(3857).buffer(100).to_crs(4326)
    else:
        zones = markers.to_crs(32636).buffer(100)
        zones = zones if mistake == "left_in_utm" else zones.to_crs(4326)
    write_geojson(markers.set_geometry(zones), "marker_zones.geojson")


def _hex_utm(mistake):
    h = read("lagos_hex_grid.geojson").to_crs(32632 if mistake == "wrong_zone_32632" else 32631)
    if mistake == "crs_missing":
        h = without_crs(h)
    if mistake == "hex_id_dropped":
        h = h[["geometry"]]
    h.to_file("lagos_hex_utm.gpkg", layer="hexes", driver="GPKG")


ENTRIES = [
    entry(
        "reproject-to-the-national-grid-gpkg-layer",
        """
        Put london_admin.geojson on the national grid (we're a British team, everything we map is on
        it) and save it as london_bng.gpkg, layer "admin". Attributes as they are.
        """,
        [dev("crs-l1-london-laea-areas", "london_admin.geojson")],
        ["london_bng.gpkg"],
        _london_national_grid,
        ["still_wgs84", "crs_missing", "attributes_dropped", "world_wide_crs"],
        notes="""
        The national grid of Great Britain: OSGB36 / British National Grid, EPSG:27700. A world-wide
        CRS in metres (EPSG:6933, equal-area) contains London too, and is no national grid.
        """,
    ),
    entry(
        "stay-in-the-official-grid-area-ha",
        """
        districts.geojson is delivered in the official Austrian grid. Add each district's area in
        hectares (column area_ha) and save as districts_ha.geojson — leave it in the grid it came in,
        do not convert it to lat/lon. If an outline is invalid, fix it on the way.
        """,
        [dev("spa-l1-vienna-pip-count", "districts.geojson")],
        ["districts_ha.geojson"],
        _districts_ha,
        ["converted_to_lonlat", "area_in_m2", "crs_member_missing", "invalid_left"],
        notes="""
        The input's CRS is MGI / Austria Lambert (EPSG:31287). One district has nested shells;
        make_valid repairs it without changing its area.
        """,
    ),
    entry(
        "reproject-to-utm-geoparquet",
        """
        hospitals to UTM please — the right zone for Cape Town — as GeoParquet, hospitals_utm.parquet.
        """,
        [EXAMPLES + "capetown_hospitals.parquet"],
        ["hospitals_utm.parquet"],
        _hospitals_utm,
        ["northern_zone", "left_in_degrees", "web_mercator"],
        notes="Cape Town (18.4-18.6 E, 34 S) is in UTM zone 34 South; WGS 84 / UTM 34S is EPSG:32734.",
    ),
    entry(
        "to-plain-lat-lon-geojson",
        """
        The parks_osm layer of nyc_parks.gpkg is in some State Plane feet system. I just want plain
        lat/lon. Save it as parks_osm_lonlat.geojson, attributes unchanged.
        """,
        [dev("geo-l2-nyc-park-symdiff", "nyc_parks.gpkg")],
        ["parks_osm_lonlat.geojson"],
        _parks_lonlat,
        ["still_in_feet", "web_mercator", "lat_lon_swapped"],
    ),
    entry(
        "reproject-to-web-mercator-only",
        """
        We're putting the Cairo parcels on a web map: reproject cairo_parcels_legacy.geojson to Web
        Mercator and save as cairo_3857.gpkg, layer "parcels". Only the projection changes — every
        record stays, including the odd ones.
        """,
        [dev("dc-l2-cairo-invalid-dedup", "cairo_parcels_legacy.geojson")],
        ["cairo_3857.gpkg"],
        _cairo_web_mercator,
        ["left_in_red_belt", "plain_lonlat", "crs_missing"],
        notes="""
        Web Mercator is EPSG:3857. 'Only the projection changes': the invalid outlines stay invalid
        and single polygons stay single (not promoted to multi).
        """,
    ),
    entry(
        "buffer-real-metres-output-lonlat",
        """
        Draw a 100 m protection zone around each marker point in heritage_sites.geojson (feature_kind
        starting with "marker"). 100 real metres on the ground, whatever the file's units are. Write
        marker_zones.geojson in longitude/latitude, keeping the marker attributes.
        """,
        [dev("fio-l2-cairo-mixedgeom-split", "heritage_sites.geojson")],
        ["marker_zones.geojson"],
        _marker_zones,
        ["buffer_in_degrees", "web_mercator_metres", "left_in_utm"],
        notes="Buffered in UTM 36N (scale error < 0.02 % at 31.25 E); Web Mercator's 100 units are 87 m here.",
    ),
    entry(
        "reproject-explicit-epsg-keep-ids",
        """
        1) Reproject lagos_hex_grid.geojson to EPSG:32631.
        2) Keep hex_id.
        3) Write lagos_hex_utm.gpkg with the layer named "hexes".
        """,
        [dev("spa-l2-lagos-hotspot-overlaps", "lagos_hex_grid.geojson")],
        ["lagos_hex_utm.gpkg"],
        _hex_utm,
        ["wrong_zone_32632", "crs_missing", "hex_id_dropped"],
    ),
]
