"""Split antimeridian-crossing lines at +-180 in WGS84, then reproject to Fiji Map Grid (EPSG:3460).

Every transect becomes one MultiLineString (non-crossing ones as single-part multis), with its
length in metres measured in the projected CRS.
"""

import geopandas as gpd
from shapely.geometry import LineString, MultiLineString


def split_at_antimeridian(line: LineString) -> MultiLineString:
    coords = list(line.coords)
    parts = [[coords[0]]]
    for (x0, y0), (x1, y1) in zip(coords, coords[1:]):
        if abs(x1 - x0) > 180:  # the segment jumps across the antimeridian
            x1_unwrapped = x1 + 360 if x1 < x0 else x1 - 360
            edge = 180.0 if x1_unwrapped > x0 else -180.0
            t = (edge - x0) / (x1_unwrapped - x0)
            y = y0 + t * (y1 - y0)
            parts[-1].append((edge, y))
            parts.append([(-edge, y)])
        parts[-1].append((x1, y1))
    return MultiLineString(parts)


transects = gpd.read_file("fiji_transects_wgs84.geojson")
transects["geometry"] = [split_at_antimeridian(g) for g in transects.geometry]
transects = transects.to_crs(epsg=3460)  # Fiji 1986 / Fiji Map Grid
transects["length_m"] = transects.geometry.length
transects[["transect_id", "vessel", "survey_date", "length_m", "geometry"]].to_file(
    "fiji_transects_fmg.geojson", driver="GeoJSON"
)
