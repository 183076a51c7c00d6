"""Shared fixtures. pytest-jupyter gives a real jupyter_server (``jp_fetch``)."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytest_jupyter.jupyter_server"]


@pytest.fixture
def geoagent_data_dir(tmp_path, monkeypatch):
    """Point GeoAgent's data dir at a temp dir so tests never touch the user's."""
    data = tmp_path / "geoagent-data"
    monkeypatch.setenv("GEOAGENT_DATA_DIR", str(data))
    return data


@pytest.fixture
def jp_server_config(geoagent_data_dir):
    return {"ServerApp": {"jpserver_extensions": {"geoagent_ext": True}}}
