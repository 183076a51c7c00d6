"""Nearest hospital per address with distances in metres: project to UTM 34S before the nearest join."""

import geopandas as gpd

addresses = gpd.read_parquet("addresses.parquet").to_crs(epsg=32734)
hospitals = gpd.read_parquet("hospitals.parquet").to_crs(epsg=32734)
nearest = gpd.sjoin_nearest(addresses, hospitals[["name", "geometry"]], how="left", distance_col="distance_m")
nearest = nearest.drop_duplicates("address_id").rename(columns={"name": "nearest_hospital_name"})
nearest[["address_id", "nearest_hospital_name", "distance_m", "geometry"]].to_file(
    "nearest_hospital.gpkg", layer="nearest_hospital", driver="GPKG"
)
