"""MCP tools that look into a notebook's live kernel: its data, an object's members, CRS advice,
and a deliverable checked against what the request asked for.

Each goes through the run manager's kernel service, so calls queue behind a running cell and
the agent's own calls to that kernel (one at a time per kernel), and only GeoAgent's silent
probes run: nothing lands in the notebook's history or namespace. Paths are the kernel's,
relative to the notebook's folder.
"""

import posixpath
import re
from typing import Annotated, Any, Literal

from fastmcp.exceptions import ToolError
from pydantic import Field

from ..agent.deliverables import DeliverableChecks, check_delivered
from ..agent.kernel_handle import BoundKernel, format_variables
from ..agent.probes import format_files, run_probe
from ..kernel import ProbeError
from .access import geoagent_services, geoagent_tool

Notebook = Annotated[
    str | None,
    Field(
        description="Notebook path relative to the Jupyter server root (its kernel must be running); "
        "default: the notebook active in JupyterLab."
    ),
]

_NAME = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")
_DATA_EXT = re.compile(
    r"\.(geojson|gpkg|shp|fgb|kml|gml|json|parquet|geoparquet|topojson|tif|tiff|vrt|img|jp2|asc"
    r"|csv|tsv|txt|xlsx|nc|zarr|grib)$",
    re.IGNORECASE,
)


def notebook_or_active(manager: Any, notebook_path: str | None) -> str:
    """The notebook a call names, else the one active in JupyterLab (as the panel reports it)."""
    path = notebook_path or manager.active_notebook
    if not path:
        raise ToolError("no notebook is active in JupyterLab: give notebook_path (relative to the server root)")
    return path


async def _kernel(notebook_path: str | None) -> tuple[str, BoundKernel]:
    """The notebook and its kernel, as the run manager finds it."""
    manager = geoagent_services().run_manager
    path = notebook_or_active(manager, notebook_path)
    kernel_id = await manager.kernel_for(notebook_path=path)
    return path, BoundKernel(manager.kernels, kernel_id)


def _relative(path: str) -> str:
    """A data path inside the notebook's folder: no absolute path, no way up."""
    clean = posixpath.normpath(path.strip())
    if posixpath.isabs(clean) or clean == ".." or clean.startswith("../"):
        raise ToolError(f"{path!r}: give a path relative to the notebook's folder, inside it")
    return clean


@geoagent_tool
async def geoagent_profile_data(
    target: Annotated[
        str,
        Field(
            description="A kernel variable (gdf, ds.band_1) or a data file (data/parcels.gpkg); "
            "empty: every data file in the notebook's folder and the kernel's variables."
        ),
    ] = "",
    notebook_path: Notebook = None,
) -> dict[str, Any]:
    """Profile geospatial data as GeoAgent's planner sees it: CRS and its units, bounds, geometry
    types, columns with dtypes, raster bands, shape and nodata. Reads a kernel variable in place
    (nothing is called or changed) or a file's metadata; use it before writing code on the data."""
    notebook, kernel = await _kernel(notebook_path)
    target = target.strip()
    if not target:
        files = format_files(await run_probe(kernel, "profile_files", "."))
        variables = format_variables(await kernel.variables())
        return {"notebook": notebook, "files": files, "variables": variables}
    if _NAME.fullmatch(target) and not _DATA_EXT.search(target):
        try:
            return {"notebook": notebook, "variable": target, "profile": await kernel.profile(target)}
        except ProbeError as exc:
            if exc.ename != "NameError":
                raise ToolError(f"could not profile {target!r}: {exc}") from None
    path = _relative(target)
    text = await run_probe(kernel, "profile_file", path)
    if not text:
        raise ToolError(
            f"{target!r} is neither a variable in the kernel nor a data file GeoAgent reads "
            "(vector, raster, table or array formats)"
        )
    return {"notebook": notebook, "file": path, "profile": text}


@geoagent_tool
async def geoagent_members(
    expression: Annotated[
        str,
        Field(
            description="A variable or attribute chain in the kernel: gdf, gdf.geometry, "
            "ds.rio, rasterio (looked up as in a cell; calls, subscripts and operators are refused)."
        ),
    ],
    notebook_path: Notebook = None,
    include_private: Annotated[bool, Field(description="Also list names starting with '_'.")] = False,
) -> dict[str, Any]:
    """The real members of a live object in the notebook's kernel, with call signatures and the
    first docstring line: the installed library's API as it is, not as a model remembers it.
    Use it before calling a method you are unsure of (names and attributes are looked up; no expression
    is evaluated)."""
    notebook, kernel = await _kernel(notebook_path)
    found = await kernel.service.members(kernel.kernel_id, expression, include_private=include_private)
    return {"notebook": notebook, "expression": expression, "members": [m.model_dump() for m in found]}


@geoagent_tool
async def geoagent_crs_advice(
    layer: Annotated[
        str,
        Field(
            description="A layer file (data/roads.gpkg, a GeoTIFF) or a kernel variable "
            "(GeoDataFrame, GeoSeries, DataArray with a CRS)."
        ),
    ],
    purpose: Annotated[
        Literal["area", "distance", "display", "official", "same"],
        Field(
            description="area: equal-area; distance: buffers, nearest, lengths; display: web map; "
            "official: the region's national grid; same: the layer's own CRS and units."
        ),
    ] = "distance",
    notebook_path: Notebook = None,
    limit: Annotated[int, Field(ge=1, le=10, description="How many CRSs to rank.")] = 3,
) -> dict[str, Any]:
    """Which projected CRS to use for a layer and a purpose, ranked from pyproj's EPSG database
    for the data's own extent (distortion at the data, units, datum, official national grids),
    each with its units and why. Use it before measuring areas, distances or buffers."""
    notebook, kernel = await _kernel(notebook_path)
    target = layer if _NAME.fullmatch(layer) and not _DATA_EXT.search(layer) else _relative(layer)
    answers = await kernel.service.advise_crs(kernel.kernel_id, target, [purpose], limit=limit)
    answer = answers.get(purpose) if isinstance(answers, dict) else answers
    if isinstance(answer, str):  # the advisor's sentence: no extent, no CRS, unreadable file
        raise ToolError(answer)
    return {"notebook": notebook, "layer": layer, "purpose": purpose, "ranked": answer or []}


@geoagent_tool
async def geoagent_check_deliverable(
    request: Annotated[
        str,
        Field(
            description="The request in plain words, as the user gave it: the output files, "
            "their columns or keys, CRS, geometry types, sorting..."
        ),
    ],
    outputs: Annotated[
        list[str],
        Field(
            min_length=1,
            max_length=20,
            description="The output files to check "
            "(paths as the request names them, relative to the notebook's folder).",
        ),
    ],
    notebook_path: Notebook = None,
) -> dict[str, Any]:
    """Check written output files against what the request asks of them (GeoAgent's deliverable
    contract): format, named columns/keys and where they come from, CRS, geometry types, integers,
    lon/lat, sorting, one row per input feature... each read back from disk, with what was seen and
    how to fix what fails. Requirements no code can check are listed as not verified."""
    notebook, kernel = await _kernel(notebook_path)
    checks, pairs, advice = await check_delivered(kernel, request, [_relative(o) for o in outputs])
    results = [
        {"output": req.output, "requirement": req.text, "passed": res.passed, "seen": res.observed}
        for req, res in pairs
    ]
    return {
        "notebook": notebook,
        "passed": bool(pairs) and all(res.passed for _, res in pairs),
        "results": results,
        "fix": DeliverableChecks.failures(pairs, advice=advice.for_purpose),
        "not_verified": checks.not_verified(),
    }
