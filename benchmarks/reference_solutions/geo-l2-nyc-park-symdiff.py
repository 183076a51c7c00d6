"""Disagreement between two park layers: symmetric difference, clustered into connected groups.

Work in the layers' projected CRS (NY Long Island, US ft), tag each group by the side(s) its
patches came from, anchor each group with a representative point (always inside, unlike a
centroid) and write both GeoJSON files in WGS84, groups and anchors in the same order.
"""

import geopandas as gpd
import numpy as np
import pandas as pd
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components
from shapely.geometry import MultiPolygon

SOURCE = "nyc_parks.gpkg"
official = gpd.read_file(SOURCE, layer="parks_official")
osm = gpd.read_file(SOURCE, layer="parks_osm").to_crs(official.crs)
a, b = official.union_all(), osm.union_all()

patches = (
    pd.concat(
        [
            gpd.GeoDataFrame({"source": ["parks_official"]}, geometry=[a.difference(b)], crs=official.crs),
            gpd.GeoDataFrame({"source": ["parks_osm"]}, geometry=[b.difference(a)], crs=official.crs),
        ]
    )
    .explode(index_parts=False)
    .reset_index(drop=True)
)
patches = patches[~patches.geometry.is_empty & (patches.geometry.area > 0)].reset_index(drop=True)

# connected components of touching/overlapping patches: a shifted park's gain and loss merge
pairs = patches.sjoin(patches, predicate="intersects")
graph = coo_matrix(
    (np.ones(len(pairs)), (pairs.index.to_numpy(), pairs["index_right"].to_numpy())), shape=(len(patches), len(patches))
)
_, patches["cluster_id"] = connected_components(graph, directed=False)

groups = []
for cluster_id, group in patches.groupby("cluster_id", sort=True):
    sources = set(group["source"])
    polygons = [p for g in group.geometry for p in getattr(g, "geoms", [g])]
    groups.append(
        {
            "cluster_id": int(cluster_id),
            "source": sources.pop() if len(sources) == 1 else "both",
            "geometry": MultiPolygon(polygons),
        }
    )
clusters = gpd.GeoDataFrame(groups, geometry="geometry", crs=official.crs)
clusters["area_m2"] = clusters.geometry.area * clusters.crs.axis_info[0].unit_conversion_factor ** 2

anchors = clusters[["cluster_id", "source"]].copy()
anchors = gpd.GeoDataFrame(anchors, geometry=clusters.geometry.representative_point(), crs=clusters.crs)

clusters.to_crs(epsg=4326).to_file("parks_disagreement.geojson", driver="GeoJSON")
anchors.to_crs(epsg=4326).to_file("park_label_anchors.geojson", driver="GeoJSON")
