"""A well-known name or module used without its import."""

from __future__ import annotations

import re
import sys

from .. import codeinfo
from .base import UNDEFINED_NAME, Diagnosis, Failure, Rule

_MODULE_ATTR = re.compile(r"module '([\w.]+)' has no attribute '([^']+)'")


class AddImport(Rule):
    """A conventional alias (``np``, ``gpd``...), a standard-library module used as one (``csv.writer``)
    or a submodule that ``import package`` does not load (``shapely.wkt``) is imported: before the
    code runs for the module aliases it uses, after a NameError or AttributeError for the rest."""

    strategy = "add_import"
    order = 150

    def before_run(self, code: str, bound_before: set[str]) -> str:
        return with_module_imports(code, bound_before) if code.strip() else code

    def diagnose(self, failure: Failure) -> Diagnosis | None:
        code = failure.code
        undefined = (
            UNDEFINED_NAME.search(failure.evalue) if failure.ename in ("NameError", "UnboundLocalError") else None
        )
        name = undefined.group(1) if undefined else None
        if name in KNOWN_IMPORTS:
            return self.diagnosis(failure, name=name, fixed_code=f"{KNOWN_IMPORTS[name]}\n{code}")
        if (
            name
            and name in sys.stdlib_module_names
            and not name.startswith("_")
            and re.search(rf"(?<![\w.]){name}\.\w", code)
        ):  # used as a module (``csv.writer(f)``): the standard library's
            return self.diagnosis(failure, name=name, fixed_code=f"import {name}\n{code}")
        attribute = _MODULE_ATTR.search(failure.evalue) if failure.ename == "AttributeError" else None
        submodule = ".".join(attribute.groups()) if attribute else None
        if submodule in KNOWN_SUBMODULES:
            return self.diagnosis(failure, name=submodule, fixed_code=f"import {submodule}\n{code}")
        return None

    def said(self, diagnosis: Diagnosis) -> str:
        return f"added `{(diagnosis.fixed_code or '').splitlines()[0]}`" if diagnosis.fixed_code else ""


KNOWN_IMPORTS = {
    "np": "import numpy as np",
    "pd": "import pandas as pd",
    "gpd": "import geopandas as gpd",
    "geopandas": "import geopandas",
    "numpy": "import numpy",
    "pandas": "import pandas",
    "pyarrow": "import pyarrow",
    "plt": "import matplotlib.pyplot as plt",
    "xr": "import xarray as xr",
    "rasterio": "import rasterio",
    "rioxarray": "import rioxarray",
    "shapely": "import shapely",
    "pyproj": "import pyproj",
    "pyogrio": "import pyogrio",
    "fiona": "import fiona",
    "pa": "import pyarrow as pa",
    "pq": "import pyarrow.parquet as pq",
    "re": "import re",
    "glob": "import glob",
    "warnings": "import warnings",
    "json": "import json",
    "os": "import os",
    "math": "import math",
    "Path": "from pathlib import Path",
    "Point": "from shapely.geometry import Point",
    "Polygon": "from shapely.geometry import Polygon",
    "LineString": "from shapely.geometry import LineString",
    "MultiPolygon": "from shapely.geometry import MultiPolygon",
    "MultiPoint": "from shapely.geometry import MultiPoint",
    "MultiLineString": "from shapely.geometry import MultiLineString",
    "GeometryCollection": "from shapely.geometry import GeometryCollection",
    "nearest_points": "from shapely.ops import nearest_points",
    "STRtree": "from shapely import STRtree",
    "box": "from shapely.geometry import box",
    "mapping": "from shapely.geometry import mapping",
    "shape": "from shapely.geometry import shape",
    "wkt": "from shapely import wkt",
    "make_valid": "from shapely.validation import make_valid",
    "unary_union": "from shapely.ops import unary_union",
    "CRS": "from pyproj import CRS",
    "Transformer": "from pyproj import Transformer",
    "Geod": "from pyproj import Geod",
    "leafmap": "import leafmap",
    "geemap": "import geemap",
    "mask": "from rasterio.mask import mask",
    "features": "from rasterio import features",
    "reproject": "from rasterio.warp import reproject",
    "Resampling": "from rasterio.enums import Resampling",
    "from_origin": "from rasterio.transform import from_origin",
    "from_bounds": "from rasterio.transform import from_bounds",
    "Window": "from rasterio.windows import Window",
}


# The conventional module aliases (``gpd``, ``pd``, ...): a step that uses one it never imports is
# given the import before it runs; small models drop the import line attempt after attempt.
MODULE_ALIASES = {name: line for name, line in KNOWN_IMPORTS.items() if line.startswith("import ")}


def with_module_imports(code: str, bound_before: set[str]) -> str:
    """``code`` with the import of each module alias it uses as ``alias.x`` that neither it nor an
    earlier step (``bound_before``) binds; the code as written otherwise."""
    bound = codeinfo.bound_names(code) | bound_before
    missing = [name for name in codeinfo.attribute_bases(code) if name in MODULE_ALIASES and name not in bound]
    return "\n".join(MODULE_ALIASES[name] for name in missing) + "\n" + code if missing else code


# Submodules that `import package` does not load: `package.sub` then fails with
# "module 'package' has no attribute 'sub'" and the fix is `import package.sub`.
KNOWN_SUBMODULES = {
    "shapely.wkt",
    "shapely.wkb",
    "shapely.ops",
    "shapely.affinity",
    "shapely.validation",
    "shapely.geometry",
    "shapely.strtree",
    "shapely.plotting",
    "rasterio.features",
    "rasterio.mask",
    "rasterio.warp",
    "rasterio.transform",
    "rasterio.enums",
    "rasterio.plot",
    "rasterio.merge",
    "rasterio.windows",
    "rasterio.crs",
    "rasterio.io",
    "pyproj.crs",
    "pyproj.transformer",
    "matplotlib.pyplot",
    "matplotlib.colors",
    "xarray.plot",
    "scipy.ndimage",
    "scipy.spatial",
    "scipy.stats",
    "os.path",
    "urllib.request",
}
