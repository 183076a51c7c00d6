"""A fifth held-out set: written blind to the contract rules, to measure them; not to be tuned on.

Written from the corpus README, ``_entry.py``/``_common.py``, the code format of ``heldout4.py`` and
the inputs only, without reading the contract code, the audit or the other corpus entries' asks
(``heldout3.py`` was skimmed only to avoid repeating its asks). If an entry here shows a defect, fix
the rules, but do not rephrase these requests to suit them.
"""

from __future__ import annotations

import warnings

import geopandas as gpd
import numpy as np
import pandas as pd

from ._common import (
    WGS84,
    entry,
    geodesic_area_m2,
    geodesic_distance_m,
    geodesic_length_m,
    lonlat,
    planar,
    read,
    read_wkt_csv,
    write_csv,
    write_geojson,
    write_json,
)
from ._inputs import (
    BANGKOK_AQ,
    CT_CLINICS,
    CT_HOSPITALS,
    HERITAGE,
    LAGOS_LANDUSE,
    NYC_ADDRESSES,
    NYC_PARKS,
    TOKYO_CONNECTORS,
    VIENNA_DISTRICTS,
    VIENNA_MGI,
    VIENNA_STATIONS,
)

UTM34S = "EPSG:32734"
UTM54N = "EPSG:32654"
JGD2011_IX = "EPSG:6677"  # JGD2011 / Japan Plane Rectangular CS IX
M2_PER_ACRE = 4046.8564224
M_PER_FT = 0.3048


