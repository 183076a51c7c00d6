"""A sixth held-out set: written blind to the contract rules, to measure them; not to be tuned on.

Written from the corpus README, ``_entry.py``/``_common.py``, the code format of ``heldout5.py`` and
the inputs only, without reading the contract code, the audit or the other corpus entries' asks
(``heldout5.py`` was skimmed only to avoid repeating its asks). If an entry here shows a defect, fix
the rules, but do not rephrase these requests to suit them.
"""

from __future__ import annotations

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
    planar,
    planar_distance,
    read,
    read_wkt_csv,
    swap_xy,
    without_crs,
    write_csv,
    write_geojson,
    write_json,
)
from ._inputs import (
    BANGKOK_DELIVERY,
    CAIRO_PARCELS,
    CT_ADDRESSES,
    CT_CLINICS,
    CT_HOSPITALS,
    FIJI_TRANSECTS,
    LAGOS_HEX,
    LAGOS_LANDUSE,
    LONDON_ADMIN,
    TOKYO_BUILDINGS,
    VIENNA_DEM,
    VIENNA_DISTRICTS,
    VIENNA_S2,
    VIENNA_STATIONS,
    VIENNA_TASMAX,
)

UTM33N = "EPSG:32633"
BNG = "EPSG:27700"
M_PER_NMI = 1852.0
M2_PER_RAI = 1600.0


def _district_outlines(mistake):
    districts = read("vienna_districts.geojson")
    km = geodesic_length_m(districts.geometry) / 1000
    if mistake == "perimeter_in_degrees":
        km = planar("length", districts.geometry)
    elif mistake == "perimeter_in_metres":
        km = km * 1000
    out = pd.DataFrame(
        {
            "district_code": districts.district_code.to_numpy(),
            "district_name": districts.district_name.to_numpy(),
            "perimeter_km": km,
            "area_km2": geodesic_area_m2(districts.geometry) / 1e6,
        }
    )
    out = out.sort_values("perimeter_km", ascending=mistake == "shortest_first")
    write_csv(out, "vienna_district_perimeters.csv")


def _hospitals_within_1500(mistake):
    addresses = read("capetown_addresses.parquet").sort_values("address_id")
    hospitals = read("capetown_hospitals.parquet")
    if mistake == "radius_in_degrees":
        near = planar_distance(addresses.geometry, hospitals.geometry) <= 1.5
    else:
        near = geodesic_distance_m(addresses.geometry, hospitals.geometry) <= 1500
    out = pd.DataFrame({"address_id": addresses.address_id.to_numpy(), "n_hospitals": near.sum(axis=1).astype(int)})
    if mistake == "zero_rows_dropped":
        out = out[out.n_hospitals > 0]
    if mistake == "sorted_by_count":
        out = out.sort_values(["n_hospitals", "address_id"], ascending=[False, True])
    write_csv(out, "address_hospitals_1500m.csv")


def _large_footprints(mistake):
    buildings = read("tokyo_buildings_legacy.geojson")
    buildings["footprint_m2"] = geodesic_area_m2(buildings.geometry)
    if mistake != "small_ones_kept":
        buildings = buildings[buildings.footprint_m2 >= 1000]
    buildings = buildings.sort_values("footprint_m2", ascending=mistake == "smallest_first")
    columns = ["feature_id", "name_primary", "footprint_m2", "geometry"]
    if mistake == "feature_id_dropped":
        columns.remove("feature_id")
    write_geojson(buildings[columns], "tokyo_large_buildings.geojson")


def _cairo_as_is(mistake):
    parcels = read("cairo_parcels_legacy.geojson")  # Egypt 1907 / Red Belt
    out = parcels if mistake == "left_in_red_belt" else parcels.to_crs(WGS84)
    if mistake == "slivers_dropped":
        out = out[out.district != "border-sliver"]
    if mistake == "area_m2_recomputed":
        out = out.copy()
        out["area_m2"] = geodesic_area_m2(out.geometry).round(1)
    out.to_file("cairo_parcels_wgs84.gpkg", layer="parcels", driver="GPKG")


