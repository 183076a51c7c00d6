"""A fourth held-out set: written blind to the contract rules, to measure them; not to be tuned on.

Written from the corpus README, ``_entry.py``/``_common.py``, the code format of ``heldout3.py`` and
the inputs only, without reading the contract code, the audit or the other corpus entries' asks.
If an entry here shows a defect, fix the rules, but do not rephrase these requests to suit them.
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
    k_nearest,
    lonlat,
    planar,
    planar_distance,
    read,
    read_wkt_csv,
    swap_xy,
    write_csv,
    write_geojson,
    write_json,
)
from ._inputs import (
    CAIRO_PARCELS,
    CT_ADDRESSES,
    CT_HOSPITALS,
    FIJI_TRANSECTS,
    LAGOS_HEX,
    LAGOS_LANDUSE,
    LONDON_ADMIN,
    NYC_ADDRESSES,
    NYC_PARKS,
    VIENNA_DEM,
    VIENNA_DISTRICTS,
    VIENNA_S2,
    VIENNA_STATIONS,
)

UTM33N = "EPSG:32633"
BNG = "EPSG:27700"
NAUTICAL_MILE_M = 1852.0


def _quiet(fn, *args, **kwargs):
    """Call ``fn`` with geopandas' geographic-CRS warnings silenced (the mistakes compute in degrees)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return fn(*args, **kwargs)


def _station_coverage(mistake):
    districts = read("vienna_districts.geojson").to_crs(UTM33N)
    stations = read("vienna_stations.geojson")
    if mistake == "buffer_in_degrees":
        # 500 m taken as 0.005° on lon/lat, then projected: an ellipse of about 370 m x 555 m
        zones = _quiet(stations.geometry.buffer, 0.005).to_crs(UTM33N).union_all()
    else:
        zones = stations.to_crs(UTM33N).geometry.buffer(500).union_all()
    out = districts[["district_code", "district_name"]].copy()
    out["area_km2"] = districts.geometry.area / 1e6
    out["covered_km2"] = districts.geometry.intersection(zones).area / 1e6
    out["covered_pct"] = out.covered_km2 / out.area_km2 * 100
    if mistake == "share_as_fraction":
        out["covered_pct"] = out.covered_km2 / out.area_km2
    if mistake == "uncovered_districts_dropped":
        out = out[out.covered_km2 > 0]
    write_csv(out.sort_values("district_code"), "vienna_station_coverage.csv")


def _three_nearest_hospitals(mistake):
    addresses = read("capetown_addresses.parquet")
    hospitals = read("capetown_hospitals.parquet")
    if mistake == "distance_in_degrees":
        d = planar_distance(addresses.geometry, hospitals.geometry)
    else:
        d = geodesic_distance_m(addresses.geometry, hospitals.geometry)
    k = 2 if mistake == "only_two_nearest" else 3
    idx = k_nearest(d, k)
    rows = []
    for i, address_id in enumerate(addresses.address_id):
        for r, j in enumerate(idx[i]):
            rows.append(
                {
                    "address_id": address_id,
                    "rank": r if mistake == "rank_from_zero" else r + 1,
                    "hospital_id": hospitals.hospital_id.iloc[j],
                    "hospital_name": hospitals.name.iloc[j],
                    "distance_m": d[i, j],
                }
            )
    write_csv(pd.DataFrame(rows), "address_hospital_top3.csv")


def _landuse_extents(mistake):
    landuse = read("lagos_landuse.geojson")
    counts = landuse.groupby("class").size()
    keep = counts[counts > 20] if mistake == "twenty_excluded" else counts[counts >= 20]
    order = sorted(keep.index, key=lambda c: (-keep[c], c))

    def bbox(gdf):
        w, s, e, n = (float(v) for v in gdf.total_bounds)
        return [s, w, n, e] if mistake == "bbox_lat_first" else [w, s, e, n]

    classes = [{"class": c, "polygons": int(keep[c]), "bbox": bbox(landuse[landuse["class"] == c])} for c in order]
    if mistake == "classes_keyed_object":
        classes = {c.pop("class"): c for c in classes}
    write_json({"all": bbox(landuse), "classes": classes}, "lagos_landuse_extents.json")


