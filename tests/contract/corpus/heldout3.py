"""A third held-out set: written blind to the contract rules, to measure them; not to be tuned on.

Written from the corpus README, ``_entry.py``/``_common.py``, the code format of ``heldout2.py`` and
the inputs only, without reading the contract code, the audit or the other corpus entries' asks.
If an entry here shows a defect, fix the rules, but do not rephrase these requests to suit them.
"""

from __future__ import annotations

import warnings

import geopandas as gpd
import pandas as pd

from ._common import (
    EXAMPLES,
    WGS84,
    dev,
    entry,
    geodesic_area_m2,
    geodesic_distance_m,
    geodesic_length_m,
    planar,
    read,
    read_wkt_csv,
    records,
    swap_xy,
    write_csv,
    write_geojson,
    write_json,
)

BANGKOK = dev("dd-l2-bangkok-multicrs-audit", "bangkok_contractor_delivery.gpkg")
CLINICS = dev("dd-l1-capetown-clinics-bbox", "capetown_clinics.csv")
LAGOS_HEX = dev("spa-l2-lagos-hotspot-overlaps", "lagos_hex_grid.geojson")
LAGOS_LANDUSE = dev("spa-l2-lagos-hotspot-overlaps", "lagos_landuse.geojson")
VIENNA_MGI = dev("spa-l1-vienna-pip-count", "districts.geojson")
NYC_ADDRESSES = dev("fio-l1-nyc-csvwkt-addresses", "nyc_addresses.csv")
NYC_PARKS = dev("geo-l2-nyc-park-symdiff", "nyc_parks.gpkg")
TOKYO_BUILDINGS = dev("dc-l1-tokyo-ring-orientation", "tokyo_buildings_legacy.geojson")
LONDON = dev("crs-l1-london-laea-areas", "london_admin.geojson")
FIJI = dev("crs-l2-fiji-antimeridian", "fiji_transects_wgs84.geojson")
HERITAGE = dev("fio-l2-cairo-mixedgeom-split", "heritage_sites.geojson")

RAI_M2 = 1600.0
ACRE_M2 = 4046.8564224


def _bangkok_handover(mistake):
    parcels = read("bangkok_contractor_delivery.gpkg", layer="parcels")
    m2 = geodesic_area_m2(parcels.geometry)
    parcels["area"] = m2 if mistake == "area_in_m2" else m2 / RAI_M2
    table = parcels.groupby("owner_class", as_index=False).agg(parcels=("id", "size"), area_rai=("area", "sum"))
    table = table.sort_values("owner_class")
    if mistake != "all_row_missing":
        total = pd.DataFrame(
            {"owner_class": ["all"], "parcels": [table.parcels.sum()], "area_rai": [table.area_rai.sum()]}
        )
        table = pd.concat([table, total], ignore_index=True)
    table["share_pct"] = table.area_rai / parcels["area"].sum() * 100
    write_csv(table, "parcels_by_owner.csv")

    roads = read("bangkok_contractor_delivery.gpkg", layer="roads")
    roads["km"] = geodesic_length_m(roads.geometry) / 1000
    km = roads.groupby("highway")["km"].sum()
    if mistake == "json_list_not_object":
        write_json([{"highway": k, "km": float(v)} for k, v in km.items()], "road_km_by_class.json")
    else:
        write_json({k: float(v) for k, v in km.items()}, "road_km_by_class.json")


def _hospital_clinics(mistake):
    hospitals = read("capetown_hospitals.parquet")
    clinics = read_wkt_csv("capetown_clinics.csv", "wkt_geom")
    d = geodesic_distance_m(hospitals.geometry, clinics.geometry)
    out = hospitals[["hospital_id", "name", "geometry"]].copy()
    out["clinics_2km"] = (d <= 2000).sum(axis=1)
    nearest = d.min(axis=1)
    out["nearest_clinic_m"] = nearest / 1000 if mistake == "nearest_in_km" else nearest
    if mistake == "hospitals_without_clinic_dropped":
        out = out[out.clinics_2km > 0]
    out = out.to_crs(WGS84)
    if mistake == "lat_lon_swapped":
        out = swap_xy(out)
    write_geojson(out, "hospital_clinic_access.geojson")


