"""KnowledgeIndex on real chromadb stores: build, retrieval, filters, lookup, intros."""

from __future__ import annotations

import json
from importlib import metadata

import pytest

from geoagent_ext.config import GeoAgentSettings
from geoagent_ext.rag import ApiRecord, KnowledgeIndex
from geoagent_ext.status import index_state


def settings_for(path) -> GeoAgentSettings:
    return GeoAgentSettings(index_dir=str(path))


def names(records: list[ApiRecord]) -> list[str]:
    return [n for r in records for n in [r.qualified_name, *r.aliases]]


def test_build_writes_manifest_read_by_status(geo_index):
    settings = settings_for(geo_index.store.index_dir)
    manifest = json.loads((geo_index.store.index_dir / "manifest.json").read_text())
    assert manifest["libraries"] == {"shapely": metadata.version("shapely"), "geopandas": metadata.version("geopandas")}
    assert manifest["records"] == geo_index.store.collection().count() > 500
    state = index_state(settings)
    assert state["state"] == "ready" and state["records"] == manifest["records"]
    assert state["libraries"] == manifest["libraries"]


@pytest.mark.parametrize(
    "query, expected",
    [
        ("reproject the parcels to a metric CRS", "geopandas.GeoDataFrame.to_crs"),
        ("fix self-intersecting polygons", "shapely.make_valid"),
        ("which district is each clinic in", "geopandas.sjoin"),
        ("nearest fire station to each house", "geopandas.sjoin_nearest"),
        ("merge municipalities into regions and sum population", "geopandas.GeoDataFrame.dissolve"),
    ],
)
def test_hybrid_retrieval_finds_the_api(geo_index, query, expected):
    """Covered by an API record or by a recipe that uses it (what the generator reads)."""
    results = geo_index.retrieve(query, k=5)
    covered = names(results) + [a for r in results if r.kind == "recipe" for a in r.apis]
    assert expected in covered, [r.qualified_name for r in results]
    assert results[0].score >= results[-1].score > 0


def test_api_records_alone_find_to_crs(geo_index):
    results = geo_index.retrieve("reproject the parcels to a metric CRS", k=5, kinds=("function", "class", "method"))
    assert "geopandas.GeoDataFrame.to_crs" in names(results), [r.qualified_name for r in results]
    assert all(r.kind != "recipe" for r in results)


def test_methods_give_different_rankings(geo_index):
    query = "reproject the parcels to a metric CRS"
    emb = [r.id for r in geo_index.retrieve(query, k=10, method="embedding")]
    lex = [r.id for r in geo_index.retrieve(query, k=10, method="lexical")]
    assert emb and lex and emb != lex
    with pytest.raises(ValueError):
        geo_index.retrieve(query, method="psychic")
    assert geo_index.retrieve("   ") == []


def test_library_filter(geo_index):
    only_shapely = geo_index.retrieve("buffer each point by 100 metres", libraries=["shapely"], k=8)
    assert only_shapely and all("shapely" in r.libraries for r in only_shapely)
    only_gpd = geo_index.retrieve("buffer each point by 100 metres", libraries="geopandas", k=8)
    assert only_gpd and all("geopandas" in r.libraries for r in only_gpd)
    assert any(r.qualified_name.startswith("geopandas.") for r in only_gpd)
    both = geo_index.retrieve("buffer", libraries=["shapely", "geopandas"], k=10)
    assert {r.library for r in both} <= {"shapely", "geopandas"}


def test_duplicate_apis_fold_into_aliases(geo_index):
    results = geo_index.retrieve("buffer geometries by a distance", libraries=["geopandas"], k=5, kinds=("method",))
    buffers = [r for r in results if r.qualified_name.endswith(".buffer")]
    assert len(buffers) == 1 and buffers[0].aliases  # GeoSeries.buffer + GeoDataFrame.buffer


def test_recipes_are_retrieved_with_code(geo_index):
    results = geo_index.retrieve("area of polygons in square kilometres from lat lon data", k=5)
    recipes = [r for r in results if r.kind == "recipe"]
    assert recipes, [r.qualified_name for r in results]
    assert "```python" in recipes[0].text and recipes[0].apis


def test_lookup(geo_index):
    exact = geo_index.lookup("geopandas.GeoDataFrame.to_crs")
    assert exact.kind == "method" and "crs" in exact.signature
    assert exact.version == metadata.version("geopandas")
    assert "Transform geometries" in exact.summary and "Parameters:" in exact.text
    assert geo_index.lookup("GeoDataFrame.to_crs").qualified_name == exact.qualified_name
    assert geo_index.lookup("shapely.buffer").kind == "function"
    assert geo_index.lookup("recipe/buffer-in-metres").kind == "recipe"
    assert geo_index.lookup("geopandas.no_such_thing") is None


def test_intros(geo_index):
    intros = geo_index.intros(["geopandas", "shapely"])
    assert set(intros) == {"geopandas", "shapely"}
    assert "GeoDataFrame" in intros["geopandas"] and "make_valid" in intros["shapely"]
    assert set(geo_index.intros()) == {"geopandas", "shapely"}  # what this index holds


def test_intros_fall_back_to_the_corpus_without_an_index(tmp_path):
    index = KnowledgeIndex.open(settings_for(tmp_path / "none"), auto_build=False)
    intros = index.intros(["rasterio"])
    assert "rasterio.open" in intros["rasterio"]
