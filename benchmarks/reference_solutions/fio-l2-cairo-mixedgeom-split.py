"""Mixed-geometry GeoJSON to a typed, single-part, three-layer GeoPackage in Egypt Red Belt (EPSG:22992)."""

import geopandas as gpd

sites = gpd.read_file("heritage_sites.geojson").to_crs(epsg=22992)
families = {
    "points": ("Point", "MultiPoint"),
    "lines": ("LineString", "MultiLineString"),
    "polygons": ("Polygon", "MultiPolygon"),
}
for layer, types in families.items():
    part = sites[sites.geom_type.isin(types)]
    single = part.explode(index_parts=True)
    single["part_index"] = single.index.get_level_values(-1)
    single = single.reset_index(drop=True)
    single.to_file("heritage.gpkg", layer=layer, driver="GPKG")
