"""Inventory of a CSV-with-WKT export: count, bbox in GeoJSON order [xmin, ymin, xmax, ymax], count per subdistrict."""

import json

import geopandas as gpd
import pandas as pd

clinics = pd.read_csv("capetown_clinics.csv")
points = gpd.GeoDataFrame(clinics, geometry=gpd.GeoSeries.from_wkt(clinics["wkt_geom"].str.strip()), crs="EPSG:4326")
inventory = {
    "count": int(len(points)),
    "bbox": [float(v) for v in points.total_bounds],
    "count_per_subdistrict": {str(k): int(v) for k, v in points.groupby("subdistrict").size().items()},
}
with open("clinic_inventory.json", "w", encoding="utf-8") as f:
    json.dump(inventory, f, indent=2)