def _hex_mix(mistake):
    hexes = read("lagos_hex_grid.geojson")
    landuse = read("lagos_landuse.geojson")
    if mistake == "centroid_in_hex":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            pts = landuse.set_geometry(landuse.geometry.centroid)
        joined = gpd.sjoin(hexes, pts[["class", "geometry"]], predicate="contains")
    else:
        joined = gpd.sjoin(hexes, landuse[["class", "geometry"]], predicate="intersects")
    stats = joined.groupby("hex_id").agg(
        polygons=("class", "size"), classes=("class", "size" if mistake == "classes_counts_rows" else "nunique")
    )
    out = hexes.merge(stats, on="hex_id", how="inner" if mistake == "empty_hexes_dropped" else "left")
    out[["polygons", "classes"]] = out[["polygons", "classes"]].fillna(0).astype(int)
    out[["hex_id", "polygons", "classes", "geometry"]].to_file("lagos_hex_mix.gpkg", layer="hex_mix", driver="GPKG")


def _vienna_utm(mistake):
    districts = read("districts.geojson")
    km = geodesic_length_m(districts.geometry) / 1000
    districts["perimeter_km"] = km * 1000 if mistake == "perimeter_in_m" else km
    if mistake == "crs_label_only":
        out = districts.set_crs(25833, allow_override=True)
    elif mistake == "wgs84_utm_instead":
        out = districts.to_crs(32633)
    else:
        out = districts.to_crs(25833)
    out.to_file("vienna_districts_etrs89_utm33.gpkg", layer="districts", driver="GPKG")


def _street_digest(mistake):
    a = pd.read_csv("nyc_addresses.csv")
    per_street = a.groupby("street").agg(
        addresses=("id", "size"),
        house_numbers=("number", "size" if mistake == "house_numbers_counts_rows" else "nunique"),
        with_units=("unit_count", lambda s: int((s > 0).sum())),
    )
    per_street = per_street.reset_index().sort_values(["addresses", "street"], ascending=[False, True])
    top = records(per_street.head(6 if mistake == "top_six" else 5))
    if mistake == "top_streets_keyed_by_name":
        top = {r.pop("street"): r for r in top}
    digest = {"addresses": len(a), "streets": int(a.street.nunique()), "top_streets": top}
    write_json(digest, "street_digest.json")


def _large_parks(mistake):
    parks = read("nyc_parks.gpkg", layer="parks_official")
    if mistake == "area_square_feet":
        parks["acres"] = planar("area", parks.geometry)
    else:
        m2 = geodesic_area_m2(parks.geometry)
        parks["acres"] = m2 / 1e4 if mistake == "hectares_not_acres" else m2 / ACRE_M2
    big = parks[(parks.park_class == "park") & (parks.acres >= 20)]
    big = big.sort_values("acres", ascending=False)
    if mistake != "state_plane_kept":
        big = big.to_crs(WGS84)
    big[["park_id", "acres", "geometry"]].to_file("large_parks_wgs84.gpkg", layer="large_parks", driver="GPKG")


def _tokyo_measures(mistake):
    b = read("tokyo_buildings_legacy.geojson")
    if mistake == "area_square_degrees":
        b["area_m2"] = planar("area", b.geometry.to_crs(WGS84))
    else:
        b["area_m2"] = geodesic_area_m2(b.geometry)
    b["perimeter_m"] = geodesic_length_m(b.geometry)
    if mistake == "height_column_dropped":
        b = b.drop(columns="height")
    if mistake == "unnamed_buildings_dropped":
        b = b[b.name_primary.fillna("") != ""]
    write_geojson(b.to_crs(WGS84), "tokyo_buildings_measured.geojson")


