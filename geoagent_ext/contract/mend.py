"""Mechanical mends: the code that makes a written file meet its failed requirements when the remedy
needs no judgement. Each requirement kind says how it is mended (``contract/kinds``: reproject,
put back the input's shapes, drop what the request discards, count, measure, cast, sort...); this
module reads the file back once, runs the kinds' lines in their order (geometry, then values
computed over the rows, then table edits), each in a ``try`` so one that cannot apply leaves the
others, and writes the file in the same format.

The agent appends it to the step that wrote the file (or runs it as the closing step) without
asking the model: a small model told "every feature is a MultiPolygon" often cannot write the
conversion, while the conversion has one right form. The mend changes only what the
requirements name; its trial and the contract's check on the real file decide whether it is
kept. Values whose computation needs a choice (areas in which CRS, lon/lat of what) stay the
model's, with their advice; values with one definition (points per polygon, a measure on the
ellipsoid, the nearest feature) are computed as their check computes them. A GeoPackage whose
layers the request names after geometry kinds ("points", "lines", "polygons") is read whole and
written back one kind per layer; with other layer names it gets no mend.
"""

from __future__ import annotations

from .formats import file_format
from .kinds import KINDS, MendSite
from .kinds._mending import GEO_READ
from .kinds.layers import layers_by_kind, split_by_kind
from .model import Contract, Requirement

_GEO_WRITE = {
    "geojson": "_mend.to_file({p!r}, driver='GeoJSON')",
    "gpkg": "_mend.to_file({p!r}, driver='GPKG')",
    "shp": "_mend.to_file({p!r}, driver='ESRI Shapefile')",
    "fgb": "_mend.to_file({p!r}, driver='FlatGeobuf')",
    "geoparquet": "_mend.to_parquet({p!r})",
}


# Tables: read so that a value is written back exactly as it was read.
_TABLE_READ = {"csv": "pd.read_csv({p!r}, dtype=str, keep_default_na=False)", "parquet": "pd.read_parquet({p!r})"}


_TABLE_WRITE = {"csv": "_mend.to_csv({p!r}, index=False)", "parquet": "_mend.to_parquet({p!r}, index=False)"}


# The kinds' mends: on a frame (name, needs geometry, mend) in the order their lines run; on a JSON document by name.
_FRAME_MENDS = [
    (k.name, k.geometry, k.mend)
    for k in sorted(KINDS.values(), key=lambda k: k.mend_order)
    if k.mend is not None and not k.mends_json
]
_JSON_MENDS = {k.name: k.mend for k in KINDS.values() if k.mend is not None and k.mends_json}


def mend_code(contract: Contract, path: str, failed: list[Requirement]) -> tuple[str, list[Requirement]] | None:
    """(code, the requirements it mends) for output ``path`` and its failed requirements, or None
    when none of them has a mechanical remedy in this file's format (a GeoPackage of several
    layers is left alone: the mend reads and writes one)."""
    fmt = file_format(path)
    if fmt == "json":
        return _json_mend(contract, path, failed)
    spatial = fmt in GEO_READ
    layers = next((r for r in contract.for_output(path) if r.kind == "layers"), None)
    by_kind = layers_by_kind([str(n) for n in layers.params.get("names") or []]) if layers is not None else None
    if (not spatial and fmt not in _TABLE_READ) or (layers is not None and (fmt != "gpkg" or by_kind is None)):
        return None
    lines: list[str] = []
    mended: list[Requirement] = [layers] if layers is not None and layers in failed else []
    columns = [str(n) for r in contract.for_output(path) if r.kind == "columns" for n in r.params.get("names") or []]
    site = MendSite(fmt=fmt, spatial=spatial, columns=tuple(columns))
    for kind, geometric, mend in _FRAME_MENDS:
        for req in [r for r in failed if r.kind == kind] + _rates_over(contract, path, mended, failed, kind):
            step = mend(req.params, site) if spatial or not geometric else []
            step = _on_layers(step, req.params.get("input_layers") or {})
            if step:
                lines += _tried(req, step)
                mended.append(req)
    if not mended:
        return None
    read, write = (GEO_READ[fmt], _GEO_WRITE[fmt]) if spatial else (_TABLE_READ[fmt], _TABLE_WRITE[fmt])
    read, write = read.format(p=path), write.format(p=path)
    if by_kind is not None:  # every layer, read as one frame, written back one geometry kind per layer
        read, write = split_by_kind(path, by_kind)
    counted = spatial or any(("gpd." in line or "shapely." in line) for line in lines)  # an input read, a geometry used
    code = "\n".join(
        [
            _heading(path, mended),
            *(["import geopandas as gpd", "import shapely"] if counted else []),
            "import pandas as pd",
            f"_mend = {read}",
            *lines,
            write,
            f"print('mended {path}:', len(_mend), 'rows')",
        ]
    )
    return code, mended


