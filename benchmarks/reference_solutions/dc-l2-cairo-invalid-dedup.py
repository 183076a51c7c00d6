"""Repair, drop slivers, dedup by geometry keeping the earliest record, recompute area, promote to MultiPolygon."""

import geopandas as gpd
import shapely

parcels = gpd.read_file("cairo_parcels_legacy.geojson")  # EPSG:22992, metres
parcels = parcels[parcels.geometry.notna() & ~parcels.geometry.is_empty].copy()
parcels["geometry"] = parcels.geometry.make_valid()  # bowties report area 0 until repaired
parcels = parcels[parcels.geometry.area >= 1.0]
parcels = parcels.sort_values("record_seq")
parcels = parcels[~parcels.geometry.normalize().to_wkb().duplicated()]
parcels["geometry"] = [shapely.MultiPolygon([g]) if g.geom_type == "Polygon" else g for g in parcels.geometry]
parcels["area_m2"] = parcels.geometry.area
parcels = parcels.sort_values("parcel_id").reset_index(drop=True)
parcels[["parcel_id", "record_seq", "parcel_class", "district", "area_m2", "geometry"]].to_parquet(
    "parcels_canonical.geoparquet"
)
