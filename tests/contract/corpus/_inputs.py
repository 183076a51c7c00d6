"""The inputs the held-out sets read, named once: the examples' data and dev tasks' input files."""

from ._common import EXAMPLES, dev

VIENNA_DISTRICTS = EXAMPLES + "vienna_districts.geojson"
VIENNA_STATIONS = EXAMPLES + "vienna_stations.geojson"
VIENNA_DEM = EXAMPLES + "vienna_dem.tif"
VIENNA_S2 = EXAMPLES + "vienna_s2_red_nir.tif"
CT_ADDRESSES = EXAMPLES + "capetown_addresses.parquet"
CT_HOSPITALS = EXAMPLES + "capetown_hospitals.parquet"
LAGOS_HEX = dev("spa-l2-lagos-hotspot-overlaps", "lagos_hex_grid.geojson")
LAGOS_LANDUSE = dev("spa-l2-lagos-hotspot-overlaps", "lagos_landuse.geojson")
CAIRO_PARCELS = dev("dc-l2-cairo-invalid-dedup", "cairo_parcels_legacy.geojson")
NYC_PARKS = dev("geo-l2-nyc-park-symdiff", "nyc_parks.gpkg")
NYC_ADDRESSES = dev("fio-l1-nyc-csvwkt-addresses", "nyc_addresses.csv")
LONDON_ADMIN = dev("crs-l1-london-laea-areas", "london_admin.geojson")
FIJI_TRANSECTS = dev("crs-l2-fiji-antimeridian", "fiji_transects_wgs84.geojson")
CT_CLINICS = dev("dd-l1-capetown-clinics-bbox", "capetown_clinics.csv")
VIENNA_MGI = dev("spa-l1-vienna-pip-count", "districts.geojson")
BANGKOK_AQ = dev("dc-l1-bangkok-attribute-coercion", "bangkok_aq_stations.geojson")
TOKYO_CONNECTORS = dev("geo-l1-tokyo-busstop-buffer", "tokyo_connectors.geojson")
HERITAGE = dev("fio-l2-cairo-mixedgeom-split", "heritage_sites.geojson")
VIENNA_TASMAX = EXAMPLES + "vienna_tasmax_2023_2024.nc"
TOKYO_BUILDINGS = dev("dc-l1-tokyo-ring-orientation", "tokyo_buildings_legacy.geojson")
BANGKOK_DELIVERY = dev("dd-l2-bangkok-multicrs-audit", "bangkok_contractor_delivery.gpkg")
