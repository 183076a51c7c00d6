"""Incremental rebuilds, missing or corrupt stores, the CLI (small index, copied per test)."""

from __future__ import annotations

import json
import logging
from importlib import metadata

import pytest

from geoagent_ext.cli.main import main as cli_main
from geoagent_ext.config import GeoAgentSettings
from geoagent_ext.rag import IndexUnavailable, KnowledgeIndex

VERSION = metadata.version("pystac-client")
SMALL_LIBRARIES = ["pystac-client"]


def settings_for(path) -> GeoAgentSettings:
    return GeoAgentSettings(index_dir=str(path))


def _manifest(path):
    return json.loads((path / "manifest.json").read_text())


def test_noop_build_changes_nothing(small_index_dir, pristine_small_index):
    _, first = pristine_small_index
    assert set(first.rebuilt) == {"pystac-client", "corpus"}
    index = KnowledgeIndex.open(settings_for(small_index_dir), libraries=SMALL_LIBRARIES)
    report = index.build()
    assert report.rebuilt == [] and set(report.unchanged) == {"pystac-client", "corpus"}
    assert report.records == first.records and report.added == 0


def test_changed_library_version_is_reharvested(small_index_dir):
    manifest = _manifest(small_index_dir)
    manifest["libraries"]["pystac-client"] = "0.0.1"
    manifest["sources"]["pystac-client"]["version"] = "0.0.1"
    (small_index_dir / "manifest.json").write_text(json.dumps(manifest))
    records_before = manifest["records"]

    index = KnowledgeIndex.open(settings_for(small_index_dir), libraries=SMALL_LIBRARIES)
    assert index.stale() == {}  # nothing loaded yet
    report = index.build()
    assert report.rebuilt == ["pystac-client"] and "corpus" in report.unchanged
    assert report.removed == report.added > 50
    assert _manifest(small_index_dir)["libraries"]["pystac-client"] == VERSION
    assert _manifest(small_index_dir)["records"] == records_before
    assert index.lookup("pystac_client.Client.search").version == VERSION


def test_stale_versions_refresh_on_first_use(small_index_dir, caplog):
    manifest = _manifest(small_index_dir)
    manifest["libraries"]["pystac-client"] = "0.0.1"
    manifest["sources"]["pystac-client"]["version"] = "0.0.1"
    (small_index_dir / "manifest.json").write_text(json.dumps(manifest))
    index = KnowledgeIndex.open(settings_for(small_index_dir), libraries=SMALL_LIBRARIES)
    with caplog.at_level(logging.WARNING, logger="geoagent_ext.rag.index"):
        results = index.retrieve("search a STAC catalog for scenes", k=3)
    assert "pystac-client 0.0.1->" in caplog.text
    assert results and _manifest(small_index_dir)["libraries"]["pystac-client"] == VERSION


def test_corrupt_store_gives_clear_message_then_rebuilds(small_index_dir, caplog):
    (small_index_dir / "chroma.sqlite3").write_bytes(b"this is not a database" * 500)

    strict = KnowledgeIndex.open(settings_for(small_index_dir), auto_build=False)
    with pytest.raises(IndexUnavailable, match="cannot be opened .* rebuilt"):
        strict.retrieve("search a STAC catalog")

    index = KnowledgeIndex.open(settings_for(small_index_dir), libraries=SMALL_LIBRARIES)
    with caplog.at_level(logging.WARNING, logger="geoagent_ext.rag.index"):
        results = index.retrieve("search a STAC catalog for scenes", k=3)
    assert "cannot be opened" in caplog.text and "rebuilding" in caplog.text
    assert results and index.state == "ready"
    assert _manifest(small_index_dir)["libraries"] == {"pystac-client": VERSION}


def test_missing_manifest_rebuilds(small_index_dir):
    (small_index_dir / "manifest.json").unlink()
    index = KnowledgeIndex.open(settings_for(small_index_dir), libraries=SMALL_LIBRARIES)
    report = index.build()
    assert "no knowledge index" in report.reason
    assert set(report.rebuilt) == {"pystac-client", "corpus"}
    assert index.lookup("pystac_client.Client.open") is not None


def test_garbage_manifest_is_reported_as_corrupt(small_index_dir):
    (small_index_dir / "manifest.json").write_text("{not json")
    index = KnowledgeIndex.open(settings_for(small_index_dir), auto_build=False)
    with pytest.raises(IndexUnavailable, match="manifest .* is corrupt"):
        index.lookup("pystac_client.Client.open")


def test_cli_build_query_lookup(small_index_dir, capsys):
    config = ["--config", f"index_dir={small_index_dir}"]
    assert cli_main([*config, "index", "build", "--libraries", "pystac-client"]) == 0
    err = capsys.readouterr().err
    assert "pystac-client" in err and "unchanged" in err
    assert cli_main([*config, "index", "query", "search a STAC API", "-k", "2"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("1. [") and "pystac" in out
    assert cli_main([*config, "index", "lookup", "Client.open"]) == 0
    assert json.loads(capsys.readouterr().out)["qualified_name"] == "pystac_client.Client.open"
    assert cli_main([*config, "index", "lookup", "no.such.api"]) == 1


def test_cli_reports_a_missing_index(tmp_path, capsys):
    config = ["--config", f"index_dir={tmp_path / 'empty'}"]
    assert cli_main([*config, "index", "query", "anything"]) == 1
    assert "jupyter geoagent index build" in capsys.readouterr().err


def test_uninstalled_library_is_dropped_and_not_retried(small_index_dir, monkeypatch):
    import geoagent_ext.rag.index as index_module

    monkeypatch.setattr(index_module, "installed_version", lambda spec: None)
    index = KnowledgeIndex.open(settings_for(small_index_dir), libraries=SMALL_LIBRARIES)
    report = index.build()
    assert report.failed == {"pystac-client": "pystac-client is not installed"}
    assert report.removed > 50 and _manifest(small_index_dir)["libraries"] == {}
    assert index.lookup("pystac_client.Client.open") is None
    # the corpus follows the indexed libraries: nothing indexed, no recipes
    assert index.lookup("recipe/stac-search-load") is None