def _large_localities(mistake):
    places = read("london_admin.geojson")
    km2 = geodesic_area_m2(places.geometry) / 1e6
    places["area_km2"] = km2 * 100 if mistake == "area_in_hectares" else km2
    keep = km2 >= 20
    if mistake != "counties_kept":
        keep &= places.subtype == "locality"
    out = places[keep].sort_values("name")[["id", "name", "area_km2", "geometry"]].to_crs(WGS84)
    if mistake == "lat_lon_swapped":
        out = swap_xy(out)
    write_geojson(out, "localities_20km2.geojson")


def _vessel_effort(mistake):
    t = read("fiji_transects_wgs84.geojson")
    if mistake == "dateline_naive_length":
        t["km"] = planar("length", t.geometry.to_crs(3857)) / 1000
    else:
        t["km"] = geodesic_length_m(t.geometry) / 1000
    out = t.groupby("vessel", as_index=False).agg(
        transects=("transect_id", "size"),
        survey_days=("survey_date", "size" if mistake == "days_counts_rows" else "nunique"),
        total_km=("km", "mean" if mistake == "mean_not_total" else "sum"),
    )
    write_csv(out.sort_values("total_km", ascending=False), "vessel_effort.csv")


def _heritage_sites(mistake):
    h = read("heritage_sites.geojson")
    kind = h.geom_type
    lines = h[kind == "LineString"]
    polys = h[kind.isin(["Polygon", "MultiPolygon"])]
    pts = h if mistake == "markers_count_all_features" else h[kind == "Point"]
    length = pd.Series(geodesic_length_m(lines.geometry), index=lines.index).groupby(lines.site_id).sum()
    if mistake == "enclosure_square_degrees":
        area = pd.Series(planar("area", polys.geometry), index=polys.index)
    else:
        area = pd.Series(geodesic_area_m2(polys.geometry), index=polys.index)
    sites = h.drop_duplicates("site_id")[["site_id", "name_en"]].set_index("site_id").sort_index()
    sites["markers"] = pts.groupby("site_id").size().reindex(sites.index, fill_value=0)
    sites["axis_length_m"] = length.reindex(sites.index, fill_value=0)
    if mistake == "axis_length_km":
        sites["axis_length_m"] /= 1000
    sites["enclosure_m2"] = area.groupby(polys.site_id).sum().reindex(sites.index, fill_value=0)
    write_csv(sites.reset_index(), "heritage_site_summary.csv")


