"""Numbers stored as JSON strings: cast integer-looking columns to int and the other numeric ones to float."""

import geopandas as gpd
import pandas as pd

stations = gpd.read_file("bangkok_aq_stations.geojson")
for column in stations.columns.drop("geometry"):
    values = stations[column]
    if values.dtype != object and not pd.api.types.is_string_dtype(values):
        continue
    numbers = pd.to_numeric(values, errors="coerce")
    if (numbers.isna() & values.notna()).any():
        continue  # a text column (names in Thai or English)
    if values.dropna().astype(str).str.fullmatch(r"-?\d+").all():
        stations[column] = numbers.astype("int64")
    else:
        stations[column] = numbers.astype("float64")
stations.to_file("bangkok_aq_typed.geojson", driver="GeoJSON")
