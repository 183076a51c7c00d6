"""Rewind polygon rings to the RFC 7946 right-hand rule (exterior CCW, holes CW); nothing else changes."""

import geopandas as gpd

buildings = gpd.read_file("tokyo_buildings_legacy.geojson")
buildings["geometry"] = buildings.geometry.orient_polygons(exterior_cw=False)
buildings.to_file("tokyo_buildings_fixed.geojson", driver="GeoJSON")
