"""A shared index's status is asked of the chroma server, never assumed (README, "Shared index").

``remote`` (it answers and holds a built index), ``empty`` (it answers without one),
``unreachable`` (nothing answers in time): the same in ``jupyter geoagent status`` and in
``GET /geoagent/status``, which the panel shows. Against a real ``chroma run`` (about 10 s to
start, once for the module) and closed or silent ports.
"""

from __future__ import annotations

import http.server
import json
import socket
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

from geoagent_ext import status
from geoagent_ext.config import GeoAgentSettings
from geoagent_ext.rag import ApiRecord, store
from geoagent_ext.status import REMOTE_CHECK_S, remote_index_state
from tests.chroma_server import chroma_server
from tests.scripted_server import free_port


@pytest.fixture(scope="module")
def chroma(tmp_path_factory):
    with chroma_server(tmp_path_factory.mktemp("chroma")) as server:
        yield server


def _store(server) -> store.Store:
    return store.Store("", server.host, server.port, chroma_timeout=10)


@pytest.fixture
def empty_chroma(chroma):
    """The server with nothing of GeoAgent's on it."""
    _store(chroma).wipe()
    return chroma


@pytest.fixture
def built_chroma(chroma):
    """The server holding a (two-record) index, written the way `index build` writes one."""
    target = _store(chroma)
    target.wipe()
    records = [
        ApiRecord(
            id=f"shapely.f{i}",
            qualified_name=f"shapely.f{i}",
            library="shapely",
            version="2.1",
            kind="function",
            text=f"shapely.f{i}()",
        )
        for i in range(2)
    ]
    target.add(records, np.eye(2, 384, dtype=np.float32).tolist())
    target.write_manifest({"records": 2, "libraries": {"shapely": "2.1"}})
    return chroma


def settings_for(server) -> GeoAgentSettings:
    return GeoAgentSettings(chroma_host=server.host, chroma_port=server.port)


def cli_status(host: str, port: int) -> dict:
    answer = subprocess.run(
        [
            sys.executable,
            "-m",
            "geoagent_ext.cli.main",
            "--config",
            f"chroma_host={host}",
            "--config",
            f"chroma_port={port}",
            "status",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert answer.returncode == 0, answer.stderr[-3000:]
    return json.loads(answer.stdout)["index"]


def test_a_server_holding_the_index_is_remote(built_chroma):
    location = f"{built_chroma.host}:{built_chroma.port}"
    expected = {"state": "remote", "location": location, "records": 2, "libraries": {"shapely": "2.1"}}
    assert remote_index_state(settings_for(built_chroma)) == expected
    assert cli_status(built_chroma.host, built_chroma.port) == expected


def test_a_server_without_the_index_is_empty_and_stays_so(empty_chroma):
    state = remote_index_state(settings_for(empty_chroma))
    assert state["state"] == "empty" and state["records"] == 0
    assert f"chroma_port={empty_chroma.port} index build" in state["hint"]
    # Looking created nothing: the server still holds no collection at all.
    assert _store(empty_chroma).client().list_collections() == []


def test_records_without_a_manifest_are_not_an_index(built_chroma):
    """A build under way (or stopped half-way) has no manifest yet; retrieval would not use it."""
    _store(built_chroma).remove_manifest()
    state = remote_index_state(settings_for(built_chroma))
    assert state["state"] == "empty" and state["records"] == 2


def test_a_closed_port_is_unreachable():
    port = free_port()  # bound once, then released: nothing listens
    state = remote_index_state(GeoAgentSettings(chroma_host="127.0.0.1", chroma_port=port))
    assert state["state"] == "unreachable" and "refused" in state["error"]
    assert cli_status("127.0.0.1", port)["state"] == "unreachable"


def test_a_server_that_never_answers_is_unreachable_within_the_budget():
    with socket.socket() as silent:  # accepts connections (the backlog) and never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        started = time.monotonic()
        state = remote_index_state(GeoAgentSettings(chroma_host="127.0.0.1", chroma_port=silent.getsockname()[1]))
        took = time.monotonic() - started
    assert state["state"] == "unreachable"
    assert REMOTE_CHECK_S <= 2 and took < REMOTE_CHECK_S + 0.5, took


class NotFound(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        self.send_error(404)

    def log_message(self, *args) -> None:
        pass


def test_another_web_server_is_not_a_chroma_server():
    """A web server that answers 404 on chroma's paths is not an empty chroma server."""
    with http.server.ThreadingHTTPServer(("127.0.0.1", 0), NotFound) as other:
        threading.Thread(target=other.serve_forever, daemon=True).start()
        try:
            state = remote_index_state(GeoAgentSettings(chroma_host="127.0.0.1", chroma_port=other.server_address[1]))
        finally:
            other.shutdown()
    assert state["state"] == "unreachable" and "no chroma server" in state["error"]


def test_status_looks_for_what_the_store_writes():
    assert (status.API_COLLECTION, status.MANIFEST_COLLECTION, status.MANIFEST_ID) == (
        store.COLLECTION,
        store.MANIFEST_COLLECTION,
        store.MANIFEST_ID,
    )


class TestEndpoint:
    """``GET /geoagent/status`` on a server configured for the chroma server (the panel's source)."""

    @pytest.fixture
    def jp_server_config(self, geoagent_data_dir, chroma):
        return {
            "ServerApp": {"jpserver_extensions": {"geoagent_ext": True}},
            "GeoAgentSettings": {"inline_warm": False, **chroma.settings},
        }

    async def test_remote(self, jp_fetch, built_chroma):
        index = json.loads((await jp_fetch("geoagent", "status")).body)["index"]
        assert index == remote_index_state(settings_for(built_chroma)) and index["state"] == "remote"

    async def test_empty(self, jp_fetch, empty_chroma):
        index = json.loads((await jp_fetch("geoagent", "status")).body)["index"]
        assert index["state"] == "empty"


class TestEndpointUnreachable:
    @pytest.fixture
    def jp_server_config(self, geoagent_data_dir):
        return {
            "ServerApp": {"jpserver_extensions": {"geoagent_ext": True}},
            "GeoAgentSettings": {"inline_warm": False, "chroma_host": "127.0.0.1", "chroma_port": free_port()},
        }

    async def test_unreachable(self, jp_fetch):
        index = json.loads((await jp_fetch("geoagent", "status")).body)["index"]
        assert index["state"] == "unreachable" and "check `chroma_host`" in index["hint"]
