"""The status endpoint is served, authenticated and truthful."""

from __future__ import annotations

import json

import pytest
from tornado.httpclient import HTTPClientError

from geoagent_ext import __version__
from geoagent_ext.config import DEFAULT_MODEL


async def test_status_with_token(jp_fetch):
    response = await jp_fetch("geoagent", "status")
    assert response.code == 200
    body = json.loads(response.body)
    assert body["version"] == __version__
    assert body["model"] == DEFAULT_MODEL
    assert body["provider"] == "local"
    assert body["index"]["state"] == "missing"


async def test_status_without_token_is_forbidden(jp_fetch):
    with pytest.raises(HTTPClientError) as excinfo:
        await jp_fetch("geoagent", "status", headers={"Authorization": ""})
    assert excinfo.value.code == 403


async def test_status_reports_index_manifest(jp_fetch, geoagent_data_dir):
    index_dir = geoagent_data_dir / "index"
    index_dir.mkdir(parents=True)
    (index_dir / "manifest.json").write_text(json.dumps({"records": 12, "libraries": {"shapely": "2.1"}}))
    body = json.loads((await jp_fetch("geoagent", "status")).body)
    assert body["index"] == {
        "state": "ready",
        "location": str(index_dir),
        "records": 12,
        "libraries": {"shapely": "2.1"},
    }
