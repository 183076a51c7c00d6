"""Read a deliverable (or reference) file into tables, strictly by its expected format.

A file that does not parse as the format the task asked for is a failed deliverable, so
readers check the driver (a GeoJSON named ``.gpkg`` does not pass) and raise ``ReadError``
with a short reason.
"""

from __future__ import annotations

import json
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

VECTOR_DRIVERS = {
    "geojson": ("GeoJSON",),
    "gpkg": ("GPKG",),
    "shp": ("ESRI Shapefile",),
    "kml": ("KML", "LIBKML"),
    "fgb": ("FlatGeobuf",),
    "gml": ("GML",),
}
PARQUET_FORMATS = ("parquet", "geoparquet")
MULTI_LAYER_FORMATS = ("gpkg", "kml", "gml")


class ReadError(Exception):
    """The file exists but does not parse as the expected format; the message says why."""


@dataclass
class Table:
    """One layer: attributes without geometry, the geometry column (shapely array) and CRS."""

    frame: pd.DataFrame
    geometry: np.ndarray | None = None
    crs: object | None = None  # pyproj.CRS
    types: dict[str, str] = field(default_factory=dict)  # column -> canonical type ('int32', 'timestamp[us]', ...)

    @property
    def spatial(self) -> bool:
        return self.geometry is not None

    def __len__(self) -> int:
        return len(self.frame)


# --- canonical column types -------------------------------------------------------------

ARROW_NAMES = {
    "double": "float64",
    "float": "float32",
    "halffloat": "float16",
    "large_string": "string",
    "string_view": "string",
    "large_utf8": "string",
    "utf8": "string",
    "large_binary": "binary",
    "date32[day]": "date",
    "date64[ms]": "date",
    "bool": "bool",
}


def arrow_type_name(arrow_type) -> str:
    text = str(arrow_type)
    if text.startswith("timestamp["):
        return text.split(",")[0].rstrip("]") + "]"  # drop the tz: unit only
    if text.startswith(("dictionary<",)):
        return "string" if "string" in text else "other"
    return ARROW_NAMES.get(text, text)


def pandas_type_name(series: pd.Series) -> str:
    dtype = series.dtype
    if isinstance(dtype, pd.DatetimeTZDtype):
        return f"timestamp[{dtype.unit}]"
    if pd.api.types.is_datetime64_any_dtype(dtype):
        return f"timestamp[{np.datetime_data(dtype)[0]}]"
    if pd.api.types.is_bool_dtype(dtype):
        return "bool"
    if pd.api.types.is_integer_dtype(dtype) or pd.api.types.is_float_dtype(dtype):
        return str(dtype).lower()  # int32, Int64 -> int64, float64
    if pd.api.types.is_string_dtype(dtype) and not pd.api.types.is_object_dtype(dtype):
        return "string"
    values = series.dropna()
    if len(values) == 0:
        return "string"
    kinds = {type(v) for v in values}
    if kinds <= {str}:
        return "string"
    import datetime as dt

    if all(issubclass(k, (dt.date, pd.Timestamp)) for k in kinds):
        return "date" if all(k is dt.date for k in kinds) else "timestamp[us]"
    if kinds <= {bytes}:
        return "binary"
    return "object"


def type_family(name: str) -> str:
    if name.startswith(("int", "uint")):
        return "int"
    if name.startswith("float") or name.startswith("decimal"):
        return "float"
    if name.startswith("timestamp") or name == "date":
        return "datetime"
    if name in ("bool", "string", "binary"):
        return name
    return "other"


# --- readers ------------------------------------------------------------------------------


def _table_from_frame(frame: pd.DataFrame, types: dict[str, str] | None = None) -> Table:
    import geopandas as gpd

    geometry = crs = None
    if isinstance(frame, gpd.GeoDataFrame) and frame._geometry_column_name in frame.columns:
        geometry = frame.geometry.to_numpy()
        crs = frame.crs
        frame = pd.DataFrame(frame.drop(columns=[frame._geometry_column_name]))
    frame = frame.reset_index(drop=True)
    types = {c: (types or {}).get(c) or pandas_type_name(frame[c]) for c in frame.columns}
    return Table(frame=frame, geometry=geometry, crs=crs, types=types)


