"""What a task asks for, read generally from task.json: expected outputs and instruction cues.

Graders never know task ids; everything task-specific comes from here and from the
reference files.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path

GEOMETRY_TYPES = (
    "Point",
    "MultiPoint",
    "LineString",
    "MultiLineString",
    "Polygon",
    "MultiPolygon",
    "GeometryCollection",
)

FORMAT_ALIASES = {
    "geojson": "geojson",
    "json": "json",
    "csv": "csv",
    "gpkg": "gpkg",
    "geopackage": "gpkg",
    "geoparquet": "geoparquet",
    "parquet": "parquet",
    "shp": "shp",
    "shapefile": "shp",
    "esri shapefile": "shp",
    "kml": "kml",
    "fgb": "fgb",
    "flatgeobuf": "fgb",
    "gml": "gml",
}
EXTENSION_FORMATS = {
    ".geojson": "geojson",
    ".json": "json",
    ".csv": "csv",
    ".gpkg": "gpkg",
    ".geoparquet": "geoparquet",
    ".parquet": "parquet",
    ".shp": "shp",
    ".kml": "kml",
    ".fgb": "fgb",
    ".gml": "gml",
}

# Sorting cues: an explicit sort/rank/order-by, or a top-N ranking.
SORT_PATTERN = re.compile(
    r"\b(sort(ed|ing)?|rank(ed|ing)?|order(ed)?\s+by|ascending|descending|top\s+\d+)\b", re.IGNORECASE
)
# Words that pin the geometry variant down ("MultiLineString", "single-part", "explode").
VARIANT_WORDS = re.compile(r"\b(single[- ]?part|multi[- ]?part|explode[sd]?)\b", re.IGNORECASE)


def normalise_format(fmt: str | None, name: str) -> str:
    key = (fmt or "").strip().lower()
    if key in FORMAT_ALIASES:
        return FORMAT_ALIASES[key]
    return EXTENSION_FORMATS.get(Path(name).suffix.lower(), key or "unknown")


def parse_geometry_type(value: str | None) -> str | None:
    """A valid OGC type name, else None ('Mixed (...)', 'n/a', null mean: use the reference's)."""
    if not value:
        return None
    for name in GEOMETRY_TYPES:
        if value.strip().lower() == name.lower():
            return name
    return None


def parse_crs(value):
    """A pyproj CRS from task.json's ``crs`` ('EPSG:4326'), or None for null / 'n/a' / unparsable."""
    if not value or not isinstance(value, (str, int)):
        return None
    from pyproj import CRS

    try:
        return CRS.from_user_input(value)
    except Exception:
        return None


@dataclass
class ExpectedOutput:
    name: str
    format: str
    crs: object | None = None  # pyproj.CRS
    crs_text: str | None = None
    geometry_type: str | None = None


@dataclass
class TaskSpec:
    task_id: str
    instruction: str
    outputs: list[ExpectedOutput]
    task_dir: Path
    raw: dict = field(default_factory=dict, repr=False)

    @classmethod
    def load(cls, task_dir: Path) -> TaskSpec:
        task_dir = Path(task_dir).resolve()
        path = task_dir / "task.json"
        if not path.exists():
            raise FileNotFoundError(f"no task.json in {task_dir}")
        return _load_cached(str(task_dir), path.stat().st_mtime_ns)

    @classmethod
    def _from_dir(cls, task_dir: Path) -> TaskSpec:
        path = task_dir / "task.json"
        raw = json.loads(path.read_text(encoding="utf-8"))
        outputs = []
        for item in raw.get("expected_outputs") or []:
            name = item["name"]
            crs_text = item.get("crs")
            outputs.append(
                ExpectedOutput(
                    name=name,
                    format=normalise_format(item.get("format"), name),
                    crs=parse_crs(crs_text),
                    crs_text=crs_text if isinstance(crs_text, str) else None,
                    geometry_type=parse_geometry_type(item.get("geometry_type")),
                )
            )
        return cls(
            task_id=raw.get("task_id") or task_dir.name,
            instruction=raw.get("instruction") or "",
            outputs=outputs,
            task_dir=task_dir,
            raw=raw,
        )

    def mentions(self, word: str) -> bool:
        """True if the instruction names ``word`` as a whole token (column names, exact case)."""
        return re.search(rf"(?<![\w]){re.escape(word)}(?![\w])", self.instruction) is not None

    @property
    def sort_requested(self) -> bool:
        return SORT_PATTERN.search(self.instruction) is not None

    def allows_single_multi(self, family: str) -> bool:
        """Whether Polygon and MultiPolygon (etc.) are interchangeable for this task.

        Allowed when the instruction offers both ('Polygon or MultiPolygon'), or when it names
        no geometry variant at all; not when it names one ('MultiLineString', 'Polygon',
        'single-part'), since then the variant is part of the request."""
        single, multi = family, f"Multi{family}"
        both = rf"\b({single}\s+or\s+{multi}|{multi}\s+or\s+{single})\b"
        if re.search(both, self.instruction):
            return True
        named = any(re.search(rf"\b{name}\b", self.instruction) for name in GEOMETRY_TYPES)
        return not named and not VARIANT_WORDS.search(self.instruction)

    @cached_property
    def input_columns(self) -> set[str]:
        """Attribute names of every readable input file (columns a deliverable carries through)."""
        from .readers import column_names

        names: set[str] = set()
        inputs = self.task_dir / "inputs"
        if inputs.is_dir():
            for path in sorted(inputs.rglob("*")):
                if path.is_file():
                    names |= column_names(path)
        return names


@lru_cache(maxsize=128)
def _load_cached(task_dir: str, mtime_ns: int) -> TaskSpec:
    """Parsed task.json (and, lazily, input column names), cached per task.json version."""
    return TaskSpec._from_dir(Path(task_dir))