def _quiet(fn, *args, **kwargs):
    """Call ``fn`` with geopandas' geographic-CRS warnings silenced (the mistakes compute in degrees)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return fn(*args, **kwargs)


def _station_share(mistake):
    districts = read("vienna_districts.geojson").sort_values("district_code")
    stations = read("vienna_stations.geojson").to_crs(districts.crs)
    joined = gpd.sjoin(stations, districts[["geometry"]], predicate="within")
    counts = joined.groupby("index_right").size().reindex(districts.index, fill_value=0)
    km2 = geodesic_area_m2(districts.geometry) / 1e6
    per_area = km2 * 1e6 if mistake == "density_per_m2" else km2
    rows = []
    for (code, name), n, area in zip(
        districts[["district_code", "district_name"]].itertuples(index=False), counts, per_area
    ):
        if mistake == "empty_districts_omitted" and n == 0:
            continue
        rows.append(
            {
                "district_name": name,
                "district_code": int(code),
                "stations": int(n),
                "share_pct": float(n / len(stations) * 100),
                "stations_per_km2": float(n / area),
            }
        )
    if mistake == "list_not_object":
        write_json(rows, "vienna_station_shares.json")
    else:
        write_json({r.pop("district_name"): r for r in rows}, "vienna_station_shares.json")


def _clinic_nearest_hospital(mistake):
    clinics = read_wkt_csv("capetown_clinics.csv", "wkt_geom").sort_values("clinic_id")
    hospitals = read("capetown_hospitals.parquet")
    d = geodesic_distance_m(clinics.geometry, hospitals.geometry)
    j = d.argmin(axis=1)
    nearest = d[np.arange(len(clinics)), j]
    within = nearest <= 3000 if mistake != "cap_ignored" else np.ones(len(clinics), bool)
    lon, lat = lonlat(clinics)
    if mistake == "lon_lat_swapped":
        lon, lat = lat, lon
    distance = nearest / 1000 if mistake == "distance_km" else nearest
    out = pd.DataFrame(
        {
            "clinic_id": clinics.clinic_id.to_numpy(),
            "clinic_name": clinics.name.to_numpy(),
            "lon": np.round(lon, 6),
            "lat": np.round(lat, 6),
            "hospital_id": np.where(within, hospitals.hospital_id.to_numpy()[j], "none"),
            "distance_m": np.where(within, np.round(distance, 1), np.nan),
        }
    )
    write_csv(out, "clinic_nearest_hospital_3km.csv")


def _clinic_hulls(mistake):
    clinics = read_wkt_csv("capetown_clinics.csv", "wkt_geom").to_crs(UTM34S)
    rows = []
    for name, group in clinics.groupby("subdistrict"):
        points = group.geometry.union_all()
        shape = points.envelope if mistake == "envelope_not_hull" else points.convex_hull
        rows.append({"subdistrict": name, "clinics": len(group), "geometry": shape})
    hulls = gpd.GeoDataFrame(rows, geometry="geometry", crs=UTM34S)
    m2 = geodesic_area_m2(hulls.geometry)
    hulls["hull_ha"] = m2 if mistake == "area_in_m2" else m2 / 1e4
    hulls = hulls.sort_values("hull_ha", ascending=False)[["subdistrict", "clinics", "hull_ha", "geometry"]]
    layer = "hulls" if mistake == "layer_named_hulls" else "subdistrict_hulls"
    hulls.to_file("capetown_clinic_hulls.gpkg", layer=layer, driver="GPKG")


def _simplified_districts(mistake):
    districts = read("districts.geojson")  # MGI / Austria Lambert, metres
    if mistake == "simplified_in_degrees":
        out = districts.to_crs(WGS84)
        out["geometry"] = _quiet(out.geometry.simplify, 20)
    else:
        out = districts.copy()
        out["geometry"] = out.geometry.simplify(20)
        if mistake != "left_in_lambert":
            out = out.to_crs(WGS84)
    if mistake == "relation_id_dropped":
        out = out.drop(columns="osm_relation_id")
    write_geojson(out.sort_values("district_code"), "vienna_districts_simplified.geojson")


def _aq_clean(mistake):
    s = read("bangkok_aq_stations.geojson")
    pm = s.pm25_ug_m3.astype(float)
    if mistake == "band_edges_upper_inclusive":
        band = np.select([pm <= 25, pm <= 50], ["low", "medium"], "high")
    else:
        band = np.select([pm < 25, pm < 50], ["low", "medium"], "high")
    elevation_m = s.elevation_m.astype(float)
    out = gpd.GeoDataFrame(
        {
            "station_id": s.station_id if mistake == "station_id_left_as_text" else s.station_id.astype("int64"),
            "name_th": s.name_th,
            "name_en": s.name_en,
            "pm25_ug_m3": pm,
            "pm25_band": band,
            "elevation_ft": elevation_m if mistake == "elevation_left_in_metres" else elevation_m / M_PER_FT,
        },
        geometry=s.geometry,
        crs=s.crs,
    )
    out.sort_values("station_id", key=lambda c: c.astype(int)).to_parquet("bangkok_aq_clean.parquet")


def _latest_addresses(mistake):
    a = read_wkt_csv("nyc_addresses.csv", "geometry_wkt")
    a["postcode"] = a.postcode.map(lambda p: None if pd.isna(p) else f"{int(p):05d}")
    a = a.sort_values("recorded_at", ascending=mistake == "earliest_kept")
    a = a.drop_duplicates(["street", "number", "postcode"]).sort_values(["street", "number", "postcode"])
    month = a.recorded_at.str.slice(0, 7)
    if mistake != "recorded_at_left_as_text":
        a["recorded_at"] = pd.to_datetime(a.recorded_at, utc=True)
    out = a[["id", "street", "number", "unit", "postcode", "recorded_at", "geometry"]]
    out.to_parquet("nyc_addresses_latest.parquet")
    counts = month.value_counts().reindex([f"2024-{m:02d}" for m in range(1, 13)], fill_value=0)
    if mistake == "monthly_as_list":
        write_json([{"month": m, "addresses": int(n)} for m, n in counts.items()], "nyc_addresses_by_month.json")
    else:
        write_json({m: int(n) for m, n in counts.items()}, "nyc_addresses_by_month.json")


def _park_parts(mistake):
    parks = read("nyc_parks.gpkg", layer="parks_official")
    if mistake == "multipart_kept":
        parts = parks.copy()
        parts["part"] = 1
    else:
        parts = parks.explode(index_parts=False).reset_index(drop=True)
        parts["part"] = parts.groupby("park_id").cumcount() + 1
    m2 = geodesic_area_m2(parts.geometry)
    parts["acres"] = m2 / 1e4 if mistake == "area_in_hectares" else m2 / M2_PER_ACRE
    if mistake == "tiny_parts_dropped":
        parts = parts[parts.acres >= 0.01]
    out = parts.sort_values(["park_id", "part"])[["park_id", "park_class", "part", "acres", "geometry"]]
    out.to_file("nyc_park_parts.gpkg", layer="park_parts", driver="GPKG")


def _landuse_shares(mistake):
    landuse = read("lagos_landuse.geojson")
    if mistake == "area_square_degrees":
        landuse["km2"] = planar("area", landuse.geometry)
    else:
        landuse["km2"] = geodesic_area_m2(landuse.geometry) / 1e6
    per = landuse.groupby("class").agg(polygons=("km2", "size"), area_km2=("km2", "sum")).reset_index()
    key = "polygons" if mistake == "ranked_by_polygon_count" else "area_km2"
    per = per.sort_values([key, "class"], ascending=[False, True])
    top, rest = per.head(8).copy(), per.iloc[8:]
    top.insert(0, "rank", [str(r) for r in range(1, 9)])
    other = pd.DataFrame(
        [{"rank": "", "class": "other", "polygons": int(rest.polygons.sum()), "area_km2": rest.area_km2.sum()}]
    )
    out = top if mistake == "other_row_missing" else pd.concat([top, other], ignore_index=True)
    out["share_pct"] = out.area_km2 / per.area_km2.sum() * 100
    write_csv(out, "lagos_landuse_top8.csv")


def _tokyo_plane(mistake):
    connectors = read("tokyo_connectors.geojson").sort_values("connector_id")
    plane = connectors.to_crs(UTM54N if mistake == "utm54_instead" else JGD2011_IX)
    east, north = plane.geometry.x.to_numpy(), plane.geometry.y.to_numpy()
    if mistake == "easting_northing_swapped":
        east, north = north, east
    lon, lat = lonlat(connectors)
    out = pd.DataFrame(
        {
            "connector_id": connectors.connector_id.to_numpy(),
            "easting_m": np.round(east, 2),
            "northing_m": np.round(north, 2),
            "lon": np.round(lon, 7),
            "lat": np.round(lat, 7),
        }
    )
    if mistake == "lonlat_missing":
        out = out.drop(columns=["lon", "lat"])
    write_csv(out, "tokyo_connectors_jgd2011_ix.csv")


def _heritage_axes(mistake):
    sites = read("heritage_sites.geojson")
    lines = sites if mistake == "non_line_features_kept" else sites[sites.geom_type == "LineString"]
    lines = lines.copy()
    m = geodesic_length_m(lines.geometry)
    lines["length_ft"] = m if mistake == "length_in_metres" else m / M_PER_FT
    lines = lines.sort_values(["site_id", "feature_kind"])
    write_geojson(lines[["site_id", "name_en", "feature_kind", "length_ft", "geometry"]], "heritage_axes.geojson")
    axes = lines[lines.geom_type == "LineString"].groupby("site_id").length_ft
    totals = axes.max() if mistake == "site_total_is_longest_line" else axes.sum()
    write_json({k: float(v) for k, v in totals.items()}, "heritage_axis_totals.json")


ENTRIES = [
    entry(
        "h5-vienna-station-share-density-by-district-json",
        """
        Subject: monitoring stations — which districts carry the network?

        Hi Lena,

        for the network review I'd like a breakdown of where our monitoring stations
        (vienna_stations.geojson) sit across the 23 districts (vienna_districts.geojson).

        Please send back vienna_station_shares.json: one JSON object whose keys are the district names
        (all 23 of them, also the ones without a single station), and for each name an object with
          "district_code", "stations" (how many stations lie in the district),
          "share_pct" (that count as a percentage of all 49 stations — the 23 values should add up to 100)
          and "stations_per_km2" (stations per square kilometre of district area).

        Thanks a lot,
        Markus
        """,
        [VIENNA_DISTRICTS, VIENNA_STATIONS],
        ["vienna_station_shares.json"],
        _station_share,
        ["empty_districts_omitted", "density_per_m2", "list_not_object"],
        notes="""
        Every one of the 49 stations falls in exactly one district; 19 districts have stations, 4 have
        none. Areas on the ellipsoid (UTM 33N or MGI Lambert areas are within 0.1 %, so densities hardly
        move). District names are unique, so they can serve as keys.
        """,
    ),
    entry(
        "h5-capetown-clinic-nearest-hospital-3km-cap",
        """
        hi — for the referral map: for every clinic in capetown_clinics.csv (points as WKT in wkt_geom,
        lon/lat) find the closest hospital in capetown_hospitals.parquet, straight-line. BUT only if it's
        3 km away or less. if the nearest one is further than that, the clinic still gets its row, with
        hospital_id = none and an empty distance. save as clinic_nearest_hospital_3km.csv, 80 rows, by
        clinic_id: clinic_id, clinic_name, lon, lat (the clinic's own position in decimal degrees),
        hospital_id, distance_m (in metres). ty
        """,
        [CT_CLINICS, CT_HOSPITALS],
        ["clinic_nearest_hospital_3km.csv"],
        _clinic_nearest_hospital,
        ["cap_ignored", "lon_lat_swapped", "distance_km"],
        notes="""
        Distances on the ellipsoid; UTM 34S distances are 0.017-0.031 % longer. The nearest-hospital
        distances closest to 3 km are 2.682 km and 3.245 km, so 16 clinics have a hospital within 3 km
        under any reasonable method and 64 get "none".
        """,
    ),
    entry(
        "h5-capetown-clinic-convex-hulls-per-subdistrict-gpkg",
        """
        CPT-HEALTH-73 · service footprint per subdistrict

        Source: capetown_clinics.csv (80 clinics, WKT points in wkt_geom, lon/lat; subdistrict column).

        For each subdistrict draw the convex hull around its clinics (the smallest convex polygon
        containing them all — not the bounding rectangle) and report its area.

        Deliver capetown_clinic_hulls.gpkg with one layer called subdistrict_hulls, in WGS 84 / UTM zone
        34S (EPSG:32734). Fields: subdistrict, clinics (number of clinics in it), hull_ha (hull area in
        hectares). Largest hull first.
        """,
        [CT_CLINICS],
        ["capetown_clinic_hulls.gpkg"],
        _clinic_hulls,
        ["envelope_not_hull", "layer_named_hulls", "area_in_m2"],
        notes="""
        Every subdistrict has 8-12 clinics, so every hull is a real polygon. Hull areas on the ellipsoid
        (of the hull built in UTM 34S; its UTM planar area is 0.02-0.06 % larger). The hulls overlap, which
        does not matter here.
        """,
    ),
    entry(
        "h5-vienna-districts-simplified-20m-to-lonlat",
        """
        districts.geojson (MGI / Austria Lambert) → simplify the outlines with a 20 metre tolerance,
        keep all three attributes (district_code, district_name, osm_relation_id), and hand it over as
        vienna_districts_simplified.geojson in plain WGS84 lon/lat.
        """,
        [VIENNA_MGI],
        ["vienna_districts_simplified.geojson"],
        _simplified_districts,
        ["simplified_in_degrees", "left_in_lambert", "relation_id_dropped"],
        notes="""
        Simplified in the source CRS (metres) with shapely's topology-preserving Douglas-Peucker, then
        reprojected. The request fixes no algorithm, so no broken variant depends on the exact vertices:
        they use a 20-degree tolerance (every outline collapses to a 4-point ring), leave the Lambert
        coordinates, or drop an attribute. One source outline is invalid and is left as simplify leaves
        it (no broken variant touches validity).
        """,
    ),
    entry(
        "h5-bangkok-aq-stations-typed-and-banded-geoparquet",
        """
        Cleanup checklist for bangkok_aq_stations.geojson (every attribute came in as text):

        - [ ] station_id → whole number (integer)
        - [ ] pm25_ug_m3 → decimal number
        - [ ] add pm25_band: "low" below 25, "medium" from 25 up to but not including 50, "high" at 50 and above
        - [ ] elevation_m is metres — replace it with elevation_ft, the same elevation in feet
        - [ ] drop sensor_value (legacy field, nobody knows what it is)
        - [ ] name_th and name_en: leave exactly as they are
        - [ ] points stay lon/lat; all 100 stations, ordered by station_id
        - [ ] save as GeoParquet: bangkok_aq_clean.parquet
        """,
        [BANGKOK_AQ],
        ["bangkok_aq_clean.parquet"],
        _aq_clean,
        ["station_id_left_as_text", "band_edges_upper_inclusive", "elevation_left_in_metres"],
        notes="""
        The band limits are exact decimals, not measures: one station (80, Phetchaburi Sensor 2) has
        exactly 25.0 and is "medium"; none has exactly 50.0, the closest are 49.8 and 50.4. Feet are
        international feet (0.3048 m).
        """,
    ),
    entry(
        "h5-nyc-addresses-latest-record-and-monthly-counts",
        """
        Spec — address register cleanup (nyc_addresses.csv)

        1. An address is street + number + postcode (ignore the unit column for this). Some addresses
           were recorded twice; keep only the most recent record of each (latest recorded_at, UTC).
        2. Write the result as GeoParquet, nyc_addresses_latest.parquet: points in lon/lat (from
           geometry_wkt), columns id, street, number, unit, postcode (5-digit text, empty where there is
           none), recorded_at as a real UTC timestamp (not a string); sorted by street, number, postcode.
        3. Also write nyc_addresses_by_month.json: one object mapping each month of 2024 ("2024-01" …
           "2024-12", all twelve) to the number of kept addresses recorded that month.
        """,
        [NYC_ADDRESSES],
        ["nyc_addresses_latest.parquet", "nyc_addresses_by_month.json"],
        _latest_addresses,
        ["earliest_kept", "recorded_at_left_as_text", "monthly_as_list"],
        notes="""
        12 addresses appear twice (1056 → 1044 rows); their two records are days to months apart, so
        which one is latest is never in doubt. 1 WATER ST appears with two postcodes (10004 and 11201,
        Brooklyn) and stays twice, as the request defines an address with its postcode. One record (84
        SOUTH ST) has no postcode and no twin. Months are UTC months as the request says.
        """,
    ),
    entry(
        "h5-nyc-parks-split-into-single-parts-acres",
        """
        Can you split the multipart parks in nyc_parks.gpkg (layer parks_official) into one feature
        per polygon part? I want nyc_park_parts.gpkg with a layer named park_parts holding every part
        — yes, even the tiny slivers — with park_id, park_class, part (1, 2, 3 … within each park),
        acres (that part's area in acres) and the geometry. Same CRS as the source, please, and order
        by park_id then part.
        """,
        [NYC_PARKS],
        ["nyc_park_parts.gpkg"],
        _park_parts,
        ["multipart_kept", "area_in_hectares", "tiny_parts_dropped"],
        notes="""
        1380 parks, 55 of them multipart, give 1483 parts; 8 parts are under 0.01 acre (the smallest
        0.0032). Parts are numbered in the order they are stored; no broken variant depends on that
        order. Areas on the ellipsoid; the state plane areas agree within 0.002 %.
        """,
    ),
    entry(
        "h5-lagos-landuse-area-top8-with-other-row",
        """
        Land-use area table for Lagos (lagos_landuse.geojson). Layout of lagos_landuse_top8.csv:

            rank  | class        | polygons | area_km2 | share_pct
            1     | (largest)    | ...      | ...      | ...
            ...   | ...          | ...      | ...      | ...
            8     | ...          | ...      | ...      | ...
                  | other        | ...      | ...      | ...

        - one row for each of the 8 classes with the largest total area (rank 1 = largest), then one
          row "other" (rank left empty) lumping together all remaining classes
        - area_km2 = summed area of the class's polygons in km² (where polygons overlap, each counts)
        - share_pct = the row's share of the total land-use area; the nine rows add up to 100
        """,
        [LAGOS_LANDUSE],
        ["lagos_landuse_top8.csv"],
        _landuse_shares,
        ["other_row_missing", "area_square_degrees", "ranked_by_polygon_count"],
        notes="""
        Areas on the ellipsoid (UTM 31N within 0.08 %). The 8th and 9th classes by area are commercial
        (3.98 km²) and brownfield (3.46 km²), 15 % apart, so the top 8 hold under any method; the closest
        pair inside the top 8 (school 6.05, retail 5.81 km²) is 4 % apart. "other" lumps the remaining
        35 of 43 classes. By polygon count the top 8 would differ (artefact, 3000 polygons, is first).
        """,
    ),
    entry(
        "h5-tokyo-connectors-japan-plane-zone-ix-csv",
        """
        Our Tokyo survey crew works on the Japanese plane rectangular grid, zone IX (JGD2011). Could you
        give them tokyo_connectors_jgd2011_ix.csv from tokyo_connectors.geojson — one row per connector,
        ordered by connector_id, with connector_id, easting_m and northing_m (grid coordinates in metres,
        2 decimals) and, next to them, the original lon and lat in decimal degrees so they can check.
        """,
        [TOKYO_CONNECTORS],
        ["tokyo_connectors_jgd2011_ix.csv"],
        _tokyo_plane,
        ["utm54_instead", "easting_northing_swapped", "lonlat_missing"],
        notes="""
        Zone IX is EPSG:6677 (JGD2011 / Japan Plane Rectangular CS IX); its EPSG axis order is X north,
        Y east, so the columns are named easting_m/northing_m to leave no doubt. The points lie about
        6 km west and 35 km south of the zone's origin (139°50' E, 36° N), so both grid coordinates are
        negative (easting about -6000, northing about -35300) and cannot be confused. JGD2011 and WGS 84
        coincide at this precision.
        """,
    ),
    entry(
        "h5-cairo-heritage-axis-lengths-feet-two-files",
        """
        Subject: axial lines of the heritage sites, in feet

        Hello,

        our US partners need the axial lines of heritage_sites.geojson in feet. Please make two files:

          heritage_axes.geojson — only the line features (no markers, no enclosures), geometry as it
          is in lon/lat, with site_id, name_en, feature_kind and length_ft (the line's length in feet);

          heritage_axis_totals.json — a single object {site_id: total axial length in feet of that
          site, summed over all its lines}, one key per site.

        Best regards,
        Nour
        """,
        [HERITAGE],
        ["heritage_axes.geojson", "heritage_axis_totals.json"],
        _heritage_axes,
        ["length_in_metres", "non_line_features_kept", "site_total_is_longest_line"],
        notes="""
        15 lines over 10 sites (5 sites have two). Lengths on the ellipsoid in international feet
        (0.3048 m); the US survey foot differs by 2 ppm. Nothing is ranked, so the nearly equal line
        lengths (194.1-194.2 m and 222.54 m) do not matter.
        """,
    ),
]
