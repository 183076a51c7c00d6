"""Areas, lengths and distances in the units the request names (km², m², ha, km, m)."""

from __future__ import annotations

import geopandas as gpd
import pandas as pd

from ._common import (
    EXAMPLES,
    dev,
    entry,
    geodesic_area_m2,
    geodesic_distance_m,
    geodesic_length_m,
    planar,
    planar_distance,
    read,
    write_csv,
    write_geojson,
)


def _district_sizes(mistake):
    d = read("vienna_districts.geojson")
    area_m2 = geodesic_area_m2(d.geometry)
    area_km2 = {
        "square_degrees": planar("area", d.geometry),
        "web_mercator_area": planar("area", d.geometry.to_crs(3857)) / 1e6,
        "square_metres": area_m2,
    }.get(mistake, area_m2 / 1e6)
    out = pd.DataFrame({"district_code": d.district_code, "district_name": d.district_name, "area_km2": area_km2})
    if mistake == "geometry_column_kept":
        out["geometry"] = d.geometry.to_wkt()
    write_csv(out.sort_values("area_km2", ascending=mistake == "smallest_first"), "district_sizes.csv")


def _tokyo_footprints(mistake):
    b = read("tokyo_buildings_legacy.geojson")
    b["footprint_m2"] = {
        "square_degrees": planar("area", b.geometry),
        "web_mercator_area": planar("area", b.geometry.to_crs(3857)),
    }.get(mistake, geodesic_area_m2(b.geometry))
    if mistake == "written_in_utm":
        b = b.to_crs(32654)
    if mistake == "feature_id_dropped":
        b = b.drop(columns="feature_id")
    write_geojson(b, "tokyo_footprints.geojson")


def _road_km(mistake):
    r = read("bangkok_contractor_delivery.gpkg", layer="roads")
    r["length_m"] = planar("length", r.geometry.to_crs(4326)) if mistake == "degrees" else geodesic_length_m(r.geometry)
    out = r.groupby("highway", as_index=False).agg(segments=("id", "size"), length_m=("length_m", "sum"))
    out["length_km"] = out.pop("length_m") / (1 if mistake == "metres_as_km" else 1000)
    if mistake == "segments_as_float":
        out["segments"] = out.segments.astype(float)
    out = out.sort_values(["length_km", "highway"], ascending=[False, True])
    write_csv(out, "road_km_by_class.csv")


def _parkland(mistake):
    p = read("nyc_parks.gpkg", layer="parks_osm" if mistake == "osm_layer" else "parks_official")
    p["ha"] = (planar("area", p.geometry) if mistake == "square_feet_as_metres" else geodesic_area_m2(p.geometry)) / 1e4
    out = p.groupby("park_class", as_index=False).agg(parks=("park_id", "size"), hectares=("ha", "sum"))
    if mistake == "parks_as_float":
        out["parks"] = out.parks.astype(float)
    write_csv(out.sort_values("hectares", ascending=False), "parkland_by_class.csv")


CATHEDRAL = gpd.GeoSeries.from_xy([16.37338], [48.20849], crs=4326)


def _from_centre(mistake):
    s = read("vienna_stations.geojson")
    if mistake == "degrees":
        s["dist_m"] = planar_distance(s.geometry, CATHEDRAL)[:, 0]
    else:
        s["dist_m"] = geodesic_distance_m(s.geometry, CATHEDRAL)[:, 0] / (1000 if mistake == "kilometres" else 1)
    if mistake == "unnamed_dropped":
        s = s.dropna(subset=["name"])
    out = s[["station_id", "name", "dist_m"]].sort_values("dist_m", ascending=mistake != "farthest_first")
    write_csv(out, "stations_from_centre.csv")


def _axis_lengths(mistake):
    h = read("heritage_sites.geojson")
    if mistake != "all_features":
        h = h[h.geom_type == "LineString"]
    length = planar("length", h.geometry) if mistake == "degrees" else geodesic_length_m(h.geometry)
    length = length / 1000 if mistake == "kilometres" else length
    write_csv(
        pd.DataFrame({"site_id": h.site_id, "feature_kind": h.feature_kind, "length_m": length}), "axis_lengths.csv"
    )