def read_csv(path: Path) -> dict[str, Table]:
    try:
        frame = pd.read_csv(path, encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise ReadError("not UTF-8 text") from None
    except pd.errors.EmptyDataError:
        raise ReadError("empty CSV (no header)") from None
    except Exception as exc:
        raise ReadError(f"not a readable CSV: {exc}") from None
    return {"": _table_from_frame(frame)}


def read_parquet(path: Path, fmt: str) -> dict[str, Table]:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise ReadError("pyarrow is not installed, so Parquet cannot be read") from None
    try:
        schema = pq.read_schema(path)
    except Exception as exc:
        raise ReadError(f"not a Parquet file: {exc}") from None
    metadata = schema.metadata or {}
    types = {name: arrow_type_name(t) for name, t in zip(schema.names, schema.types)}
    if b"geo" in metadata:
        import geopandas as gpd

        try:
            frame = gpd.read_parquet(path)
        except Exception as exc:
            raise ReadError(f"GeoParquet does not load: {exc}") from None
    else:
        if fmt == "geoparquet":
            raise ReadError("Parquet without GeoParquet 'geo' metadata (plain pandas/pyarrow write, not GeoParquet)")
        try:
            frame = pd.read_parquet(path)
        except Exception as exc:
            raise ReadError(f"Parquet does not load: {exc}") from None
    return {"": _table_from_frame(frame, types)}


def read_vector(path: Path, fmt: str) -> dict[str, Table]:
    import geopandas as gpd
    import pyogrio

    try:
        layers = [str(name) for name, _ in pyogrio.list_layers(path)]
        driver = pyogrio.read_info(path, layer=layers[0])["driver"] if layers else None
    except Exception as exc:
        raise ReadError(f"not readable as {fmt}: {str(exc).splitlines()[0][:200]}") from None
    allowed = VECTOR_DRIVERS.get(fmt)
    if allowed and driver not in allowed:
        raise ReadError(f"expected a {fmt} file, GDAL reads it as {driver}")
    if not layers:
        raise ReadError("no layers")
    tables = {}
    for layer in layers:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                frame = gpd.read_file(path, layer=layer, engine="pyogrio")
        except Exception as exc:
            raise ReadError(f"layer {layer!r} does not load: {str(exc).splitlines()[0][:200]}") from None
        tables[layer] = _table_from_frame(frame)
    return tables


def read_tables(path: Path, fmt: str) -> dict[str, Table]:
    """Layer name -> Table ('' for single-table formats). Raises ReadError."""
    path = Path(path)
    if fmt == "csv":
        return read_csv(path)
    if fmt in PARQUET_FORMATS:
        return read_parquet(path, fmt)
    if fmt in VECTOR_DRIVERS:
        return read_vector(path, fmt)
    raise ReadError(f"no reader for format {fmt!r}")


def read_json(path: Path):
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise ReadError("not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise ReadError(f"invalid JSON: {exc}") from None


def column_names(path: Path) -> set[str]:
    """Attribute names of an input file, best effort (an unreadable input contributes none)."""
    suffix = path.suffix.lower()
    try:
        if suffix in (".csv", ".tsv", ".txt"):
            return set(pd.read_csv(path, nrows=0, sep=None if suffix != ".csv" else ",", engine="python").columns)
        if suffix in (".parquet", ".geoparquet"):
            import pyarrow.parquet as pq

            schema = pq.read_schema(path)
            geo = json.loads((schema.metadata or {}).get(b"geo", b"{}"))
            return set(schema.names) - set(geo.get("columns", {}))
        import pyogrio

        names: set[str] = set()
        for layer, _ in pyogrio.list_layers(path):
            names |= set(pyogrio.read_info(path, layer=layer)["fields"])
        return names
    except Exception:
        return set()
