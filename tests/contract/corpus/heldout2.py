"""A second held-out set: written blind to the contract rules, to measure them; not to be tuned on.

Written from the corpus README, ``_entry.py``/``_common.py``, the code format of ``heldout.py`` and
the inputs only, without reading the contract code or the audit. If an entry here shows a defect,
fix the rules, but do not rephrase these requests to suit them.
"""

from __future__ import annotations

import geopandas as gpd
import numpy as np
import pandas as pd

from ._common import (
    EXAMPLES,
    WGS84,
    count_in,
    dev,
    entry,
    geodesic_area_m2,
    geodesic_distance_m,
    geodesic_length_m,
    planar,
    read,
    records,
    swap_xy,
    without_crs,
    write_csv,
    write_geojson,
    write_json,
)

LAGOS_LANDUSE = dev("spa-l2-lagos-hotspot-overlaps", "lagos_landuse.geojson")
TOKYO_BUILDINGS = dev("dc-l1-tokyo-ring-orientation", "tokyo_buildings_legacy.geojson")
FIJI = dev("crs-l2-fiji-antimeridian", "fiji_transects_wgs84.geojson")
LONDON = dev("crs-l1-london-laea-areas", "london_admin.geojson")
NYC_ADDRESSES = dev("fio-l1-nyc-csvwkt-addresses", "nyc_addresses.csv")
BANGKOK_AQ = dev("dc-l1-bangkok-attribute-coercion", "bangkok_aq_stations.geojson")
BANGKOK = dev("dd-l2-bangkok-multicrs-audit", "bangkok_contractor_delivery.gpkg")
CAIRO = dev("dc-l2-cairo-invalid-dedup", "cairo_parcels_legacy.geojson")
NYC_PARKS = dev("geo-l2-nyc-park-symdiff", "nyc_parks.gpkg")


def _landuse_density(mistake):
    lu = read("lagos_landuse.geojson")
    m2 = geodesic_area_m2(lu.geometry)
    lu["area_km2"] = m2 if mistake == "area_in_m2" else m2 / 1e6
    sizes = lu.groupby("class")["id"].transform("size")
    lu = lu[sizes > 33] if mistake == "min_count_strict" else lu[sizes >= 33]
    out = lu.groupby("class", as_index=False).agg(
        polygons=("id", "size"),
        median_density=("pop_density", "mean" if mistake == "mean_not_median" else "median"),
        max_density=("pop_density", "max"),
        area_km2=("area_km2", "sum"),
    )
    write_csv(out.sort_values("median_density", ascending=False), "landuse_density_by_class.csv")


def _top_footprints(mistake):
    b = read("tokyo_buildings_legacy.geojson")
    if mistake == "area_square_degrees":
        b["area_m2"] = planar("area", b.geometry.to_crs(WGS84))
    else:
        b["area_m2"] = geodesic_area_m2(b.geometry)
    b = b.sort_values("area_m2", ascending=mistake == "smallest_ten", kind="stable").head(10)
    b["rank"] = np.arange(10) if mistake == "rank_from_zero" else np.arange(1, 11)
    write_geojson(
        b[["rank", "feature_id", "name_primary", "area_m2", "geometry"]].to_crs(WGS84), "top10_footprints.geojson"
    )


def _transect_km(mistake):
    t = read("fiji_transects_wgs84.geojson")
    if mistake == "dateline_jump":
        km = planar("length", t.geometry.to_crs(3857)) / 1000
    else:
        m = geodesic_length_m(t.geometry)
        km = m if mistake == "metres_not_km" else m / 1000
    out = pd.DataFrame({"transect_id": t.transect_id, "vessel": t.vessel, "km": km})
    write_csv(out.sort_values("km", ascending=mistake == "shortest_first"), "transect_km.csv")


def _london_bng(mistake):
    places = read("london_admin.geojson")
    ha = geodesic_area_m2(places.geometry)
    places["area_ha"] = ha if mistake == "area_in_m2" else ha / 1e4
    places = places[["id", "name", "subtype", "country", "area_ha", "geometry"]]
    if mistake == "crs_label_only":
        places = places.set_crs(27700, allow_override=True)
    else:
        places = places.to_crs(27700)
    if mistake == "single_layer":
        places.to_file("london_admin_bng.gpkg", layer="london_admin", driver="GPKG")
        return
    for subtype, layer in (("locality", "localities"), ("county", "counties")):
        places[places.subtype == subtype].to_file("london_admin_bng.gpkg", layer=layer, driver="GPKG")