ENTRIES = [
    entry(
        "h3-bangkok-parcels-rai-and-road-km-two-files",
        """
        Subject: contractor handover — two quick numbers

        Hi both,

        Before we sign off bangkok_contractor_delivery.gpkg I need two small files out of it:

        parcels_by_owner.csv — from the parcels layer, one row per owner_class (alphabetical), then one
        last row with owner_class = "all" for the whole layer. Columns: owner_class, parcels (number of
        parcels), area_rai (their land area added up, in rai; 1 rai = 1,600 m²) and share_pct (that
        row's area as a percentage of all parcel area, so "all" is 100).

        road_km_by_class.json — from the roads layer, the total road length in kilometres for each
        highway value, as one JSON object mapping the highway value to its km, e.g.
        {"primary": 123.4, "secondary": ...}. Nothing else in it.

        Thanks!
        Somchai
        """,
        [BANGKOK],
        ["parcels_by_owner.csv", "road_km_by_class.json"],
        _bangkok_handover,
        ["area_in_m2", "all_row_missing", "json_list_not_object"],
        notes="""
        Areas and lengths on the ellipsoid; the layers' own UTM 47N figures (parcels in Indian 1975,
        EPSG:24047; roads in WGS 84, EPSG:32647) are within 0.01 %. The three owner classes have 1333-1334
        parcels of about 79 rai each; the five highway classes have 1000 roads and 359.75 km each.
        """,
    ),
    entry(
        "h3-capetown-clinics-within-2km-of-each-hospital",
        """
        For every hospital in capetown_hospitals.parquet, how many clinics from capetown_clinics.csv
        (point WKT in wkt_geom, lon/lat) are within 2 km of it (2 km or closer counts), and how far
        away is its nearest clinic in metres, whatever the distance? All 37 hospitals must be in the
        output, also those with no clinic within 2 km (write 0). Output hospital_clinic_access.geojson:
        the hospital points in WGS84 with hospital_id, name, clinics_2km, nearest_clinic_m.
        """,
        [EXAMPLES + "capetown_hospitals.parquet", CLINICS],
        ["hospital_clinic_access.geojson"],
        _hospital_clinics,
        ["hospitals_without_clinic_dropped", "nearest_in_km", "lat_lon_swapped"],
        notes="""
        Straight-line distances on the ellipsoid. The hospital-clinic distance nearest 2 km is 1.65 % away
        from it, so a UTM 34S or spherical computation gives the same counts; 20 hospitals have none.
        """,
    ),
    entry(
        "h3-lagos-hex-landuse-mix",
        """
        LAG-412 · land-use mix per hex cell

        Using lagos_hex_grid.geojson and lagos_landuse.geojson, deliver lagos_hex_mix.gpkg with a single
        layer named hex_mix: every one of the 1782 hex cells with its geometry unchanged (WGS84) and
          - hex_id
          - polygons: how many land-use polygons intersect the cell (a polygon that overlaps the cell
            only partly counts too; a polygon overlapping several cells counts in each)
          - classes: how many different values of `class` those polygons have
        Cells with no land use get 0 and 0, they must not disappear.
        """,
        [LAGOS_HEX, LAGOS_LANDUSE],
        ["lagos_hex_mix.gpkg"],
        _hex_mix,
        ["classes_counts_rows", "empty_hexes_dropped", "centroid_in_hex"],
        notes="""
        7679 cell-polygon pairs intersect, the same 7679 in UTM 31N; no pair merely touches. 164 cells have
        no land use.
        """,
    ),
    entry(
        "h3-vienna-districts-mgi-to-etrs89-utm33",
        """
        districts.geojson is in MGI / Austria Lambert (EPSG:31287). Please transform it to ETRS89 / UTM
        zone 33N (EPSG:25833) — that exact CRS, not the WGS 84 UTM one — and save it as
        vienna_districts_etrs89_utm33.gpkg, layer "districts". Keep district_code, district_name and
        osm_relation_id as they are, and add perimeter_km: the length of each district's boundary in
        kilometres.
        """,
        [VIENNA_MGI],
        ["vienna_districts_etrs89_utm33.gpkg"],
        _vienna_utm,
        ["crs_label_only", "wgs84_utm_instead", "perimeter_in_m"],
        notes="Perimeters on the ellipsoid; UTM 33N and MGI Lambert perimeters agree within 0.05 %.",
    ),
    entry(
        "h3-nyc-street-digest-json",
        """
        could you make me a little street_digest.json from nyc_addresses.csv? shape it like this:
        {"addresses": <number of address rows>, "streets": <number of distinct street names>,
         "top_streets": [ ...one object per street... ]}
        top_streets = the 5 streets with the most addresses, most first, as a list; each object has
        street, addresses, house_numbers (how many different house numbers the street has — the same
        number twice counts once) and with_units (addresses whose unit_count is above 0).
        """,
        [NYC_ADDRESSES],
        ["street_digest.json"],
        _street_digest,
        ["top_six", "house_numbers_counts_rows", "top_streets_keyed_by_name"],
        notes="""
        The 5th and 6th streets have 29 and 22 addresses, so the top 5 is unambiguous. Street names are
        compared as written (all upper case).
        """,
    ),
    entry(
        "h3-nyc-parks-20-acres-to-wgs84",
        """
        Spec — large parks extract
        1. Source: layer parks_official in nyc_parks.gpkg.
        2. Keep the features with park_class = "park" whose area is 20 acres or more.
        3. Columns: park_id, acres (the park's area in international acres), geometry.
        4. Order: largest first.
        5. Deliver large_parks_wgs84.gpkg, layer large_parks, reprojected to WGS84 lon/lat (EPSG:4326).
        """,
        [NYC_PARKS],
        ["large_parks_wgs84.gpkg"],
        _large_parks,
        ["hectares_not_acres", "area_square_feet", "state_plane_kept"],
        notes="""
        Areas on the ellipsoid; the state plane (US survey feet) areas agree within 0.002 %. Around the
        threshold: 19.18 and 20.08 acres (0.4 % above), so 43 parks whatever the method; no dog park or
        village green reaches 20 acres.
        """,
    ),
    entry(
        "h3-tokyo-add-area-perimeter-keep-rest",
        """
        Need two new attributes on tokyo_buildings_legacy.geojson: area_m2 (footprint in square metres)
        and perimeter_m (length of the outer outline in metres; courtyard holes not counted).
        Everything else stays exactly as delivered — all 100 buildings, named or not, and every
        existing column, even the ones that are mostly empty. Write it to
        tokyo_buildings_measured.geojson (lon/lat).
        """,
        [TOKYO_BUILDINGS],
        ["tokyo_buildings_measured.geojson"],
        _tokyo_measures,
        ["area_square_degrees", "height_column_dropped", "unnamed_buildings_dropped"],
        notes="""
        68 buildings have an empty name_primary; height is filled on one building only. Five footprints
        have a courtyard hole: area_m2 excludes it, perimeter_m is the exterior ring only (as the request
        says). UTM 54N areas and exterior lengths agree with the ellipsoid within 0.05 %.
        """,
    ),
    entry(
        "h3-london-localities-over-20km2",
        """
        Which localities in london_admin.geojson cover 20 km² or more? Only features with subtype
        locality, not the counties. Give me localities_20km2.geojson (normal GeoJSON, lon/lat) with id,
        name and area_km2, sorted by name.
        """,
        [LONDON],
        ["localities_20km2.geojson"],
        _large_localities,
        ["counties_kept", "area_in_hectares", "lat_lon_swapped"],
        notes="""
        Areas on the ellipsoid; British National Grid areas are within 0.06 %. Nearest localities to the
        threshold: 19.35 and 20.13 km² (0.6 % above), so 10 localities whatever the method.
        """,
    ),
    entry(
        "h3-fiji-effort-per-vessel",
        """
        Survey effort by vessel, please (fiji_transects_wgs84.geojson; several lines cross the 180°
        meridian, measure them along the real track):
        - vessel_effort.csv, one row per vessel
        - transects = number of transects it ran
        - survey_days = number of distinct survey_date values (two transects on one day = 1 day)
        - total_km = all its transects' lengths added up, in km
        - the vessel with the most total_km first
        """,
        [FIJI],
        ["vessel_effort.csv"],
        _vessel_effort,
        ["dateline_naive_length", "days_counts_rows", "mean_not_total"],
        notes="""
        Lengths on the ellipsoid. Vessel totals (658, 871, 966, 1112, 2499 km) are at least 10 % apart, so
        the order holds for any reasonable length method.
        """,
    ),
    entry(
        "h3-cairo-heritage-site-summary",
        """
        Hi! heritage_sites.geojson mixes points, lines and polygons for 10 sites (site_id). I need
        heritage_site_summary.csv, one row per site in site_id order, with: site_id, name_en, markers
        (number of POINT features of the site), axis_length_m (total length in metres of the site's
        line features; 0 if it has none) and enclosure_m2 (area in square metres of its polygon
        features). Thanks
        """,
        [HERITAGE],
        ["heritage_site_summary.csv"],
        _heritage_sites,
        ["markers_count_all_features", "axis_length_km", "enclosure_square_degrees"],
        notes="Lengths and areas on the ellipsoid; each site has one or two axial lines and one enclosure.",
    ),
]
