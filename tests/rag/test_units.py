"""Pure helpers: docstring parsing, tokenising, fusion, records, library table."""

from __future__ import annotations

import pytest

from geoagent_ext.rag.docstrings import parse_docstring
from geoagent_ext.rag.fusion import reciprocal_rank_fusion
from geoagent_ext.rag.lexical import LexicalIndex, tokenize
from geoagent_ext.rag.libraries import DEFAULT_LIBRARIES, resolve
from geoagent_ext.rag.records import ApiRecord, split_identifier_words

NUMPY_DOC = """Compute the buffer of a geometry.

Longer explanation here.

Parameters
----------
geometry : Geometry or array_like
distance : float
    In CRS units.

Examples
--------
>>> from shapely import Point
>>> buffer(Point(0, 0), 1.0).area
3.1365...
"""

GOOGLE_DOC = """Adds a basemap to the map.

Args:
    basemap (str): Name of the basemap.
    visible (bool, optional): Whether visible.
"""


def test_numpydoc_summary_parameters_examples():
    info = parse_docstring(NUMPY_DOC)
    assert info.summary == "Compute the buffer of a geometry."
    assert info.parameters == ["geometry: Geometry or array_like", "distance: float"]
    assert info.examples.splitlines() == [">>> from shapely import Point", ">>> buffer(Point(0, 0), 1.0).area"]


def test_google_style_parameters():
    info = parse_docstring(GOOGLE_DOC)
    assert info.summary == "Adds a basemap to the map."
    assert [p.split(":")[0] for p in info.parameters] == ["basemap", "visible"]


def test_empty_docstring():
    assert parse_docstring(None).summary == ""


def test_identifier_words_and_tokens():
    assert split_identifier_words("geopandas.GeoDataFrame.to_crs") == ["geopandas", "Geo", "Data", "Frame", "to", "crs"]
    tokens = tokenize("Clipping geometries with GeoDataFrame.to_crs")
    assert {"clip", "geometry", "geodataframe", "to_crs", "crs"} <= set(tokens)
    assert "with" not in tokens


def test_rrf_prefers_items_both_rankings_like():
    fused = [item for item, _ in reciprocal_rank_fusion([["a", "b"], ["c", "b", "d"]])]
    assert fused[0] == "b"  # 2nd in both beats 1st in one
    assert set(fused) == {"a", "b", "c", "d"}
    with pytest.raises(ValueError):
        reciprocal_rank_fusion([["a"]], weights=[1.0, 2.0])


def _record(name, summary, library="geopandas"):
    return ApiRecord(
        id=ApiRecord.make_id("function", name),
        qualified_name=name,
        library=library,
        version="1",
        kind="function",
        summary=summary,
        libraries=[library],
    )


def test_lexical_index_finds_names_and_filters_by_library():
    records = [
        _record("geopandas.sjoin", "Spatial join of two GeoDataFrames."),
        _record("geopandas.clip", "Clip points, lines, or polygon geometries to the mask extent."),
        _record("shapely.clip_by_rect", "Returns the portion of a geometry within a rectangle.", "shapely"),
    ]
    lexical = LexicalIndex(records)
    assert lexical.ids[lexical.search("sjoin")[0][0]] == "function:geopandas.sjoin"
    hits = lexical.search("clip geometries", libraries=["shapely"])
    assert [lexical.ids[i] for i, _ in hits] == ["function:shapely.clip_by_rect"]
    assert lexical.search("zzzz-unknown") == []


def test_metadata_round_trip_keeps_lists():
    record = ApiRecord(
        id="recipe:x",
        qualified_name="recipe/x",
        library="geopandas",
        version="v",
        kind="recipe",
        libraries=["geopandas", "rasterio"],
        apis=["rasterio.mask.mask", "geopandas.GeoDataFrame.to_crs"],
        text="t",
    )
    meta = record.to_metadata()
    assert meta["lib_geopandas"] is True and meta["lib_rasterio"] is True
    back = ApiRecord.from_chroma(record.id, record.text, meta)
    assert back.libraries == record.libraries and back.apis == record.apis


def test_library_names_resolve():
    assert [s.name for s in resolve("xrspatial,pystac_client")] == ["xarray-spatial", "pystac-client"]
    assert len(resolve(None)) == len(DEFAULT_LIBRARIES) == 11
    with pytest.raises(ValueError, match="unknown library 'arcpy'"):
        resolve(["arcpy"])
