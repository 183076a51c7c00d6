"""Shared fixtures. pytest-jupyter gives a real jupyter_server (``jp_fetch``)."""

from __future__ import annotations

import os

import pytest

pytest_plugins = ["pytest_jupyter.jupyter_server"]


@pytest.fixture(autouse=True)
def _no_held_secrets():
    """A server with strip_kernel_secrets moves keys out of this process's environment into
    ``server_secrets``; the next test sets its own environment and must not find them there."""
    yield
    from geoagent_ext.server_secrets import forget_held

    forget_held()


@pytest.fixture
def geoagent_data_dir(tmp_path, monkeypatch):
    """Point GeoAgent's data dir at a temp dir so tests never touch the user's."""
    data = tmp_path / "geoagent-data"
    monkeypatch.setenv("GEOAGENT_DATA_DIR", str(data))
    return data


@pytest.fixture
def jp_server_config(geoagent_data_dir):
    # No loading of the (local) inline model at start: these servers never suggest.
    return {"ServerApp": {"jpserver_extensions": {"geoagent_ext": True}}, "GeoAgentSettings": {"inline_warm": False}}


@pytest.fixture(scope="session")
def openai_server(tmp_path_factory):
    """llama-cpp-python's OpenAI-compatible server with the local 0.5B model, key required
    (tests/openai_server.py); started once, for the tests that ask for it. Skipped on a
    developer machine without its packages; on CI (``CI`` set) that is a failure."""
    from tests.openai_server import llama_openai_server, missing

    reason = missing()
    if reason:
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    with llama_openai_server(tmp_path_factory.mktemp("openai-server")) as server:
        yield server
