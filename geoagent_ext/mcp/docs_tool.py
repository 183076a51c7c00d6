"""MCP tool: the API docs GeoAgent's coder reads, from the server's chromadb index.

The index is harvested from the libraries installed beside the kernels (signatures, docstrings,
examples) plus curated recipes, and records the version each library had; a library upgraded
since is named, so an agent knows the docs may be behind the code.
"""

import asyncio
from typing import Annotated, Any

from fastmcp.exceptions import ToolError
from pydantic import Field

from .access import geoagent_services, geoagent_tool

TEXT_LIMIT = 2000  # characters of each record's text: signature, parameters, examples


def _search(index: Any, query: str, libraries: list[str] | None, k: int) -> tuple[list[Any], dict]:
    from ..rag import IndexUnavailable  # loaded already by the services' knowledge_index()

    try:
        records = index.retrieve(query, libraries, k=k)
    except IndexUnavailable as exc:
        raise ToolError(f"{exc}. Build it with `jupyter geoagent index build`.") from None
    return records, index.stale()


@geoagent_tool
async def geoagent_api_docs(
    query: Annotated[
        str,
        Field(
            min_length=1,
            max_length=2000,
            description="What you want to do or the API you "
            "look for: 'buffer polygons in metres', 'rioxarray reproject', 'GeoDataFrame.sjoin'.",
        ),
    ],
    libraries: Annotated[
        list[str] | None,
        Field(
            description="Restrict to these libraries (geopandas, shapely, pyproj, "
            "rasterio, rioxarray, xarray, leafmap...); default: all indexed."
        ),
    ] = None,
    k: Annotated[int, Field(ge=1, le=20, description="How many records.")] = 5,
) -> dict[str, Any]:
    """Search the API documentation of the geospatial libraries installed on this server (functions,
    classes and methods with their real signatures and docstrings, and task recipes), as
    indexed for the installed versions. Each record names its library version."""
    index = await geoagent_services().knowledge_index()
    if index is None:
        raise ToolError(
            "GeoAgent's API index is unavailable on this server (see the server log); "
            "build it with `jupyter geoagent index build`"
        )
    records, stale = await asyncio.to_thread(_search, index, query, libraries, k)
    return {
        "records": [
            {
                "name": r.qualified_name,
                "kind": r.kind,
                "library": r.library,
                "version": r.version,
                "signature": r.signature,
                "summary": r.summary,
                "text": r.text[:TEXT_LIMIT],
                "aliases": r.aliases,
            }
            for r in records
        ],
        "outdated": {name: f"indexed {old}, installed {new or 'none'}" for name, (old, new) in stale.items()},
    }