ENTRIES = [
    entry(
        "area-per-district-km2-largest-first",
        """
        Quick one: how big is each of Vienna's districts? I need district_sizes.csv with
        district_code, district_name and area_km2, largest district first. No geometry in the CSV please.
        """,
        [EXAMPLES + "vienna_districts.geojson"],
        ["district_sizes.csv"],
        _district_sizes,
        ["square_degrees", "web_mercator_area", "square_metres", "smallest_first", "geometry_column_kept"],
        notes="Areas on the WGS84 ellipsoid; an equal-area or local metric CRS agrees within 0.1 %.",
    ),
    entry(
        "footprint-m2-per-building-stay-lonlat",
        """
        Add a footprint column to tokyo_buildings_legacy.geojson: the floor area of each outline in
        square metres, column footprint_m2. Keep every building with its feature_id and the other
        attributes. Save it as tokyo_footprints.geojson, still in WGS84 longitude/latitude.
        """,
        [dev("dc-l1-tokyo-ring-orientation", "tokyo_buildings_legacy.geojson")],
        ["tokyo_footprints.geojson"],
        _tokyo_footprints,
        ["square_degrees", "web_mercator_area", "written_in_utm", "feature_id_dropped"],
        notes="Ellipsoidal area of each ring as given, whatever its orientation.",
    ),
    entry(
        "road-length-km-per-class-sorted",
        """
        Ticket ROAD-114
        Source: bangkok_contractor_delivery.gpkg, layer "roads".
        Report the total road length per highway class in kilometres.
        Output: road_km_by_class.csv with columns highway, segments (number of road segments),
        length_km. One row per class, longest total first (ties by class name).
        """,
        [dev("dd-l2-bangkok-multicrs-audit", "bangkok_contractor_delivery.gpkg")],
        ["road_km_by_class.csv"],
        _road_km,
        ["metres_as_km", "degrees", "segments_as_float"],
        notes="""
        Geodesic lengths (UTM 47N agrees within 0.05 %). The classes tie on length in this data, so
        the order is by class name and no sort mistake is offered.
        """,
    ),
    entry(
        "parkland-hectares-per-class-feet-crs",
        """
        how much park land is in the official layer of nyc_parks.gpkg (parks_official), per park_class?
        hectares please, rather than the square feet of the layer. parkland_by_class.csv with park_class, parks (how many) and hectares, most
        hectares first
        """,
        [dev("geo-l2-nyc-park-symdiff", "nyc_parks.gpkg")],
        ["parkland_by_class.csv"],
        _parkland,
        ["square_feet_as_metres", "osm_layer", "parks_as_float"],
        notes="The layer is in US survey feet (EPSG:6539); areas are taken on the ellipsoid.",
    ),
    entry(
        "distance-m-to-a-landmark-nearest-first",
        """
        For each monitoring station in vienna_stations.geojson, the straight-line distance in metres to
        St. Stephen's Cathedral (16.37338 E, 48.20849 N). Write stations_from_centre.csv with station_id,
        name and dist_m, closest station first. Stations without a name stay in the list.
        """,
        [EXAMPLES + "vienna_stations.geojson"],
        ["stations_from_centre.csv"],
        _from_centre,
        ["degrees", "kilometres", "unnamed_dropped", "farthest_first"],
        notes="Geodesic distances on the WGS84 ellipsoid.",
    ),
    entry(
        "line-lengths-m-lines-only",
        """
        heritage_sites.geojson mixes points, lines and polygons. I only want the line features (the
        axial lines): axis_lengths.csv with site_id, feature_kind and length_m, the length of each line
        in metres. Nothing for the points or polygons.
        """,
        [dev("fio-l2-cairo-mixedgeom-split", "heritage_sites.geojson")],
        ["axis_lengths.csv"],
        _axis_lengths,
        ["degrees", "all_features", "kilometres"],
    ),
]