def _transect_lengths(mistake):
    transects = read("fiji_transects_wgs84.geojson").sort_values("transect_id")
    if mistake == "crossing_transects_dropped":
        transects = transects[~transects.crosses_antimeridian_flag]
    m = geodesic_length_m(transects.geometry)
    if mistake == "length_in_degrees":
        length = planar("length", transects.geometry)
    elif mistake == "length_in_km":
        length = m / 1000
    else:
        length = m / M_PER_NMI
    out = pd.DataFrame(
        {
            "transect_id": transects.transect_id.to_numpy(),
            "vessel": transects.vessel.to_numpy(),
            "survey_date": transects.survey_date.dt.strftime("%Y-%m-%d").to_numpy(),
            "length_nmi": np.round(length, 3),
        }
    )
    write_csv(out, "fiji_transect_lengths.csv")


def _big_localities(mistake):
    admin = read("london_admin.geojson")
    if mistake != "counties_included":
        admin = admin[admin.subtype == "locality"]
    admin = admin.copy()
    m2 = geodesic_area_m2(admin.geometry)
    admin["area_km2"] = m2 if mistake == "area_in_m2" else m2 / 1e6
    admin = admin[m2 > 20e6].sort_values("name")[["id", "name", "area_km2", "geometry"]]
    out = admin if mistake == "left_in_wgs84" else admin.to_crs(BNG)
    write_geojson(out, "london_big_localities.geojson")


def _district_ndvi(mistake):
    import rasterio
    from rasterio.features import geometry_mask

    with rasterio.open("vienna_s2_red_nir.tif") as src:
        red, nir = src.read(1).astype(float), src.read(2).astype(float)
        transform, shape = src.transform, src.shape
    clear = (red > 0) & (nir > 0)
    if mistake == "red_nir_swapped":
        red, nir = nir, red
    with np.errstate(invalid="ignore", divide="ignore"):
        ndvi = (nir - red) / (nir + red)
    if mistake == "cloud_counted_as_zero":
        ndvi, clear = np.where(clear, ndvi, 0.0), np.ones_like(clear)
    districts = read("vienna_districts.geojson").sort_values("district_code")
    rows = []
    for code, name, geom in zip(districts.district_code, districts.district_name, districts.to_crs(UTM33N).geometry):
        inside = geometry_mask([geom], shape, transform, invert=True) & clear
        rows.append(
            {
                "district_code": int(code),
                "district_name": name,
                "mean_ndvi": round(float(ndvi[inside].mean()), 4),
                "pixels": int(inside.sum()),
            }
        )
    if mistake == "object_keyed_by_name":
        write_json({r.pop("district_name"): r for r in rows}, "vienna_district_ndvi.json")
    else:
        write_json(rows, "vienna_district_ndvi.json")


def _tasmax_months(mistake):
    import xarray as xr

    with xr.open_dataset("vienna_tasmax_2023_2024.nc") as ds:
        daily = ds.tasmax.mean(["lat", "lon"]).to_series()  # plain average of the grid cells, kelvin
    celsius = daily - 273.15
    months = pd.DataFrame(
        {
            "tasmax_mean_c": (daily if mistake == "left_in_kelvin" else celsius).resample("MS").mean().round(2),
            "hot_days": (celsius >= 32).resample("MS").sum().astype(int),
        }
    )
    months.insert(0, "month", months.index.strftime("%Y-%m"))
    if mistake == "months_without_hot_days_dropped":
        months = months[months.hot_days > 0]
    if mistake == "warmest_first":
        months = months.sort_values("tasmax_mean_c", ascending=False)
    write_csv(months, "vienna_tasmax_monthly.csv")


def _clinics_west_south(mistake):
    if mistake == "wkt_column_kept":
        clinics = pd.read_csv("capetown_clinics.csv")
        clinics = gpd.GeoDataFrame(clinics, geometry=gpd.GeoSeries.from_wkt(clinics.wkt_geom), crs=WGS84)
    else:
        clinics = read_wkt_csv("capetown_clinics.csv", "wkt_geom")
    if mistake != "all_subdistricts_kept":
        clinics = clinics[clinics.subdistrict.isin(["Western", "Southern"])]
    if mistake == "lat_lon_swapped":
        clinics = swap_xy(clinics)
    write_geojson(clinics.sort_values("clinic_id"), "clinics_west_south.geojson")


