"""Stations per Bezirk, zero-count districts included (left join the counts back onto every district)."""

import geopandas as gpd

stations = gpd.read_file("stations.geojson")
districts = gpd.read_file("districts.geojson")
stations = stations.to_crs(districts.crs)
joined = gpd.sjoin(stations, districts[["district_code", "geometry"]], how="inner", predicate="within")
counts = joined.groupby("district_code").size().rename("station_count")
table = districts[["district_code", "district_name"]].merge(
    counts, left_on="district_code", right_index=True, how="left"
)
table["station_count"] = table["station_count"].fillna(0).astype(int)
table["district_code"] = table["district_code"].astype(int)
table.sort_values("district_code").to_csv("stations_per_district.csv", index=False)
