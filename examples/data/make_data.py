"""Rebuild the small datasets bundled with the example notebooks.

You never need to run this to use the examples: its outputs are committed.
It documents exactly how every file in this folder was made.

Two kinds of data:

* **Derived from OpenStreetMap** (via the GeoAgentBench development suite,
  ``../shared/bench/geoagentbench-dev`` beside this repository): Vienna
  districts and monitoring stations, Cape Town addresses and hospitals.
  We only reproject, simplify and rename; the licence stays ODbL.
* **Synthetic** (seeded random numbers + simple geography, made here): a
  Sentinel-2-like red/NIR image and a DEM of Vienna, and two years of daily
  maximum temperature on a small grid. They *look* plausible but are not
  measurements — never use them for real conclusions.

Usage::

    .venv/bin/python examples/data/make_data.py            # everything
    .venv/bin/python examples/data/make_data.py --synthetic-only
    .venv/bin/python examples/data/make_data.py --bench /path/to/geoagentbench-dev
"""

from __future__ import annotations

import argparse
from pathlib import Path

import geopandas as gpd
import numpy as np
import pandas as pd
import rasterio
import shapely
import xarray as xr
from rasterio.transform import from_origin
from scipy.ndimage import gaussian_filter
from scipy.spatial import cKDTree

HERE = Path(__file__).resolve().parent
DEFAULT_BENCH = HERE.parents[2] / "shared" / "bench" / "geoagentbench-dev"

# Raster grid of the synthetic images: UTM zone 33N (Sentinel-2 tiles over
# Vienna use it), 100 m pixels, covering Vienna with about 1 km to spare.
RASTER_CRS = "EPSG:32633"
PIXEL = 100.0
X0, Y1 = 586_500.0, 5_355_000.0  # upper-left corner
WIDTH, HEIGHT = 325, 260
NODATA = 0

# Places used to shape the synthetic images, in UTM 33N metres.
CENTRE_LONLAT = (16.3725, 48.2085)  # Stephansplatz
CENTRE = (601_968.0, 5_340_385.0)
DANUBE = [(586_000, 5_355_500), (593_000, 5_352_500), (598_500, 5_351_000),
          (600_593, 5_348_687), (602_340, 5_345_590), (604_247, 5_343_005),
          (611_419, 5_335_971), (612_576, 5_335_068), (620_000, 5_331_000)]
HILLS = [  # (x, y, height above the plain in m, radius in m)
    (596_100, 5_347_200, 350, 2200),  # Hermannskogel
    (599_000, 5_347_700, 300, 1600),  # Kahlenberg
    (592_500, 5_344_000, 290, 3000),  # Wienerwald around Hadersdorf
    (591_300, 5_336_000, 250, 3000),  # Lainzer Tiergarten
    (603_300, 5_335_000, 80, 1800),   # Laaer Berg
]
FOREST_PATCHES = [(611_000, 5_337_000, 1800), (605_000, 5_341_200, 900)]  # Lobau, Prater
CLOUD = (609_500, 5_332_500, 1800, 1100)  # centre and half-axes of the masked cloud
SEED = 20260101


# --------------------------------------------------------------------------- #
# Derived from OpenStreetMap
# --------------------------------------------------------------------------- #
def vienna(bench: Path) -> None:
    """Vienna's 23 districts and 49 monitoring stations, in WGS84 GeoJSON.

    The bench ships them in EPSG:31287 (MGI / Austria Lambert). We simplify
    the district outlines as a coverage (shared borders stay shared) by 15 m,
    and store both layers in EPSG:4326, as GeoJSON files normally are. That
    is exactly what makes the area "trap" of notebook 01 real.
    """
    src = bench / "spa-l1-vienna-pip-count" / "inputs"
    districts = gpd.read_file(src / "districts.geojson")
    districts["geometry"] = districts.geometry.simplify_coverage(15).make_valid()
    districts = districts[["district_code", "district_name", "geometry"]]
    districts.to_crs(4326).to_file(
        HERE / "vienna_districts.geojson", driver="GeoJSON", COORDINATE_PRECISION=6
    )
    stations = gpd.read_file(src / "stations.geojson")
    stations.to_crs(4326).to_file(
        HERE / "vienna_stations.geojson", driver="GeoJSON", COORDINATE_PRECISION=6
    )


def capetown(bench: Path) -> None:
    """Cape Town addresses and hospitals (GeoParquet, EPSG:4326), copied as is."""
    src = bench / "spa-l1-capetown-hospital-nn" / "inputs"
    for name in ("addresses", "hospitals"):
        gdf = gpd.read_parquet(src / f"{name}.parquet")
        gdf.to_parquet(HERE / f"capetown_{name}.parquet", index=False)


