"""Real chromadb stores in temp dirs, real MiniLM embeddings, small library subsets.

Two indexes are built once per session and shared by read-only tests:
``geo_index`` (shapely + geopandas + their corpus records) for retrieval and
lookup, and a pristine ``pystac-client`` index that mutation tests copy before
editing, corrupting or rebuilding it.
"""

from __future__ import annotations

import os
import shutil

import pytest

os.environ.setdefault("MPLBACKEND", "Agg")

from geoagent_ext.config import GeoAgentSettings  # noqa: E402
from geoagent_ext.rag import KnowledgeIndex  # noqa: E402

GEO_LIBRARIES = ["shapely", "geopandas"]
SMALL_LIBRARIES = ["pystac-client"]


def settings_for(path) -> GeoAgentSettings:
    return GeoAgentSettings(index_dir=str(path))


@pytest.fixture(scope="session")
def geo_index(tmp_path_factory):
    path = tmp_path_factory.mktemp("geo-index")
    index = KnowledgeIndex.open(settings_for(path), libraries=GEO_LIBRARIES)
    report = index.build()
    assert not report.failed, report.failed
    yield index
    index.close()


@pytest.fixture(scope="session")
def pristine_small_index(tmp_path_factory):
    path = tmp_path_factory.mktemp("small-index")
    index = KnowledgeIndex.open(settings_for(path), libraries=SMALL_LIBRARIES)
    report = index.build()
    assert not report.failed, report.failed
    index.close()
    return path, report


@pytest.fixture
def small_index_dir(pristine_small_index, tmp_path):
    """A private copy of the small index that a test may modify."""
    source, _ = pristine_small_index
    target = tmp_path / "index"
    shutil.copytree(source, target)
    return target