def _cairo_centroids(mistake):
    parcels = read("cairo_parcels_legacy.geojson")
    parcels = parcels[parcels.district != "border-sliver"].copy()
    parcels["geometry"] = parcels.geometry.make_valid()
    if mistake != "duplicates_kept":
        outline = parcels.geometry.normalize().to_wkb()
        parcels = parcels.assign(outline=outline).sort_values("parcel_id").drop_duplicates("outline")
    points = parcels.set_geometry(parcels.geometry.centroid)
    if mistake == "coords_in_source_crs":
        lon, lat = points.geometry.x.to_numpy(), points.geometry.y.to_numpy()
    else:
        lon, lat = lonlat(points)
    if mistake == "lon_lat_swapped":
        lon, lat = lat, lon
    out = pd.DataFrame(
        {
            "parcel_id": points.parcel_id.to_numpy(),
            "parcel_class": points.parcel_class.to_numpy(),
            "district": points.district.to_numpy(),
            "lon": np.round(lon, 6),
            "lat": np.round(lat, 6),
        }
    )
    write_csv(out.sort_values("parcel_id"), "cairo_parcel_centroids.csv")


def _hex_population(mistake):
    hexes = read("lagos_hex_grid.geojson")
    landuse = read("lagos_landuse.geojson")
    if mistake == "unclipped_area":
        # every land-use polygon's whole area counted in each cell it touches
        landuse["km2"] = geodesic_area_m2(landuse.geometry) / 1e6
        pairs = gpd.sjoin(hexes, landuse[["pop_density", "km2", "geometry"]], predicate="intersects")
        population = (pairs.pop_density * pairs.km2).groupby(pairs.hex_id).sum()
    else:
        pieces = gpd.overlay(hexes, landuse[["pop_density", "geometry"]], how="intersection", keep_geom_type=True)
        if mistake == "area_square_degrees":
            km2 = planar("area", pieces.geometry)
        else:
            km2 = geodesic_area_m2(pieces.geometry) / 1e6
        population = (pieces.pop_density * km2).groupby(pieces.hex_id).sum()
    hex_km2 = pd.Series(geodesic_area_m2(hexes.geometry) / 1e6, index=hexes.hex_id)
    out = pd.DataFrame({"hex_id": population.index, "population": population.to_numpy()})
    out["people_per_km2"] = out.population / hex_km2.loc[out.hex_id].to_numpy()
    out = out.sort_values(["population", "hex_id"], ascending=[mistake == "bottom_25", True]).head(25)
    out.insert(0, "rank", range(1, len(out) + 1))
    out["population"] = out.population.round().astype(int)
    write_csv(out, "lagos_hex_population_top25.csv")


def _park_classes(mistake):
    parks = read("nyc_parks.gpkg", layer="parks_official")
    merged = parks[["park_class", "geometry"]].dissolve("park_class")
    if mistake == "parks_counted_after_dissolve":
        merged["parks"] = merged.groupby(level=0).size()
    else:
        merged["parks"] = parks.groupby("park_class").size()
    m2 = geodesic_area_m2(merged.geometry)
    merged["area_ha"] = m2 if mistake == "area_in_m2" else m2 / 1e4
    out = merged.reset_index()[["park_class", "parks", "area_ha", "geometry"]]
    if mistake == "reprojected_to_wgs84":
        out = out.to_crs(WGS84)
    out.to_file("nyc_park_classes.gpkg", layer="park_classes", driver="GPKG")