def _postcode_streets(mistake):
    a = pd.read_csv("nyc_addresses.csv").dropna(subset=["postcode"])
    if mistake != "postcode_as_float":
        a["postcode"] = a.postcode.astype(int)
    out = a.groupby("postcode", as_index=False).agg(
        addresses=("id", "size"), streets=("street", "size" if mistake == "streets_counts_rows" else "nunique")
    )
    if mistake == "fewest_first":
        out = out.sort_values(["addresses", "postcode"], ascending=[True, True])
    else:
        out = out.sort_values(["addresses", "postcode"], ascending=[False, True])
    write_csv(out, "postcode_streets.csv")


def _pm25_hotspots(mistake):
    s = read("bangkok_aq_stations.geojson")
    markets = read("bangkok_contractor_delivery.gpkg", layer="markets")
    s["pm25"] = s.pm25_ug_m3.astype(float)
    s = s[s.pm25 > 55] if mistake == "above_not_at" else s[s.pm25 >= 55]
    s = s.assign(n=s.station_id.astype(int)).sort_values(["pm25", "n"], ascending=[False, True])
    s["markets_500m"] = (geodesic_distance_m(s.geometry, markets.geometry) <= 500).sum(axis=1)
    if mistake == "pm25_left_as_text":
        s["pm25"] = s.pm25_ug_m3
    rows = records(s[["station_id", "name_en", "pm25", "markets_500m"]])
    if mistake == "object_keyed_by_station":
        write_json({r.pop("station_id"): r for r in rows}, "pm25_hotspots.json")
        return
    write_json(rows, "pm25_hotspots.json")


def _cairo_lonlat(mistake):
    parcels = read("cairo_parcels_legacy.geojson")
    if mistake == "broken_outlines_dropped":
        parcels = parcels[parcels.is_valid]
    if mistake == "area_m2_recomputed":
        parcels["area_m2"] = planar("area", parcels.geometry)  # refreshed in the source metres
    out = parcels.to_crs(WGS84)
    if mistake == "lat_lon_swapped":
        out = swap_xy(out)
    write_geojson(out, "cairo_parcels_wgs84.geojson")


def _district_stations(mistake):
    districts = read("vienna_districts.geojson")
    stations = read("vienna_stations.geojson")
    if mistake == "area_square_degrees":
        area = planar("area", districts.geometry)
    else:
        area = geodesic_area_m2(districts.geometry) / 1e6
    counts = count_in(districts, stations)
    share = counts / len(stations)
    out = pd.DataFrame(
        {
            "district_code": districts.district_code,
            "district_name": districts.district_name,
            "area_km2": area,
            "stations": counts,
            "share_pct": share if mistake == "share_as_fraction" else share * 100,
        }
    ).sort_values("district_code")
    if mistake == "empty_districts_dropped":
        out = out[out.stations > 0]
    write_csv(out, "district_stations.csv")


def _parks_osm_class(mistake):
    official = read("nyc_parks.gpkg", layer="parks_official")
    osm = read("nyc_parks.gpkg", layer="parks_osm").rename(columns={"park_class": "osm_class"})
    if mistake == "joined_by_location":
        out = gpd.sjoin(official, osm[["osm_class", "geometry"]], how="left", predicate="intersects")
    else:
        out = official.merge(
            osm[["park_id", "osm_class"]], on="park_id", how="inner" if mistake == "inner_join" else "left"
        )
        out = gpd.GeoDataFrame(out, geometry="geometry", crs=official.crs)
    if mistake == "crs_missing":
        out = without_crs(out)
    out[["park_id", "park_class", "osm_class", "geometry"]].to_file(
        "parks_with_osm_class.gpkg", layer="parks", driver="GPKG"
    )


def _hospital_access(mistake):
    addresses = read("capetown_addresses.parquet")
    hospitals = read("capetown_hospitals.parquet")
    km = geodesic_distance_m(addresses.geometry, hospitals.geometry).min(axis=1) / 1000
    table = pd.DataFrame({"address_id": addresses.address_id, "nearest_km": km})
    if mistake == "metres_in_km_column":
        table["nearest_km"] = km * 1000
    write_csv(table, "nearest_hospital_km.csv")
    summary = {
        "addresses": len(addresses),
        "median_km": float(np.mean(km) if mistake == "mean_not_median" else np.median(km)),
        "max_km": float(km.max()),
        "beyond_4km": int((km > 4).sum()),
    }
    write_json({"summary": summary} if mistake == "summary_nested" else summary, "access_summary.json")


