"""CSV with WKT to GeoParquet with an explicit Arrow schema: timestamp[us], int32, strings, Point in EPSG:4326."""

import geopandas as gpd
import pandas as pd

raw = pd.read_csv("nyc_addresses.csv", dtype=str, keep_default_na=False)  # all text in: keep leading zeros
addresses = gpd.GeoDataFrame(
    raw.drop(columns="geometry_wkt"),
    geometry=gpd.GeoSeries.from_wkt(raw["geometry_wkt"]),
    crs="EPSG:4326",
)
recorded_at = pd.to_datetime(addresses["recorded_at"], utc=True).dt.tz_localize(None)  # UTC, naive
addresses["recorded_at"] = recorded_at.astype("datetime64[us]")
addresses["unit_count"] = pd.to_numeric(addresses["unit_count"]).astype("int32")
addresses.to_parquet("addresses.geoparquet")