def _station_neighbours(mistake):
    stations = read("vienna_stations.geojson").sort_values("station_id").reset_index(drop=True)
    if mistake == "distance_in_degrees":
        d = planar_distance(stations.geometry, stations.geometry)
    else:
        d = geodesic_distance_m(stations.geometry, stations.geometry)
    if mistake != "self_included":
        np.fill_diagonal(d, np.inf)
    nearest = k_nearest(d, 3)
    ids = stations.station_id.to_numpy()
    items = []
    for i, js in enumerate(nearest):
        neighbours = [{"station_id": int(ids[j]), "distance_m": round(float(d[i, j]), 6)} for j in js]
        items.append({"station_id": int(ids[i]), "neighbours": neighbours})
    if mistake == "object_keyed_by_id":
        write_json({str(it["station_id"]): it["neighbours"] for it in items}, "vienna_station_neighbours.json")
    else:
        write_json(items, "vienna_station_neighbours.json")


def _parcel_rai(mistake):
    parcels = read("bangkok_contractor_delivery.gpkg", layer="parcels")
    m2 = pd.Series(geodesic_area_m2(parcels.geometry), index=parcels.index)
    area = m2 if mistake == "area_in_m2" else m2 / M2_PER_RAI
    per = area.groupby(parcels.owner_class).agg(["size", "sum"]).sort_index()
    rows = [{"owner_class": k, "parcels": int(n), "rai": round(float(a), 2)} for k, (n, a) in per.iterrows()]
    if mistake == "list_not_object":
        write_json(rows, "bangkok_parcel_rai.json")
    else:
        write_json({r.pop("owner_class"): r for r in rows}, "bangkok_parcel_rai.json")


def _hex_landuse(mistake):
    hexes = read("lagos_hex_grid.geojson")
    landuse = read("lagos_landuse.geojson")
    joined = gpd.sjoin(hexes[["hex_id", "geometry"]], landuse[["geometry"]], predicate="intersects")
    pairs = joined.reset_index()
    shared = (
        hexes.geometry.loc[pairs["index"]]
        .reset_index(drop=True)
        .intersection(landuse.geometry.loc[pairs.index_right].reset_index(drop=True))
    )
    overlapping = pairs[~shared.is_empty.to_numpy() & (planar("area", shared) > 0)]
    counts = overlapping.groupby("hex_id").size()
    out = hexes[["hex_id", "geometry"]].copy()
    out.insert(1, "n_landuse", counts.reindex(out.hex_id, fill_value=0).to_numpy().astype(int))
    out = out.sort_values("hex_id")
    if mistake == "empty_hexes_dropped":
        out = out[out.n_landuse > 0]
    if mistake == "crs_missing":
        out = without_crs(out)
    if mistake == "geometry_dropped":
        pd.DataFrame(out.drop(columns="geometry")).to_parquet("lagos_hex_landuse.parquet", index=False)
    else:
        out.to_parquet("lagos_hex_landuse.parquet", index=False)


def _district_elevation(mistake):
    import rasterio
    from rasterio.features import geometry_mask

    with rasterio.open("vienna_dem.tif") as src:
        dem = src.read(1, masked=True)
        transform, shape = src.transform, src.shape
    valid = ~np.ma.getmaskarray(dem)
    values = np.ma.getdata(dem).astype(float)
    districts = read("vienna_districts.geojson")
    rows = []
    for code, name, geom in zip(districts.district_code, districts.district_name, districts.to_crs(UTM33N).geometry):
        inside = geometry_mask([geom], shape, transform, invert=True) & valid
        rows.append(
            {
                "district_code": int(code),
                "district_name": name,
                "mean_elevation_m": round(float(values[inside].mean()), 1),
                "max_elevation_m": round(float(values[inside].max()), 1),
            }
        )
    key = "mean_elevation_m" if mistake == "sorted_by_elevation" else "district_code"
    out = pd.DataFrame(rows).sort_values(key, ascending=mistake != "sorted_by_elevation")
    if mistake == "max_column_missing":
        out = out.drop(columns="max_elevation_m")
    if mistake == "elevation_in_feet":
        out[["mean_elevation_m", "max_elevation_m"]] = (out[["mean_elevation_m", "max_elevation_m"]] / 0.3048).round(1)
    write_csv(out, "vienna_district_elevation.csv")


