"""400 m catchments: buffer in a metric CRS for Tokyo (JGD2011 Plane IX), not in degrees or Web Mercator."""

import geopandas as gpd

connectors = gpd.read_file("tokyo_connectors.geojson")
catchments = connectors.to_crs(epsg=6677)  # JGD2011 / Japan Plane Rectangular CS IX
catchments["geometry"] = catchments.geometry.buffer(400)
catchments[["connector_id", "geometry"]].to_parquet("tokyo_stop_catchments.geoparquet")
