"""Dissolve and aggregate per group; counts per polygon with the zeros kept."""

from __future__ import annotations

import geopandas as gpd

from ._common import (
    EXAMPLES,
    dev,
    entry,
    geodesic_area_m2,
    planar,
    read,
    without_crs,
    write_csv,
    write_geojson,
    write_json,
)

CAIRO = dev("dc-l2-cairo-invalid-dedup", "cairo_parcels_legacy.geojson")
LAGOS_LANDUSE = dev("spa-l2-lagos-hotspot-overlaps", "lagos_landuse.geojson")
LONDON = dev("crs-l1-london-laea-areas", "london_admin.geojson")


def _cairo_districts(mistake):
    p = read("cairo_parcels_legacy.geojson")
    if mistake != "slivers_kept":
        p = p[p.district != "border-sliver"]
    p = p.set_geometry(p.buffer(0) if mistake == "buffer0_repair" else p.make_valid())
    d = p[["district", "geometry"]].dissolve("district", as_index=False)
    d["area_m2"] = geodesic_area_m2(d.geometry)
    if mistake == "reprojected_to_lonlat":
        d = d.to_crs(4326)
    if mistake == "crs_missing":
        d = without_crs(d)
    d.to_file("cairo_districts.gpkg", layer="districts", driver="GPKG")


def _landuse_by_class(mistake):
    lu = read("lagos_landuse.geojson")
    area = {"square_degrees": planar("area", lu.geometry)}.get(mistake, geodesic_area_m2(lu.geometry))
    lu["area_km2"] = area if mistake in ("square_metres", "square_degrees") else area / 1e6
    out = lu.groupby("class", as_index=False).agg(polygons=("id", "size"), area_km2=("area_km2", "sum"))
    if mistake == "polygons_as_float":
        out["polygons"] = out.polygons.astype(float)
    write_csv(out.sort_values("area_km2", ascending=False), "landuse_by_class.csv")


def _county_localities(mistake):
    a = read("london_admin.geojson")
    counties = a[a.subtype == "county"]
    localities = a[a.subtype == "locality"]
    points = localities.set_geometry(localities.representative_point())
    joined = gpd.sjoin(points, counties[["geometry"]], predicate="within")
    counts = joined.groupby("index_right").size()
    out = counties[["id", "name"]].copy()
    if mistake == "zero_counts_dropped":
        out = out.loc[counts.index].assign(localities=counts)
    elif mistake == "counts_as_float":
        out["localities"] = counts.reindex(out.index)  # NaN where none: floats
    else:
        out["localities"] = counts.reindex(out.index, fill_value=0)
    if mistake == "index_right_kept":
        out["index_right"] = out.index
    write_csv(out.sort_values("localities" if mistake == "sorted_by_count" else "name"), "county_localities.csv")


def _health_per_hex(mistake):
    hexes = read("lagos_hex_grid.geojson")
    lu = read("lagos_landuse.geojson")
    health = lu[lu["class"].isin(["hospital", "clinic"])]
    if mistake != "counted_by_intersection":
        health = health.set_geometry(health.representative_point())
    joined = gpd.sjoin(health, hexes[["geometry"]], predicate="intersects")
    counts = joined.groupby("index_right").size()
    if mistake == "zero_hexes_dropped":
        hexes = hexes.loc[counts.index]
    hexes["health_sites"] = (
        counts.reindex(hexes.index) if mistake == "counts_as_float" else counts.reindex(hexes.index, fill_value=0)
    )
    write_geojson(hexes[["hex_id", "health_sites", "geometry"]], "hex_health.geojson")


def _site_summary(mistake):
    h = read("heritage_sites.geojson")
    if mistake == "one_row_per_feature":
        out = h.assign(parts=1, kinds=h.feature_kind)[["site_id", "name_en", "parts", "kinds"]]
    else:
        out = h.groupby(["site_id", "name_en"], as_index=False).agg(
            parts=("feature_kind", "size"), kinds=("feature_kind", lambda k: "; ".join(sorted(k)))
        )
    if mistake == "site_id_lost":
        out = out.drop(columns="site_id")
    write_csv(out.sort_values(out.columns[0]), "heritage_site_summary.csv")


def _districts_without_station(mistake):
    d = read("vienna_districts.geojson").sort_values("district_code")
    stations = read("vienna_stations.geojson")
    counts = gpd.sjoin(stations, d[["geometry"]], predicate="within").groupby("index_right").size()
    empty = d[~d.index.isin(counts.index)] if mistake != "inverted" else d[d.index.isin(counts.index)]
    names = empty.district_code.tolist() if mistake == "codes_not_names" else empty.district_name.tolist()
    write_json({"districts": names} if mistake == "wrapped_in_object" else names, "no_station_districts.json")