def _nyc_third_quarter(mistake):
    a = read_wkt_csv("nyc_addresses.csv", "geometry_wkt")
    end = "2024-09-30" if mistake == "sep_30_dropped" else "2024-10-01"
    q3 = a[(a.recorded_at >= "2024-07-01") & (a.recorded_at < end)].copy()
    q3["recorded_date"] = q3.recorded_at.str.slice(0, 10)
    points = q3[["id", "street", "number", "recorded_date", "geometry"]]
    if mistake == "lat_lon_swapped":
        points = swap_xy(points)
    write_geojson(points, "nyc_addresses_2024q3.geojson")
    if mistake == "postcode_as_float":
        postcode = q3.postcode
    else:
        postcode = q3.postcode.map(lambda p: f"{int(p):05d}")
    per = postcode.value_counts().rename_axis("postcode").reset_index(name="addresses")
    write_csv(per.sort_values(["addresses", "postcode"], ascending=[False, True]), "nyc_2024q3_by_postcode.csv")


def _district_terrain(mistake):
    import rasterio
    from rasterio.features import geometry_mask

    districts = read("vienna_districts.geojson").sort_values("district_code")
    with rasterio.open("vienna_dem.tif") as src:
        dem, transform, shape = src.read(1), src.transform, src.shape
        geoms = districts.to_crs(src.crs).geometry
    with rasterio.open("vienna_s2_red_nir.tif") as src:
        red, nir = src.read(1).astype(float), src.read(2).astype(float)
    cloud = (red == 0) | (nir == 0)
    if mistake == "bands_swapped":
        red, nir = nir, red
    with np.errstate(invalid="ignore", divide="ignore"):
        ndvi = (nir - red) / (nir + red)
    ndvi[cloud] = 0.0 if mistake == "cloud_pixels_as_zero" else np.nan
    rows = []
    for (code, name), geom in zip(districts[["district_code", "district_name"]].itertuples(index=False), geoms):
        inside = ~geometry_mask([geom], shape, transform, all_touched=False)
        rows.append(
            {
                "district_code": int(code),
                "district_name": name,
                "elev_mean_m": float(dem[inside].mean()),
                "elev_max_m": float(dem[inside].max()),
                "ndvi_mean": float(np.nanmean(ndvi[inside])),
            }
        )
    if mistake == "keyed_by_district_name":
        write_json({r.pop("district_name"): r for r in rows}, "vienna_district_terrain.json")
    else:
        write_json(rows, "vienna_district_terrain.json")


def _london_boroughs(mistake):
    admin = read("london_admin.geojson")
    boroughs = admin[admin.subtype == "county"][["id", "name", "geometry"]].sort_values("name")
    ha = geodesic_area_m2(boroughs.geometry) / 1e4
    boroughs["area_ha"] = ha
    denominator = geodesic_area_m2(admin.geometry).sum() / 1e4 if mistake == "share_of_all_features" else ha.sum()
    boroughs["share_pct"] = ha / denominator * 100
    bng = boroughs.to_crs(BNG)
    (boroughs if mistake == "layer_left_in_wgs84" else bng).to_file(
        "london_boroughs_bng.gpkg", layer="boroughs", driver="GPKG"
    )
    box = boroughs.total_bounds if mistake == "extent_in_degrees" else bng.total_bounds
    write_json(
        {"crs": "EPSG:27700", "bbox": [float(v) for v in box], "boroughs": len(bng), "area_ha": float(ha.sum())},
        "greater_london_extent.json",
    )


def _longest_transects(mistake):
    t = read("fiji_transects_wgs84.geojson")
    m = geodesic_length_m(t.geometry)
    t["length_nmi"] = m / 1000 if mistake == "length_in_km" else m / NAUTICAL_MILE_M
    t["survey_date"] = t.survey_date.dt.strftime("%Y-%m-%d")
    top = t.sort_values("length_nmi", ascending=False).head(10).copy()
    top["rank"] = range(1, 11)
    out = top[["rank", "transect_id", "vessel", "survey_date", "length_nmi", "geometry"]]
    total = (top if mistake == "summary_total_of_top10" else t).length_nmi.sum()
    summary = {"transects": len(t), "vessels": int(t.vessel.nunique()), "total_nmi": float(total)}
    if mistake == "summary_inside_each_feature":
        out = out.assign(**{f"survey_{k}": v for k, v in summary.items()})
        write_geojson(out, "fiji_longest_transects.geojson")
    else:
        write_geojson(out, "fiji_longest_transects.geojson", members={"survey": summary})