# --------------------------------------------------------------------------- #
# Synthetic rasters
# --------------------------------------------------------------------------- #
def _grid() -> tuple[np.ndarray, np.ndarray]:
    """Pixel-centre coordinates in UTM 33N."""
    xs = X0 + PIXEL * (np.arange(WIDTH) + 0.5)
    ys = Y1 - PIXEL * (np.arange(HEIGHT) + 0.5)
    return np.meshgrid(xs, ys)


def _smooth_noise(rng, sigma: float) -> np.ndarray:
    noise = gaussian_filter(rng.standard_normal((HEIGHT, WIDTH)), sigma)
    return noise / noise.std()


def _blob(x, y, cx, cy, r) -> np.ndarray:
    return np.exp(-((x - cx) ** 2 + (y - cy) ** 2) / (2 * r**2))


def rasters() -> None:
    rng = np.random.default_rng(SEED)
    x, y = _grid()
    dist_centre = np.hypot(x - CENTRE[0], y - CENTRE[1])
    d_danube = shapely.distance(shapely.points(x.ravel(), y.ravel()),
                                shapely.LineString(DANUBE)).reshape(x.shape)

    # --- elevation (m): the Danube plain, the Wienerwald hills in the west
    dem = 170 - 0.0004 * (x - CENTRE[0]) + 0.0003 * (y - CENTRE[1])
    hills = np.max([h * _blob(x, y, hx, hy, r) for hx, hy, h, r in HILLS], axis=0)
    dem += hills * (1 + 0.08 * _smooth_noise(rng, 3)) + 3 * _smooth_noise(rng, 2)
    valley = np.exp(-((d_danube / 400) ** 2))  # the river sits at about 158 m
    dem = valley * 158 + (1 - valley) * dem

    # --- land cover: the hills are wooded, fields in the east and south,
    # the city in between, the Danube.
    forest = np.clip((dem - 240) / 50 + 0.3 * _smooth_noise(rng, 2), 0, 1)
    for fx, fy, r in FOREST_PATCHES:
        forest = np.maximum(forest, np.clip(1.4 * _blob(x, y, fx, fy, r) - 0.2, 0, 1))
    urban = np.clip(1.5 * np.exp(-((dist_centre / 8500) ** 2)) - 0.1, 0, 1) * (1 - forest)
    farmland = np.clip(1 - forest - urban, 0, 1)
    water = d_danube < 180
    # Irregular field parcels (nearest of random seeds), each green crop or bare soil.
    seeds = np.column_stack([rng.uniform(X0, X0 + WIDTH * PIXEL, 900),
                             rng.uniform(Y1 - HEIGHT * PIXEL, Y1, 900)])
    _, parcel_id = cKDTree(seeds).query(np.column_stack([x.ravel(), y.ravel()]))
    greenness = rng.uniform(0, 1, len(seeds))[parcel_id].reshape(x.shape)
    green_urban = np.clip(0.25 + 0.12 * _smooth_noise(rng, 1.5), 0.05, 0.6)  # parks, trees

    # --- reflectances (0-1) per cover, mixed by the fractions
    veg = (0.04, 0.38)
    soil = (0.17, 0.25)
    built = (0.14, 0.20)
    crop_red = np.where(greenness > 0.4, 0.05, soil[0])
    crop_nir = np.where(greenness > 0.4, 0.28 + 0.12 * greenness, soil[1])
    town_red = green_urban * veg[0] + (1 - green_urban) * built[0]
    town_nir = green_urban * veg[1] + (1 - green_urban) * built[1]
    red = forest * veg[0] + farmland * crop_red + urban * town_red
    nir = forest * veg[1] + farmland * crop_nir + urban * town_nir
    red = np.where(water, 0.03, red) * (1 + 0.04 * rng.standard_normal(x.shape))
    nir = np.where(water, 0.015, nir) * (1 + 0.04 * rng.standard_normal(x.shape))
    red_dn = np.clip(np.round(red * 10000), 1, 10000).astype("uint16")
    nir_dn = np.clip(np.round(nir * 10000), 1, 10000).astype("uint16")

    # A masked cloud: both bands set to nodata over a small ellipse in the south-east.
    kx, ky, ax, ay = CLOUD
    cloud = ((x - kx) / ax) ** 2 + ((y - ky) / ay) ** 2 < 1
    red_dn[cloud] = NODATA
    nir_dn[cloud] = NODATA

    transform = from_origin(X0, Y1, PIXEL, PIXEL)
    profile = dict(driver="GTiff", width=WIDTH, height=HEIGHT, crs=RASTER_CRS,
                   transform=transform, compress="deflate", tiled=False)
    with rasterio.open(HERE / "vienna_s2_red_nir.tif", "w", count=2, dtype="uint16",
                       nodata=NODATA, predictor=2, **profile) as dst:
        dst.write(red_dn, 1)
        dst.write(nir_dn, 2)
        dst.set_band_description(1, "red (B04)")
        dst.set_band_description(2, "nir (B08)")
        dst.update_tags(
            SYNTHETIC="yes: made by examples/data/make_data.py, not a real image",
            SCALE="surface reflectance x 10000",
        )
    dem_q = (np.round(dem * 10) / 10).astype("float32")  # 0.1 m steps compress better
    with rasterio.open(HERE / "vienna_dem.tif", "w", count=1, dtype="float32",
                       nodata=-9999.0, predictor=3, **profile) as dst:
        dst.write(dem_q, 1)
        dst.set_band_description(1, "elevation (m)")
        dst.update_tags(SYNTHETIC="yes: made by examples/data/make_data.py, not a real DEM")


