"""Which libraries the index covers, and how each is walked.

Why a table: every library exposes its API differently. Most are walked whole
(public modules, ``__all__`` respected); matplotlib is limited to the modules
analysts call, because its full surface would triple the index for little use;
rioxarray's API is its ``.rio`` accessor, recorded where users type it
(``xarray.DataArray.rio.reproject``).
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import metadata


@dataclass(frozen=True)
class LibrarySpec:
    name: str  # key in metadata, filters and the manifest
    dist: str  # distribution name, for the installed version
    module: str  # import name
    include: tuple[str, ...] = ()  # module prefixes to walk; empty = the whole package
    exclude: tuple[str, ...] = ()  # module prefixes never imported
    # (public path of the host class, accessor attribute, accessor class path)
    accessors: tuple[tuple[str, str, str], ...] = ()
    # classes that get every inherited in-library method recorded under their own path
    primary: tuple[str, ...] = ()
    # qualified names (and their members) never recorded: internal or rarely used surfaces
    skip: tuple[str, ...] = ()
    # False: record methods of primary classes only (others get just their class record)
    all_methods: bool = True


_COMMON_EXCLUDE = ("tests", "test", "testing", "conftest", "_version", "setup")

LIBRARIES: dict[str, LibrarySpec] = {
    spec.name: spec
    for spec in [
        LibrarySpec(
            "geopandas",
            "geopandas",
            "geopandas",
            exclude=("geopandas.io", "geopandas.array"),
            primary=("geopandas.GeoDataFrame", "geopandas.GeoSeries"),
        ),
        LibrarySpec(
            "shapely",
            "shapely",
            "shapely",
            exclude=("shapely.geos", "shapely.speedups", "shapely.vectorized", "shapely.lib"),
        ),
        # The ~60 projection-method classes of pyproj.crs.coordinate_operation (and the
        # datum/coordinate-system building blocks) would be 3/4 of pyproj's records.
        LibrarySpec(
            "pyproj",
            "pyproj",
            "pyproj",
            exclude=("pyproj.crs.coordinate_operation", "pyproj.crs.coordinate_system", "pyproj.crs.datum"),
        ),
        LibrarySpec(
            "rasterio", "rasterio", "rasterio", exclude=("rasterio.rio",), primary=("rasterio.io.DatasetReader",)
        ),
        LibrarySpec(
            "rioxarray",
            "rioxarray",
            "rioxarray",
            accessors=(
                ("xarray.DataArray", "rio", "rioxarray.raster_array.RasterArray"),
                ("xarray.Dataset", "rio", "rioxarray.raster_dataset.RasterDataset"),
            ),
        ),
        LibrarySpec(
            "xarray",
            "xarray",
            "xarray",
            include=(
                "xarray.core.groupby",
                "xarray.core.resample",
                "xarray.computation.rolling",
                "xarray.computation.weighted",
                "xarray.core.accessor_dt",
                "xarray.core.accessor_str",
                "xarray.plot",
                "xarray.groupers",
            ),
            primary=("xarray.DataArray", "xarray.Dataset"),
            skip=(
                "xarray.Variable",
                "xarray.IndexVariable",
                "xarray.NamedArray",
                "xarray.DataTree",
                "xarray.Coordinates",
            ),
        ),
        LibrarySpec(
            "xarray-spatial",
            "xarray-spatial",
            "xrspatial",
            exclude=(
                "xrspatial.datasets",
                "xrspatial.experimental",
                "xrspatial.gpu_rtx",
                "xrspatial.tests",
                "xrspatial.examples",
                "xrspatial.__main__",
            ),
        ),
        LibrarySpec(
            "leafmap",
            "leafmap",
            "leafmap",
            # the default (ipyleaflet) Map; the folium/maplibre/plotly flavours
            # repeat its method names with other signatures
            exclude=(
                "leafmap.toolbar",
                "leafmap.examples",
                "leafmap.download",
                "leafmap.pc",
                "leafmap.ai",
                "leafmap.foliumap",
                "leafmap.maplibregl",
                "leafmap.plotlymap",
                "leafmap.map_widgets",
            ),
            primary=("leafmap.Map",),
        ),
        LibrarySpec(
            "geemap",
            "geemap",
            "geemap",
            exclude=(
                "geemap.toolbar",
                "geemap.examples",
                "geemap.ai",
                "geemap.timelapse_gui",
                "geemap.cli",
                "geemap.foliumap",
                "geemap.maplibregl",
                "geemap.plotlymap",
                "geemap.map_widgets",
            ),
            primary=("geemap.Map",),
        ),
        LibrarySpec("pystac-client", "pystac-client", "pystac_client"),
        LibrarySpec(
            "matplotlib",
            "matplotlib",
            "matplotlib",
            include=(
                "matplotlib.pyplot",
                "matplotlib.axes",
                "matplotlib.figure",
                "matplotlib.colors",
                "matplotlib.colorbar",
                "matplotlib.cm",
                "matplotlib.patches",
                "matplotlib.legend",
                "matplotlib.ticker",
            ),
            primary=("matplotlib.axes.Axes", "matplotlib.figure.Figure"),
            all_methods=False,
        ),
    ]
}

DEFAULT_LIBRARIES: tuple[str, ...] = tuple(LIBRARIES)


def common_excluded(part: str) -> bool:
    """True for module path parts that are never API (private, tests, build helpers)."""
    return part.startswith("_") or part in _COMMON_EXCLUDE


def resolve(names) -> list[LibrarySpec]:
    """Specs for library names (accepts import names too); unknown names raise ValueError."""
    if names is None:
        return [LIBRARIES[n] for n in DEFAULT_LIBRARIES]
    if isinstance(names, str):
        names = [n for n in names.split(",") if n.strip()]
    names = list(names)
    by_module = {spec.module: spec for spec in LIBRARIES.values()}
    specs = []
    for raw in names:
        name = raw.strip()
        spec = LIBRARIES.get(name) or by_module.get(name) or LIBRARIES.get(name.replace("_", "-"))
        if spec is None:
            known = ", ".join(LIBRARIES)
            raise ValueError(f"unknown library {name!r}; known: {known}")
        if spec not in specs:
            specs.append(spec)
    return specs


def installed_version(spec: LibrarySpec) -> str | None:
    """The installed distribution's version, or None when it is not installed."""
    try:
        return metadata.version(spec.dist)
    except metadata.PackageNotFoundError:
        return None