ENTRIES = [
    entry(
        "h4-vienna-district-share-within-500m-of-station",
        """
        GEO-1187  Station coverage per district

        Inputs: vienna_districts.geojson, vienna_stations.geojson
        Work in WGS 84 / UTM zone 33N (EPSG:32633), metres.

        Draw a 500 m circle around every monitoring station and merge the circles, so a piece of
        ground near two stations counts once. For each district, how much of its area is inside that
        coverage?

        Deliverable: vienna_station_coverage.csv, one row per district — all 23, including any with no
        coverage at all (0) — ordered by district_code, with columns
        district_code, district_name, area_km2, covered_km2, covered_pct (0–100).
        """,
        [VIENNA_DISTRICTS, VIENNA_STATIONS],
        ["vienna_station_coverage.csv"],
        _station_coverage,
        ["buffer_in_degrees", "uncovered_districts_dropped", "share_as_fraction"],
        notes="""
        Planar measures in EPSG:32633 as the request says (default buffer resolution; a 64-segment
        circle, or a true geodesic circle, moves a share by under 0.1 percentage point). Simmering has no
        station within 500 m (0 % whatever the circle), Hernals 0.006 %, Innere Stadt the most (66.6 %).
        Rows are ordered by code, not by share, so the close shares of Liesing and Penzing (5.15 / 5.16 %)
        do not matter.
        """,
    ),
    entry(
        "h4-capetown-three-nearest-hospitals-ranked",
        """
        hey! quick one for the ambulance study 🚑 — for each of the 120 addresses in
        capetown_addresses.parquet can you find the 3 closest hospitals from capetown_hospitals.parquet
        (straight-line distance)? I'd like it long format, address_hospital_top3.csv, so 3 rows per
        address (360 rows): address_id, rank (1 = closest, then 2, 3), hospital_id, hospital_name,
        distance_m (metres). thanks!!
        """,
        [CT_ADDRESSES, CT_HOSPITALS],
        ["address_hospital_top3.csv"],
        _three_nearest_hospitals,
        ["rank_from_zero", "only_two_nearest", "distance_in_degrees"],
        notes="""
        Distances on the ellipsoid. Several hospitals are a few metres apart (near-duplicate Groote
        Schuur entries), so consecutive ranks can be within 0.04 % of each other: UTM 34S gives the same
        ranks, a spherical earth swaps ranks 1 and 2 for A0020 (same three hospitals). No broken
        variant depends on that order: the mistakes shift every rank, drop every third row, or give
        distances in degrees.
        """,
    ),
    entry(
        "h4-lagos-landuse-class-extents-json",
        """
        Spec: land-use extents (lagos_landuse.geojson)

        1. Output: lagos_landuse_extents.json, a single JSON object with two members:
           "all" and "classes".
        2. "all" = the bounding box of the whole layer as [west, south, east, north] in decimal
           degrees (lon/lat, the file's own coordinates).
        3. "classes" = a JSON array with one object per land-use `class` that has 20 polygons or more
           (exactly 20 is in), each {"class": ..., "polygons": <count>, "bbox": [west, south, east,
           north]}.
        4. Order the array by polygons, most first.
        """,
        [LAGOS_LANDUSE],
        ["lagos_landuse_extents.json"],
        _landuse_extents,
        ["twenty_excluded", "bbox_lat_first", "classes_keyed_object"],
        notes="""
        Counts are exact: 15 classes have 20 or more polygons, military has exactly 20 (the next class,
        green, 18); no two kept classes share a count. Bounds are the input's own lon/lat coordinates.
        """,
    ),
    entry(
        "h4-cairo-parcel-centroids-lonlat-csv",
        """
        Need cairo_parcel_centroids.csv from cairo_parcels_legacy.geojson (Egypt Red Belt): one row per
        parcel with parcel_id, parcel_class, district, lon, lat — the parcel's centroid in WGS84
        decimal degrees, 6 decimals, sorted by parcel_id. Repair the bow-tie outlines before taking
        centroids, leave out the 30 "border-sliver" rows, and 50 parcels were keyed in a second time
        under a 9000xx id with exactly the same outline: keep only the original (lower) parcel_id.
        """,
        [CAIRO_PARCELS],
        ["cairo_parcel_centroids.csv"],
        _cairo_centroids,
        ["duplicates_kept", "coords_in_source_crs", "lon_lat_swapped"],
        notes="""
        290 rows - 30 slivers - 50 re-entries = 210. Centroids taken in EPSG:22992 and reprojected; taking
        them in lon/lat moves them by far less than the 6th decimal at this parcel size (30 x 40 m). Each
        repaired bow-tie is two symmetric triangles, so its centroid is the middle of the box.
        """,
    ),
    entry(
        "h4-lagos-hex-population-top25",
        """
        Subject: population estimate per hex cell

        Hi Ada,

        Could you estimate how many people live in each cell of lagos_hex_grid.geojson using
        lagos_landuse.geojson? pop_density there is people per km². Cut the land-use polygons by the
        cells, and for each piece take pop_density × the piece's area in km²; a cell's population is the
        sum of its pieces (if two land-use polygons overlap, both count).

        I only need the 25 most populated cells, in lagos_hex_population_top25.csv: rank (1 = most
        people), hex_id, population (rounded to whole people) and people_per_km2 (population divided by
        the cell's area in km²).

        Cheers,
        Tunde
        """,
        [LAGOS_HEX, LAGOS_LANDUSE],
        ["lagos_hex_population_top25.csv"],
        _hex_population,
        ["unclipped_area", "area_square_degrees", "bottom_25"],
        notes="""
        Piece areas on the ellipsoid. The 25th and 26th cells have 37313 and 37275 people (0.1 % apart);
        UTM 31N areas are 0.9992-0.9993 of the ellipsoid's in every cell, so overlaying in UTM 31N gives
        the same 25 cells in the same order (ranks 2 and 3 are 0.015 % apart and hold too). No cell
        merely touches a land-use polygon (7679 intersecting pairs, 7679 pieces). No rounded population
        repeats.
        """,
    ),
    entry(
        "h4-nyc-parks-dissolved-by-class-gpkg",
        """
        nyc_parks.gpkg, layer parks_official: merge the parks by park_class (one multipolygon per
        class, overlaps counted once). Output nyc_park_classes.gpkg, layer park_classes, columns
        park_class, parks (how many source features went into the class), area_ha (merged area in
        hectares), geometry. Keep the source CRS (NY Long Island state plane, EPSG:6539) — don't
        reproject.
        """,
        [NYC_PARKS],
        ["nyc_park_classes.gpkg"],
        _park_classes,
        ["parks_counted_after_dissolve", "area_in_m2", "reprojected_to_wgs84"],
        notes="""
        Three classes: park (1265 features, 3173 ha merged; 18 pairs of parks overlap, so the sum of the
        single areas, 3190.5 ha, is not the merged area), dog_park (114, 8.08 ha), village_green (1,
        0.0064 ha). Areas on the ellipsoid; the state plane areas agree within 0.001 %. No broken variant
        touches the merged-vs-summed question.
        """,
    ),
    entry(
        "h4-nyc-addresses-2024-q3-two-outputs",
        """
        From nyc_addresses.csv (points as WKT in geometry_wkt, lon/lat; recorded_at is UTC, use it as is)
        I need the addresses recorded in Q3 2024, i.e. 1 July 2024 00:00 up to and including
        30 September 2024:

        • nyc_addresses_2024q3.geojson — the points, lon/lat, with properties id, street, number and
          recorded_date (just the date, YYYY-MM-DD)
        • nyc_2024q3_by_postcode.csv — postcode (the 5-digit ZIP as text, e.g. 10013) and addresses
          (how many of those Q3 points have it), most addresses first, ties by postcode
        """,
        [NYC_ADDRESSES],
        ["nyc_addresses_2024q3.geojson", "nyc_2024q3_by_postcode.csv"],
        _nyc_third_quarter,
        ["sep_30_dropped", "lat_lon_swapped", "postcode_as_float"],
        notes="""
        268 addresses in Q3 (UTC dates), 3 of them on 30 September; none lacks a postcode. Dates are the
        UTC dates as the request says (in New York time a record at 04:16Z on 1 July would be 30 June).
        """,
    ),
    entry(
        "h4-vienna-district-elevation-and-ndvi-json",
        """
        Could I get a small per-district summary of the terrain and greenness? Use vienna_dem.tif
        (elevation in m) and vienna_s2_red_nir.tif (band 1 red, band 2 NIR; 0 = masked cloud, leave
        those pixels out) with vienna_districts.geojson. A pixel belongs to a district when its centre
        is inside it. Please write vienna_district_terrain.json as a JSON list, one object per district
        (all 23, by district_code) with district_code, district_name, elev_mean_m, elev_max_m and
        ndvi_mean (NDVI = (NIR − red) / (NIR + red), averaged over the district's pixels).
        """,
        [VIENNA_DISTRICTS, VIENNA_DEM, VIENNA_S2],
        ["vienna_district_terrain.json"],
        _district_terrain,
        ["bands_swapped", "cloud_pixels_as_zero", "keyed_by_district_name"],
        notes="""
        Synthetic rasters in EPSG:32633, 100 m pixels; districts reprojected to the rasters' CRS, pixel
        centres inside. The 624 cloud pixels touch one district (Simmering, 42 of its 2323 pixels).
        Innere Stadt has 290 pixels, so every district has data.
        """,
    ),
    entry(
        "h4-london-boroughs-bng-and-extent-json",
        """
        Hello,

        From london_admin.geojson, take only the 33 London boroughs (they are the features with
        subtype "county"; ignore the localities) and put them on the British National Grid:

        1) london_boroughs_bng.gpkg, layer "boroughs", EPSG:27700, with id, name, area_ha (area in
           hectares) and share_pct (the borough's share of Greater London, i.e. of the 33 boroughs
           together; the shares add up to 100).
        2) greater_london_extent.json: {"crs": "EPSG:27700", "bbox": [min easting, min northing, max
           easting, max northing] of the 33 boroughs in metres, "boroughs": 33, "area_ha": <total>}.

        Many thanks,
        Priya
        """,
        [LONDON_ADMIN],
        ["london_boroughs_bng.gpkg", "greater_london_extent.json"],
        _london_boroughs,
        ["layer_left_in_wgs84", "share_of_all_features", "extent_in_degrees"],
        notes="""
        Areas on the ellipsoid; BNG planar areas are 0.016-0.046 % smaller, so area_ha and shares hardly
        move. The boroughs do not overlap. The bbox is of the reprojected outlines. (The localities are
        mostly parishes outside Greater London, so they must not enter the shares.)
        """,
    ),
    entry(
        "h4-fiji-ten-longest-transects-nmi-with-summary",
        """
        FIJI_TRANSECTS-22 — longest survey lines

        fiji_transects_wgs84.geojson: give me the 10 longest transects as fiji_longest_transects.geojson
        (lon/lat, geometries as they are), with rank (1 = longest), transect_id, vessel, survey_date and
        length_nmi — length in nautical miles (1 nmi = 1852 m), measured along the real track (some lines
        cross 180°). Also put a top-level member "survey" in the GeoJSON next to "features", like
        "survey": {"transects": 30, "vessels": 5, "total_nmi": ...}, where total_nmi is the length of ALL
        30 transects together, not only the ten.
        """,
        [FIJI_TRANSECTS],
        ["fiji_longest_transects.geojson"],
        _longest_transects,
        ["length_in_km", "summary_total_of_top10", "summary_inside_each_feature"],
        notes="""
        Lengths on the ellipsoid. The 10th and 11th longest are 230.2 and 216.5 km (6 % apart), so the ten
        do not depend on the method as long as the dateline is handled.
        """,
    ),
]
