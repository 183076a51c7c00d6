"""Top 10 % hex cells by area-weighted population density, in Nigeria's grid (Minna / UTM 31N).

Areas only mean something in metres, so reproject before the 100 m2 sliver filter and before
weighting each overlapping land-use piece by its intersection area. Eligible cells are those
overlapping at least one kept polygon; the top 10 % of them (rounded up) get ranks 1..n.
"""

import math

import geopandas as gpd

landuse = gpd.read_file("lagos_landuse.geojson").to_crs(epsg=26331)
hexes = gpd.read_file("lagos_hex_grid.geojson").to_crs(epsg=26331)

is_sliver = landuse.geometry.area < 100
slivers, kept = landuse[is_sliver], landuse[~is_sliver]

pieces = gpd.overlay(
    hexes[["hex_id", "geometry"]], kept[["id", "pop_density", "geometry"]], how="intersection", keep_geom_type=True
)
pieces["weight"] = pieces.geometry.area
pieces["weighted"] = pieces["weight"] * pieces["pop_density"]
cells = pieces.groupby("hex_id").agg(
    weighted=("weighted", "sum"), weight=("weight", "sum"), n_overlap_polygons=("id", "nunique")
)
cells["area_weighted_density"] = cells["weighted"] / cells["weight"]

sliver_counts = (
    gpd.sjoin(hexes[["hex_id", "geometry"]], slivers[["geometry"]], predicate="intersects").groupby("hex_id").size()
)
cells["n_slivers_filtered"] = sliver_counts.reindex(cells.index, fill_value=0).astype("int64")

top_n = math.ceil(0.10 * len(cells))
top = cells.sort_values("area_weighted_density", ascending=False).head(top_n).reset_index()
top["rank"] = range(1, len(top) + 1)
top["n_overlap_polygons"] = top["n_overlap_polygons"].astype("int64")

ranking = top[["hex_id", "rank", "area_weighted_density", "n_overlap_polygons", "n_slivers_filtered"]]
ranking.to_parquet("hotspot_ranking.parquet", index=False)
hotspots = hexes.merge(ranking[["hex_id", "rank", "area_weighted_density"]], on="hex_id").sort_values("rank")
hotspots[["hex_id", "rank", "area_weighted_density", "geometry"]].to_parquet("hotspots.geoparquet", index=False)
