"""Area in km2 of every admin unit: measure in an equal-area CRS (LAEA Europe), never in degrees."""

import geopandas as gpd

admin = gpd.read_file("london_admin.geojson")
equal_area = admin.to_crs(epsg=3035)  # ETRS89 / LAEA Europe
admin["area_km2"] = equal_area.geometry.area / 1_000_000
admin[["id", "name", "area_km2"]].to_csv("borough_areas.csv", index=False)
