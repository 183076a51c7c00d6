"""Audit every layer of a GeoPackage as stored on disk: CRS, type, count, a sample point, text encoding.

Mojibake test: UTF-8 text that was decoded as Latin-1 survives a Latin-1 encode + UTF-8 decode
round trip and comes back different; clean text (Thai included) does not.
"""

import geopandas as gpd
import pandas as pd
import pyogrio

SOURCE = "bangkok_contractor_delivery.gpkg"


def is_mojibake(text: str) -> bool:
    try:
        return text.encode("latin-1").decode("utf-8") != text
    except (UnicodeEncodeError, UnicodeDecodeError):
        return False


rows = []
for layer, _ in pyogrio.list_layers(SOURCE):
    info = pyogrio.read_info(SOURCE, layer=layer)
    frame = gpd.read_file(SOURCE, layer=layer)  # no reprojection: coordinates as they sit on disk
    sample = frame.geometry.iloc[0].representative_point()
    text_columns = [c for c in frame.columns if c != "geometry" and pd.api.types.is_string_dtype(frame[c])]
    texts = [v for c in text_columns for v in frame[c].dropna().astype(str)]
    rows.append(
        {
            "layer_name": layer,
            "declared_crs": f"EPSG:{frame.crs.to_epsg()}",
            "geometry_type": info["geometry_type"],
            "feature_count": int(info["features"]),
            "sample_x": round(sample.x, 2),
            "sample_y": round(sample.y, 2),
            "encoding_detected": "latin1-mojibake" if any(is_mojibake(t) for t in texts) else "utf-8",
        }
    )

pd.DataFrame(rows).sort_values("layer_name").to_csv("crs_audit.csv", index=False)
