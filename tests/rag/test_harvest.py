"""Harvesting the installed libraries in child processes."""

from __future__ import annotations

from importlib import metadata

from geoagent_ext.rag.harvest import harvest
from geoagent_ext.rag.libraries import LIBRARIES, LibrarySpec


def test_shapely_records_are_public_version_true_and_documented():
    result = harvest(LIBRARIES["shapely"])
    assert result.error == ""
    assert result.version == metadata.version("shapely")
    by_name = {r.qualified_name: r for r in result.records}
    buffer = by_name["shapely.buffer"]  # canonical top-level path, not shapely.constructive
    assert "shapely.constructive.buffer" not in by_name
    assert buffer.kind == "function" and buffer.signature.startswith("(geometry, distance")
    assert "buffer" in buffer.summary.lower()
    assert any(p.startswith("distance") for p in buffer.parameters)
    assert ">>>" in buffer.examples
    assert by_name["shapely.Polygon"].kind == "class"
    assert by_name["shapely.union_all"].kind == "function"  # not its alias unary_union
    for name in by_name:
        parts = name.split(".")
        assert not any(p.startswith("_") for p in parts), name
        assert "tests" not in parts, name
    assert all(r.version == result.version and r.library == "shapely" for r in result.records)


def test_accessor_methods_are_recorded_where_users_type_them():
    result = harvest(LIBRARIES["rioxarray"])
    names = {r.qualified_name for r in result.records}
    assert {
        "xarray.DataArray.rio.reproject",
        "xarray.DataArray.rio.clip",
        "xarray.Dataset.rio.reproject",
        "rioxarray.open_rasterio",
    } <= names
    assert not any(n.startswith("rioxarray.raster_array.RasterArray") for n in names)


def test_a_broken_library_does_not_raise():
    broken = LibrarySpec("broken", "shapely", "geoagent_no_such_module")
    result = harvest(broken)
    assert result.records == [] and "harvest failed" in result.error
    assert "No module named 'geoagent_no_such_module'" in result.error


def test_missing_distribution_and_timeout_are_reported():
    missing = harvest(LibrarySpec("nope", "geoagent-not-installed", "nope"))
    assert missing.error == "geoagent-not-installed is not installed"
    slow = harvest(LIBRARIES["shapely"], timeout=0.01)
    assert "timed out" in slow.error