def _on_layers(step: list[str], layers: dict[str, str]) -> list[str]:
    """A mend's lines reading the layer of each input its requirement names (``input_layers``),
    not the file's first."""
    for path, layer in layers.items():
        read = f"gpd.read_file({path!r})"
        step = [line.replace(read, f"gpd.read_file({path!r}, layer={layer!r})") for line in step]
    return step


def _tried(req: Requirement, step: list[str]) -> list[str]:
    """One requirement's mend in a ``try``: one that cannot apply (a column the file lacks) leaves
    the others to apply."""
    return [
        "try:",
        *(f"    {line}" for line in step),
        "except Exception as _why:",
        f"    print('mend not applied ({req.kind}):', type(_why).__name__, _why)",
    ]


MEND_HEADING = "# Mend `"  # the first line of every mend's code


def _heading(path: str, mended: list[Requirement]) -> str:
    return f"{MEND_HEADING}{path}` for the contract: {'; '.join(r.text for r in mended)}"


def without_mends(code: str) -> str:
    """``code`` without the mends appended to it (from the first mend heading on): the model's own
    code, for its repair prompt (a model shown its code with the mend copies both). '' when it is
    all mend."""
    lines = code.splitlines()
    cut = next((i for i, line in enumerate(lines) if line.startswith(MEND_HEADING)), len(lines))
    return "\n".join(lines[:cut]).rstrip()


def _json_mend(contract: Contract, path: str, failed: list[Requirement]) -> tuple[str, list[Requirement]] | None:
    """A JSON document's mends: its values reshaped without changing one (a per-group object, a bbox)."""
    lines: list[str] = []
    mended: list[Requirement] = []
    for req in [r for r in failed if r.kind in _JSON_MENDS]:
        name = str(req.params.get("name") or "")
        same = tuple((r.kind, r.params) for r in contract.for_output(path) if r.params.get("name") == name)
        step = _JSON_MENDS[req.kind](req.params, MendSite(fmt="json", spatial=False, same_name=same))
        tried = _tried(req, step) if step else []
        if step and "\n".join(tried[1:-2]) not in "\n".join(lines):  # a bbox and its lon/lat: one mend
            lines += tried
        if step:
            mended.append(req)
    if not mended:
        return None
    code = "\n".join(
        [
            _heading(path, mended),
            "import json",
            "import geopandas as gpd",
            "import pandas as pd",
            f"with open({path!r}, encoding='utf-8') as _f:",
            "    _mend = json.load(_f)",
            *lines,
            f"with open({path!r}, 'w', encoding='utf-8') as _f:",
            "    json.dump(_mend, _f, indent=2)",
            f"print('mended {path}:', len(_mend), 'keys')",
        ]
    )
    return code, mended


def _rates_over(
    contract: Contract, path: str, mended: list[Requirement], failed: list[Requirement], kind: str
) -> list[Requirement]:
    """The rates over a count or a measure the mend has just recomputed: they held over the old
    values and would fail over the new ones."""
    if kind != "density":
        return []
    redone = {r.params.get("name") for r in mended if r.kind in ("point_counts", "measure_units")}
    return [
        r
        for r in contract.for_output(path)
        if r.kind == "density" and r not in failed and {r.params.get("count"), r.params.get("measure")} & redone
    ]