# --------------------------------------------------------------------------- #
# Synthetic time series
# --------------------------------------------------------------------------- #
def temperature() -> None:
    """Daily maximum temperature 2023-2024 on a 0.1° grid around Vienna (Kelvin)."""
    rng = np.random.default_rng(SEED + 1)
    time = pd.date_range("2023-01-01", "2024-12-31", freq="D")
    lat = np.round(np.arange(48.60, 47.89, -0.1), 2)  # north to south, as many products store it
    lon = np.round(np.arange(15.90, 16.85, 0.1), 2)
    doy = time.day_of_year.to_numpy()
    seasonal = 15.0 - 12.5 * np.cos(2 * np.pi * (doy - 18) / 365.25)  # °C, coldest mid-January

    # Weather: one AR(1) anomaly for the whole region + a little local noise.
    anomaly = np.zeros(len(time))
    shocks = rng.normal(0, 2.0, len(time))
    for i in range(1, len(time)):
        anomaly[i] = 0.75 * anomaly[i - 1] + shocks[i]
    # Two warm summers with a heat wave, as Vienna had them (shape only).
    for start, days, amp in [("2023-07-10", 12, 4.0), ("2024-07-01", 30, 5.0), ("2024-08-08", 14, 4.5)]:
        k = time.get_loc(pd.Timestamp(start))
        anomaly[k:k + days] += amp * np.sin(np.linspace(0, np.pi, days))

    la, lo = np.meshgrid(lat, lon, indexing="ij")
    # Colder in the west (Wienerwald, higher ground), an urban heat island in the city.
    spatial = -2.2 * np.clip((16.30 - lo) / 0.4, 0, 1) - 0.6 * (la - 48.2)
    spatial += 1.5 * np.exp(-(((lo - CENTRE_LONLAT[0]) / 0.08) ** 2 + ((la - CENTRE_LONLAT[1]) / 0.06) ** 2))
    local = rng.normal(0, 0.6, (len(time), len(lat), len(lon)))
    tmax_c = seasonal[:, None, None] + anomaly[:, None, None] + spatial[None] + local

    da = xr.DataArray(
        (tmax_c + 273.15).astype("float32"),
        dims=("time", "lat", "lon"),
        coords={"time": time, "lat": lat, "lon": lon},
        name="tasmax",
        attrs={"units": "K", "long_name": "daily maximum near-surface air temperature",
               "standard_name": "air_temperature"},
    )
    da.lat.attrs = {"units": "degrees_north", "standard_name": "latitude"}
    da.lon.attrs = {"units": "degrees_east", "standard_name": "longitude"}
    ds = da.to_dataset()
    ds.attrs = {
        "title": "Synthetic daily maximum temperature around Vienna, 2023-2024",
        "source": "SYNTHETIC: examples/data/make_data.py (seeded random numbers), not observations",
        "Conventions": "CF-1.8",
    }
    encoding = {"tasmax": {"dtype": "int16", "scale_factor": 0.01, "add_offset": 273.15,
                           "_FillValue": -32768}}
    ds.to_netcdf(HERE / "vienna_tasmax_2023_2024.nc", engine="scipy", encoding=encoding)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", type=Path, default=DEFAULT_BENCH,
                        help="GeoAgentBench development suite (for the OSM-derived files)")
    parser.add_argument("--synthetic-only", action="store_true")
    args = parser.parse_args()
    if not args.synthetic_only:
        vienna(args.bench)
        capetown(args.bench)
    rasters()
    temperature()
    for path in sorted(HERE.iterdir()):
        if path.suffix != ".py" and path.name != "README.md":
            print(f"{path.name:32s} {path.stat().st_size / 1024:8.1f} KB")


if __name__ == "__main__":
    main()
