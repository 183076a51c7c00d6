"""The API-docs tool over a real chromadb index of the installed shapely, through a real MCP client."""

from __future__ import annotations

from importlib import metadata

import pytest


@pytest.fixture
def index_dir(shapely_index):
    return shapely_index


async def test_api_docs_come_from_the_index_for_the_installed_version(mcp):
    docs = await mcp.ok("geoagent_api_docs", query="buffer a geometry by a distance", libraries=["shapely"], k=5)
    buffer = next(r for r in docs["records"] if r["name"] == "shapely.buffer")
    assert buffer["version"] == metadata.version("shapely") and buffer["library"] == "shapely"
    assert buffer["signature"].startswith("(geometry, distance") and "quad_segs" in buffer["text"]
    assert docs["outdated"] == {}
    _, error = await mcp.call("geoagent_api_docs", query="buffer", libraries=["no-such-library"])
    assert "no-such-library" in error