ENTRIES = [
    entry(
        "h6-vienna-district-perimeter-km-longest-first-csv",
        """
        1. Input: vienna_districts.geojson (23 districts, lon/lat).
        2. For every district compute the length of its boundary (perimeter) in kilometres and its area in
           square kilometres.
        3. Output vienna_district_perimeters.csv with the columns district_code, district_name, perimeter_km,
           area_km2 — all 23 districts, the one with the longest boundary first. No geometry in the file.
        """,
        [VIENNA_DISTRICTS],
        ["vienna_district_perimeters.csv"],
        _district_outlines,
        ["perimeter_in_degrees", "perimeter_in_metres", "shortest_first"],
        notes="""
        Perimeters and areas on the ellipsoid. Perimeters run from 4.1 to 60.2 km; the closest pair
        (23.67 and 23.82 km) is 0.65 % apart, so no projected computation reorders them.
        """,
    ),
    entry(
        "h6-capetown-address-hospital-count-1500m-zeros-kept",
        """
        quick one — for each address in capetown_addresses.parquet, how many hospitals from
        capetown_hospitals.parquet are within 1.5 km straight-line distance? count every row of the hospital
        file as one hospital (don't merge the near-duplicate entries). want address_hospitals_1500m.csv with
        address_id and n_hospitals, all 120 addresses incl. the ones with nothing nearby (n_hospitals = 0),
        ordered by address_id
        """,
        [CT_ADDRESSES, CT_HOSPITALS],
        ["address_hospitals_1500m.csv"],
        _hospitals_within_1500,
        ["zero_rows_dropped", "radius_in_degrees", "sorted_by_count"],
        notes="""
        Distances on the ellipsoid. The address-hospital distances closest to 1500 m are 1496.3 m and
        1507.5 m (0.25 % and 0.5 % away; UTM 34S distances are within 0.03 %), so every count holds.
        62 of the 120 addresses have no hospital within 1.5 km.
        """,
    ),
    entry(
        "h6-tokyo-footprints-over-1000m2-geojson",
        """
        TKY-218 — large footprints

        From tokyo_buildings_legacy.geojson, export only the buildings whose footprint covers at least
        1,000 m² to tokyo_large_buildings.geojson. Geometry stays in lon/lat. Properties: feature_id,
        name_primary and footprint_m2 (footprint area, square metres). Largest footprint first.
        """,
        [TOKYO_BUILDINGS],
        ["tokyo_large_buildings.geojson"],
        _large_footprints,
        ["small_ones_kept", "smallest_first", "feature_id_dropped"],
        notes="""
        Areas on the ellipsoid. 6 of the 100 buildings reach 1000 m²; the footprints nearest the limit are
        926.6 and 1042.3 m², and the six are 0.7 % or more apart from each other, so the order holds. Ring
        orientation is left as written (no broken variant touches it).
        """,
    ),
    entry(
        "h6-cairo-parcels-to-lonlat-gpkg-nothing-else",
        """
        Please convert cairo_parcels_legacy.geojson to a GeoPackage, cairo_parcels_wgs84.gpkg, one layer
        named "parcels", reprojected to EPSG:4326. That's all I need: no deduplication, no repair of the
        invalid shapes, don't drop the border slivers either. All 290 records with their fields (parcel_id,
        record_seq, parcel_class, district, area_m2) exactly as they are, same order.
        """,
        [CAIRO_PARCELS],
        ["cairo_parcels_wgs84.gpkg"],
        _cairo_as_is,
        ["slivers_dropped", "left_in_red_belt", "area_m2_recomputed"],
        notes="""
        The source is in Egypt 1907 / Red Belt (EPSG:22992). 20 geometries are invalid and 30 rows are
        border slivers; the reference keeps them all and only reprojects. area_m2 is the stored value, not
        a measured one. The GeoPackage writer promotes the 260 Polygons to MultiPolygon beside the 30
        MultiPolygons (one geometry type per layer); no broken variant touches geometry types.
        """,
    ),
    entry(
        "h6-fiji-transect-lengths-nautical-miles-csv",
        """
        fiji_transects_wgs84.geojson → fiji_transect_lengths.csv: transect_id, vessel, survey_date
        (YYYY-MM-DD), length_nmi = true length of the transect in nautical miles (several cross the 180°
        meridian, those count too). one row per transect, by transect_id.
        """,
        [FIJI_TRANSECTS],
        ["fiji_transect_lengths.csv"],
        _transect_lengths,
        ["length_in_degrees", "length_in_km", "crossing_transects_dropped"],
        notes="""
        Geodesic lengths on the ellipsoid (each segment the short way across the antimeridian), in
        international nautical miles (1852 m); 27.5 to 264.4 nmi. Ordered by id, so the nearly equal
        lengths of two transects do not matter.
        """,
    ),
    entry(
        "h6-london-localities-over-20km2-british-national-grid",
        """
        Could you pull the localities out of london_admin.geojson (subtype "locality" — not the counties)
        that are larger than 20 km², and save them as london_big_localities.geojson on the British National
        Grid (EPSG:27700)? Keep id and name and add area_km2. Alphabetical by name is fine.
        """,
        [LONDON_ADMIN],
        ["london_big_localities.geojson"],
        _big_localities,
        ["left_in_wgs84", "counties_included", "area_in_m2"],
        notes="""
        Areas on the ellipsoid; British National Grid areas are within 0.05 % and an equal-area projection
        agrees. The localities nearest the limit have 19.35 and 20.13 km² (0.6 % away), so 10 localities
        qualify under any reasonable method. Names are unique.
        """,
    ),
    entry(
        "h6-vienna-ndvi-mean-per-district-json-array",
        """
        NDVI per district, please. vienna_s2_red_nir.tif has red in band 1 and near-infrared in band 2;
        NDVI = (NIR − red) / (NIR + red). Average it over each district in vienna_districts.geojson (a pixel
        belongs to a district when its centre is inside). Pixels that are 0 are masked cloud: leave them out
        entirely. Send vienna_district_ndvi.json as a JSON array with one object per district, ordered by
        district_code: {"district_code", "district_name", "mean_ndvi" (4 decimals), "pixels" (number of
        pixels averaged)}.
        """,
        [VIENNA_DISTRICTS, VIENNA_S2],
        ["vienna_district_ndvi.json"],
        _district_ndvi,
        ["cloud_counted_as_zero", "red_nir_swapped", "object_keyed_by_name"],
        notes="""
        The image is synthetic (UTM 33N, 100 m pixels); the districts are reprojected to it and pixels taken
        by centre, as the request says. Only district 11 (Simmering) has cloud pixels (42 of 2323). Mean
        NDVI is positive everywhere (0.31-0.75), so the swapped bands give negative means.
        """,
    ),
    entry(
        "h6-vienna-tasmax-monthly-celsius-hot-days-csv",
        """
        From vienna_tasmax_2023_2024.nc (variable tasmax, in kelvin) I need vienna_tasmax_monthly.csv:

          month          YYYY-MM, every month from 2023-01 to 2024-12 (24 rows, in calendar order)
          tasmax_mean_c  the month's mean of the daily grid-average maximum temperature, in °C
          hot_days       number of days in the month on which that grid-average maximum was 32 °C or
                         more (write 0 for months without any)

        "Grid-average" = the plain average over all grid cells of that day, no weighting.
        """,
        [VIENNA_TASMAX],
        ["vienna_tasmax_monthly.csv"],
        _tasmax_months,
        ["left_in_kelvin", "months_without_hot_days_dropped", "warmest_first"],
        notes="""
        The series is synthetic. The daily grid averages nearest 32 °C are 0.15 K away, so the 13 hot days
        (in 2 months) are not in doubt; 22 months have none.
        """,
    ),
    entry(
        "h6-capetown-clinics-western-southern-to-geojson",
        """
        Hey! Can you turn capetown_clinics.csv into a real GeoJSON, clinics_west_south.geojson, with only the
        clinics in the Western and Southern subdistricts? Points come from wkt_geom (lon/lat). Leave
        clinic_id, name and subdistrict as they are; the WKT text itself should not come along as a
        property. Order by clinic_id.
        """,
        [CT_CLINICS],
        ["clinics_west_south.geojson"],
        _clinics_west_south,
        ["wkt_column_kept", "lat_lon_swapped", "all_subdistricts_kept"],
        notes="12 Western and 12 Southern clinics: 24 features.",
    ),
    entry(
        "h6-vienna-stations-three-nearest-others-nested-json",
        """
        For each monitoring station in vienna_stations.geojson, list the three nearest *other* stations
        (a station is not its own neighbour). Output vienna_station_neighbours.json as a JSON list with one
        element per station, sorted by station_id, shaped like
          {"station_id": 123, "neighbours": [{"station_id": 456, "distance_m": 812.4}, ...]}
        with the neighbours nearest first and distances in metres.
        """,
        [VIENNA_STATIONS],
        ["vienna_station_neighbours.json"],
        _station_neighbours,
        ["self_included", "distance_in_degrees", "object_keyed_by_id"],
        notes="""
        Distances on the ellipsoid. Within each station's list the closest pair of distances differs by
        0.04 % and the 3rd and 4th nearest by at least 0.14 %; a conformal projection (UTM 33N, MGI
        Lambert) keeps ratios of distances from one point far better than that, so the lists and their
        order hold.
        """,
    ),
    entry(
        "h6-bangkok-parcel-area-rai-per-owner-class-json",
        """
        Contractor QA: for the parcels layer of bangkok_contractor_delivery.gpkg, give the number of parcels
        and their total area in rai (1 rai = 1,600 m²) per owner_class. Write bangkok_parcel_rai.json as a
        single object keyed by owner_class, e.g. {"private": {"parcels": 10, "rai": 812.5}, ...}.
        """,
        [BANGKOK_DELIVERY],
        ["bangkok_parcel_rai.json"],
        _parcel_rai,
        ["area_in_m2", "list_not_object"],
        notes="""
        The parcels layer is in Indian 1975 / UTM 47N; areas on the ellipsoid (the UTM planar total is within
        0.005 %). Three classes, about 105,270 rai each; nothing is ranked.
        """,
    ),
    entry(
        "h6-lagos-hex-landuse-overlap-count-geoparquet",
        """
        Hex grid summary: for every hexagon in lagos_hex_grid.geojson, count the land-use polygons of
        lagos_landuse.geojson that overlap it (share some area with it; one polygon can count in several
        hexes). Keep all hexes, also those with no land use (count 0). GeoParquet lagos_hex_landuse.parquet,
        columns hex_id, n_landuse and the hexagon geometry, CRS unchanged (lon/lat), sorted by hex_id.
        """,
        [LAGOS_HEX, LAGOS_LANDUSE],
        ["lagos_hex_landuse.parquet"],
        _hex_landuse,
        ["empty_hexes_dropped", "geometry_dropped", "crs_missing"],
        notes="""
        No hex-polygon pair only touches: every intersecting pair shares area, and the pairs are the same when
        computed in lon/lat or in UTM 31N. 245 of the 1782 hexes have no land use.
        """,
    ),
    entry(
        "h6-vienna-dem-mean-max-elevation-per-district-csv",
        """
        Elevation summary per district: using vienna_dem.tif (metres) and vienna_districts.geojson, give each
        district's mean and maximum elevation in metres (one decimal), counting a DEM cell for a district when
        the cell's centre falls inside it. vienna_district_elevation.csv, columns district_code,
        district_name, mean_elevation_m, max_elevation_m; one row per district, in district_code order.
        """,
        [VIENNA_DISTRICTS, VIENNA_DEM],
        ["vienna_district_elevation.csv"],
        _district_elevation,
        ["sorted_by_elevation", "max_column_missing", "elevation_in_feet"],
        notes="""
        The DEM is synthetic (UTM 33N, 100 m cells, no nodata inside the districts); the districts are
        reprojected to it and cells taken by centre, as the request says. Several district means lie within
        0.1 m of each other, so the request orders by district_code and no variant ranks by elevation
        except the one that breaks that order.
        """,
    ),
]