def _stations_by_district(mistake):
    d = read("vienna_districts.geojson").sort_values("district_code")
    stations = read("vienna_stations.geojson").to_crs(d.crs)
    if mistake == "one_row_per_station":  # a left join's rows, each with its district's count
        joined = gpd.sjoin(d, stations, how="left", predicate="contains")
        joined["n_stations"] = joined.groupby("district_code")["station_id"].transform("count")
        write_csv(joined[["district_code", "district_name", "n_stations"]], "stations_by_district.csv")
        return
    counts = gpd.sjoin(stations, d[["geometry"]], predicate="within").groupby("index_right").size()
    out = d[["district_code", "district_name"]].assign(n_stations=counts.reindex(d.index, fill_value=0))
    if mistake == "empty_districts_dropped":
        out = out[out.n_stations > 0]
    write_csv(out, "stations_by_district.csv")


ENTRIES = [
    entry(
        "dissolve-parcels-per-district-repair-keep-grid",
        """
        Please merge the Cairo parcels (cairo_parcels_legacy.geojson) into one outline per district.
        Leave out the "border-sliver" records, they are digitising noise. Some parcel outlines cross
        themselves: fix them before merging, without throwing away any part of them. Keep the result in
        the file's own Egyptian grid (not lat/lon). Deliver cairo_districts.gpkg, layer "districts",
        with columns district and area_m2 (area of the merged outline in square metres).
        """,
        [CAIRO],
        ["cairo_districts.gpkg"],
        _cairo_districts,
        ["buffer0_repair", "slivers_kept", "reprojected_to_lonlat", "crs_missing"],
        notes="""
        Repair with make_valid: a bow-tie becomes both of its triangles; buffer(0) keeps only one
        (the 'part thrown away'). Areas on the ellipsoid agree with the Red Belt grid within 0.1 %.
        """,
    ),
    entry(
        "landuse-sum-area-km2-per-class",
        """
        Land-use summary for Lagos, from lagos_landuse.geojson: for each class the number of polygons
        and their total area in km² (the sum of the polygons' own areas — overlaps counted twice is
        fine). landuse_by_class.csv: class, polygons, area_km2. Largest area first.
        """,
        [LAGOS_LANDUSE],
        ["landuse_by_class.csv"],
        _landuse_by_class,
        ["square_metres", "square_degrees", "polygons_as_float"],
    ),
    entry(
        "count-localities-per-county-zeros-kept",
        """
        In london_admin.geojson there are counties (subtype "county") and localities (subtype
        "locality"). For every county, count the localities whose representative point lies inside it.
        Counties with no locality must still be listed, with 0. Save county_localities.csv with id,
        name, localities — sorted by county name A to Z.
        """,
        [LONDON],
        ["county_localities.csv"],
        _county_localities,
        ["zero_counts_dropped", "counts_as_float", "index_right_kept", "sorted_by_count"],
    ),
    entry(
        "count-health-sites-per-hex-every-hex",
        """
        How many health facilities are in each hexagon of lagos_hex_grid.geojson? Health facilities are
        the lagos_landuse.geojson polygons of class "hospital" or "clinic"; place each one by a point
        on its surface so that no facility is counted in two hexagons. I want every hexagon back, zeros
        included, as hex_health.geojson with hex_id and health_sites (a whole number) plus the hexagon
        geometry.
        """,
        [dev("spa-l2-lagos-hotspot-overlaps", "lagos_hex_grid.geojson"), LAGOS_LANDUSE],
        ["hex_health.geojson"],
        _health_per_hex,
        ["zero_hexes_dropped", "counts_as_float", "counted_by_intersection"],
        notes="A point on a facility's edge shared by two hexagons would count twice; none does here.",
    ),
    entry(
        "one-row-per-site-from-parts",
        """
        heritage_sites.geojson has several features per site (enclosure, axial lines, markers...).
        Make heritage_site_summary.csv with ONE row per site: site_id, name_en, parts (how many
        features the site has) and kinds (its feature_kind values, sorted, joined with "; ").
        Order by site_id.
        """,
        [dev("fio-l2-cairo-mixedgeom-split", "heritage_sites.geojson")],
        ["heritage_site_summary.csv"],
        _site_summary,
        ["one_row_per_feature", "site_id_lost"],
    ),
    entry(
        "districts-with-zero-stations-json-array",
        """
        Which Vienna districts don't have a single monitoring station? Use vienna_districts.geojson and
        vienna_stations.geojson. Give me no_station_districts.json — just a JSON array of the district
        names, in district-code order.
        """,
        [EXAMPLES + "vienna_districts.geojson", EXAMPLES + "vienna_stations.geojson"],
        ["no_station_districts.json"],
        _districts_without_station,
        ["wrapped_in_object", "inverted", "codes_not_names"],
    ),
    entry(
        "stations-inside-each-district-one-row-each",
        """
        For every district in vienna_districts.geojson, how many of the stations in
        vienna_stations.geojson fall inside it? Districts with none should show 0. Save
        stations_by_district.csv with the columns district_code, district_name and n_stations.
        """,
        [EXAMPLES + "vienna_districts.geojson", EXAMPLES + "vienna_stations.geojson"],
        ["stations_by_district.csv"],
        _stations_by_district,
        ["one_row_per_station", "empty_districts_dropped"],
        notes="""
        A left spatial join keeps one row per station, each carrying its district's count: every
        count is right, the districts repeat.
        """,
    ),
]
