"""Geospatial API knowledge index: offline, version-true, hybrid retrieval.

Public API::

    index = KnowledgeIndex.open(settings)          # GeoAgentSettings
    index.build(libraries=None, rebuild=False, progress=None) -> BuildReport
    index.retrieve("reproject the parcels to a metric CRS", libraries=None, k=5)
    index.intros(["geopandas", "rasterio"])       # {library: text}, for the planner
    index.lookup("geopandas.GeoDataFrame.to_crs")  # ApiRecord | None
"""

from .index import KnowledgeIndex
from .libraries import DEFAULT_LIBRARIES
from .records import ApiRecord, BuildReport
from .store import IndexUnavailable

__all__ = ["ApiRecord", "BuildReport", "DEFAULT_LIBRARIES", "IndexUnavailable", "KnowledgeIndex"]
