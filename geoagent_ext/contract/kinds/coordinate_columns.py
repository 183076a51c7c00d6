"""A table's longitude and latitude columns (a CSV's, a JSON list of records') place its points
where the inputs lie: swapped, or left in metres, they put them somewhere else on Earth."""

import posixpath
import re

from pydantic import Field

from ..checker import _contract_holder, _contract_numbers
from ._kind import Builder, Params, RequestView, RequirementKind
from .located import _contract_located


class CoordinateColumnsParams(Params):
    lon: str
    lat: str
    bounds: list[float] = Field(description="[w, s, e, n] of the inputs in lon/lat", min_length=4, max_length=4)


def _kind_coordinate_columns(params, data, sources):
    """(passed, observed): the points (lon, lat) of the rows lie where the inputs lie (as ``located``
    places a layer: within their bounds grown by their own size and at least two degrees)."""
    import geopandas as gpd
    import pandas as pd

    lon, lat = params["lon"], params["lat"]
    holder = _contract_holder(data, lon)
    if holder is None or _contract_holder(holder, lat) is not holder:
        return False, f"`{lon}` and `{lat}` are not in the file side by side"
    if isinstance(holder, dict):
        xs, ys = _contract_numbers(holder[lon]), _contract_numbers(holder[lat])
    else:
        xs, ys = holder[lon].tolist(), holder[lat].tolist()
    if len(xs) != len(ys):
        return False, f"`{lon}` and `{lat}` hold {len(xs)} and {len(ys)} values"
    xs, ys = pd.to_numeric(pd.Series(xs), errors="coerce"), pd.to_numeric(pd.Series(ys), errors="coerce")
    both = xs.notna() & ys.notna()
    if not both.any():
        return False, f"`{lon}`, `{lat}` hold no numbers"
    points = gpd.GeoDataFrame(geometry=gpd.points_from_xy(xs[both], ys[both]), crs=4326)
    passed, seen = _contract_located(params, points)
    return passed, f"the points (`{lon}`, `{lat}`): " + seen.split(" (CRS")[0]


_LON = re.compile(r"(?:^|_)(lon|lng|longitude)(?:$|_)", re.IGNORECASE)
_LAT_OF = {"lon": "lat", "lng": "lat", "longitude": "latitude"}


def _pairs(names: list[str]) -> list[tuple[str, str]]:
    """(longitude, latitude) column pairs among ``names``: "lon"/"lat", "centroid_lng"/"centroid_lat",
    "longitude"/"latitude", each latitude the longitude's name with its word swapped."""
    found = []
    for name in names:
        m = _LON.search(name)
        if not m:
            continue
        word = m.group(1)
        partner = _LAT_OF[word.lower()]
        partner = partner.upper() if word.isupper() else partner.capitalize() if word[0].isupper() else partner
        lat = name[: m.start(1)] + partner + name[m.end(1) :]
        if lat in names:
            found.append((name, lat))
    return found


def read_coordinate_columns(request: RequestView, b: Builder) -> None:
    """Longitude and latitude columns an output lists (a pair of names that differ only by the word),
    when the inputs' lon/lat bounds are known: the points lie where the inputs lie."""
    place = request.lonlat_place()
    if place is None:
        return
    bounds, chosen = place
    for out in request.outputs:
        for lon, lat in _pairs(b.columns_of(out)):
            about = [s for s, outs, _ in request.sentences if out in outs]
            b.reading(next((s for s in about if lon in s and lat in s), about[0] if about else ""), True).add(
                out,
                "coordinate_columns",
                f"the points (`{lon}`, `{lat}`) lie where the input data lies "
                f"({', '.join(f'`{posixpath.basename(p)}`' for p in chosen)})",
                lon=lon,
                lat=lat,
                bounds=bounds,
            )


COORDINATE_COLUMNS = RequirementKind(
    name="coordinate_columns",
    params=CoordinateColumnsParams,
    check=_kind_coordinate_columns,
    advice=(
        "take the coordinates in lon/lat (gdf.to_crs(4326)) and write x as the longitude, y as the "
        "latitude: lon = geometry.x, lat = geometry.y"
    ),
    read=read_coordinate_columns,
)