ENTRIES = [
    entry(
        "h2-lagos-landuse-median-density-per-class",
        """
        hiya, quick favour for the Lagos density note. from lagos_landuse.geojson I'd like a table per
        land-use class, but only the classes with at least 33 polygons (a class with exactly 33 is in,
        32 or fewer is out). For each class:
          polygons – how many polygons it has
          median_density – the median of pop_density over its polygons (median, not average, the
          values are skewed)
          max_density – the highest pop_density
          area_km2 – the areas of its polygons added up, in km²
        highest median_density at the top please. landuse_density_by_class.csv 🙏
        """,
        [LAGOS_LANDUSE],
        ["landuse_density_by_class.csv"],
        _landuse_density,
        ["mean_not_median", "min_count_strict", "area_in_m2"],
        notes="""
        The hospital class has exactly 33 polygons (in); the next smaller kept class, park, has 38 and the
        largest dropped one 21. Medians differ by at least 0.2 % between neighbours, so the order is fixed.
        """,
    ),
    entry(
        "h2-tokyo-ten-largest-footprints-ranked",
        """
        10 biggest buildings by footprint area in tokyo_buildings_legacy.geojson -> top10_footprints.geojson, props rank (1 = biggest), feature_id, name_primary, area_m2 (m² on the ground), lon/lat as they come
        """,
        [TOKYO_BUILDINGS],
        ["top10_footprints.geojson"],
        _top_footprints,
        ["smallest_ten", "area_square_degrees", "rank_from_zero"],
        notes="""
        10th and 11th largest: 726.0 and 721.6 m² (0.6 % apart); any metric projection near Tokyo keeps
        the same ten in the same order.
        """,
    ),
    entry(
        "h2-fiji-transect-lengths-km-longest-first",
        """
        [SURV-88] Transect length report
        Input ......... fiji_transects_wgs84.geojson (lines, some run across the 180° meridian)
        Output ........ transect_km.csv
        Columns ....... transect_id, vessel, km
        km ............ real surveyed length of the line in kilometres
        Order ......... longest transect first
        Rows .......... all 30 transects
        """,
        [FIJI],
        ["transect_km.csv"],
        _transect_km,
        ["dateline_jump", "metres_not_km", "shortest_first"],
        notes="""
        Lengths on the ellipsoid; Fiji Map Grid (EPSG:3460) lengths are within 0.3 %. Two transects are
        0.04 % apart (179.40 and 179.46 km), so a projected answer may order that pair the other way; no
        broken variant relies on that pair.
        """,
    ),
    entry(
        "h2-london-admin-bng-two-layers",
        """
        Dear team,

        For the planning portal we need london_admin.geojson converted to the British National Grid and
        delivered as one GeoPackage, london_admin_bng.gpkg, with two layers: "localities" holding the
        features whose subtype is locality, and "counties" holding those whose subtype is county. Please
        keep the existing attributes (id, name, subtype, country) exactly as they are and add area_ha,
        the area of each feature in hectares.

        Kind regards,
        Planning Data Unit
        """,
        [LONDON],
        ["london_admin_bng.gpkg"],
        _london_bng,
        ["crs_label_only", "single_layer", "area_in_m2"],
        notes="Areas on the ellipsoid; OSGB36 grid areas agree within 0.1 % around London.",
    ),
    entry(
        "h2-nyc-distinct-streets-per-postcode",
        """
        Postcode coverage table from nyc_addresses.csv:
        1) one row per postcode; the single address without a postcode is left out
        2) postcode written as the plain 5-digit code (10013, not 10013.0)
        3) addresses = number of address rows with that postcode
        4) streets = number of DIFFERENT street names among them (each street counted once)
        5) order: most addresses first; equal counts by postcode ascending
        6) save as postcode_streets.csv (postcode, addresses, streets)
        """,
        [NYC_ADDRESSES],
        ["postcode_streets.csv"],
        _postcode_streets,
        ["streets_counts_rows", "postcode_as_float", "fewest_first"],
        notes="Street names are compared as written in the file (all are upper case already).",
    ),
    entry(
        "h2-bangkok-pm25-hotspots-markets-500m",
        """
        Acceptance criteria — PM2.5 hotspot list
        - source stations: bangkok_aq_stations.geojson; pm25_ug_m3 is stored as text, treat it as a number
        - a station is a hotspot when its PM2.5 is 55 µg/m³ or higher (55.0 itself counts)
        - for each hotspot count the markets (markets layer of bangkok_contractor_delivery.gpkg) that
          are within 500 m of it; 0 is a valid answer
        - deliver pm25_hotspots.json: a JSON array with one object per hotspot, keys station_id,
          name_en, pm25 (a number), markets_500m (an integer)
        - highest pm25 first; on equal pm25 the lower station number first
        """,
        [BANGKOK_AQ, BANGKOK],
        ["pm25_hotspots.json"],
        _pm25_hotspots,
        ["above_not_at", "pm25_left_as_text", "object_keyed_by_station"],
        notes="""
        One station reads exactly 55.0. Station-market distances nearest 500 m are 4.6 % away from it, so a
        spherical or UTM computation gives the same counts.
        """,
    ),
    entry(
        "h2-cairo-parcels-to-lonlat-untouched",
        """
        can you put cairo_parcels_legacy.geojson into plain WGS84 lon/lat for the web viewer? save it as
        cairo_parcels_wgs84.geojson. that's the only change: all 290 records stay, including the
        border slivers and the outlines that are self-intersecting (QA wants to see them as they are),
        and the attributes stay exactly as they are — area_m2 is the registry figure, don't recompute it.
        """,
        [CAIRO],
        ["cairo_parcels_wgs84.geojson"],
        _cairo_lonlat,
        ["broken_outlines_dropped", "area_m2_recomputed", "lat_lon_swapped"],
        notes="""
        The source is in EPSG:22992 (Egypt Red Belt); 20 outlines are invalid and stay invalid. The registry
        area_m2 disagrees with the outline's own area by more than 1 m² on 50 records, so recomputing it
        changes them.
        """,
    ),
    entry(
        "h2-vienna-stations-per-district-share",
        """
        Working on a piece about environmental monitoring in Vienna — how are the stations in
        vienna_stations.geojson spread over the districts (vienna_districts.geojson)? Could you send
        district_stations.csv with all 23 districts, even the ones with no station, ordered by
        district_code: district_code, district_name, area_km2 (district area in square kilometres),
        stations (how many stations lie in it) and share_pct (that district's share of all stations,
        as a percentage, so the column adds up to 100)?
        """,
        [EXAMPLES + "vienna_districts.geojson", EXAMPLES + "vienna_stations.geojson"],
        ["district_stations.csv"],
        _district_stations,
        ["empty_districts_dropped", "share_as_fraction", "area_square_degrees"],
        notes="Every station lies in exactly one district; four districts have none.",
    ),
    entry(
        "h2-nyc-parks-attach-osm-class",
        """
        DATA-231: attach the OSM class to the official parks
        Take layer parks_official of nyc_parks.gpkg and add, for each park, the park_class that the
        parks_osm layer has for the same park_id, as a new column osm_class (empty when the park is
        not in the OSM layer).
        Definition of done:
          * parks_with_osm_class.gpkg, layer "parks"
          * all 1380 official parks, each once; columns park_id, park_class, osm_class + geometry
          * geometry untouched, still in the layer's New York Long Island state plane CRS (EPSG:6539)
        """,
        [NYC_PARKS],
        ["parks_with_osm_class.gpkg"],
        _parks_osm_class,
        ["inner_join", "joined_by_location", "crs_missing"],
        notes="""
        park_id is unique in both layers; 20 official parks have no OSM counterpart. Joining by location
        (intersects) instead of by park_id repeats 278 parks that touch more than one OSM polygon.
        """,
    ),
    entry(
        "h2-capetown-nearest-hospital-table-and-summary",
        """
        ## Hospital access, Cape Town

        Inputs: capetown_addresses.parquet, capetown_hospitals.parquet. Distances are straight-line.

        **nearest_hospital_km.csv** — one row per address: `address_id`, `nearest_km` (distance to the
        closest hospital, km).

        **access_summary.json** — a single flat JSON object with exactly these keys:
        `addresses` (how many addresses), `median_km` (median of nearest_km), `max_km` (largest
        nearest_km), `beyond_4km` (number of addresses whose nearest hospital is more than 4 km away).
        """,
        [EXAMPLES + "capetown_addresses.parquet", EXAMPLES + "capetown_hospitals.parquet"],
        ["nearest_hospital_km.csv", "access_summary.json"],
        _hospital_access,
        ["mean_not_median", "metres_in_km_column", "summary_nested"],
        notes="""
        No hospital_id is asked: some addresses have two hospitals within 0.2 % of the same distance.
        Nearest distances around 4 km: 3.92 and 4.05 km (> 1.3 % off), so beyond_4km is 6 whatever the
        distance method.
        """,
    ),
]
