"""``GET /geoagent/models``: the model picker's choices, truthful about what works here."""

from __future__ import annotations

import json

import pytest
from tornado.httpclient import HTTPClientError

from geoagent_ext.config import GeoAgentSettings
from geoagent_ext.handlers.models import list_models


async def test_models_lists_default_first_and_both_local_models(jp_fetch):
    body = json.loads((await jp_fetch("geoagent", "models")).body)
    default = GeoAgentSettings().model
    assert body["default"] == default
    ids = [m["id"] for m in body["models"]]
    assert ids[0] == default and body["models"][0]["default"] is True
    assert {"local:qwen2.5-coder-0.5b", "local:qwen2.5-coder-1.5b"} <= set(ids)
    assert sum(m["default"] for m in body["models"]) == 1
    for m in body["models"]:
        assert set(m) >= {"id", "label", "provider", "available", "detail", "default"}
        if not m["available"]:
            assert m["detail"], f"{m['id']} is unavailable without saying why"


def test_cloud_providers_appear_only_when_installed_and_never_leak_keys(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: (
            object()
            if name == "langchain_openai"
            else (None if name in ("langchain_anthropic", "langchain_ollama") else real(name, *a))
        ),
    )
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-secret-value")
    settings = GeoAgentSettings(model="scripted:/tmp/x.py")
    body = list_models(settings)
    providers = {m["provider"] for m in body["models"]}
    assert "openai" in providers and "anthropic" not in providers and "ollama" not in providers
    assert body["models"][0]["id"] == "scripted:/tmp/x.py" and "configured" in body["models"][0]["label"]
    assert "sk-test-secret-value" not in json.dumps(body)
    monkeypatch.delenv("OPENAI_API_KEY")
    gpt = next(m for m in list_models(settings)["models"] if m["id"] == "openai:gpt-4o")
    assert gpt["available"] is False and "OPENAI_API_KEY" in gpt["detail"]


async def test_models_needs_auth(jp_fetch):
    with pytest.raises(HTTPClientError) as err:
        await jp_fetch("geoagent", "models", headers={"Authorization": ""})
    assert err.value.code == 403


def test_a_self_hosted_openai_server_offers_its_configured_model_not_openai_examples(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: object() if name == "langchain_openai" else real(name, *a)
    )
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    settings = GeoAgentSettings(model="openai:qwen2.5-coder:14b", openai_base_url="http://gpu-box:8000/v1")
    ids = [m["id"] for m in list_models(settings)["models"]]
    assert ids[0] == "openai:qwen2.5-coder:14b" and "openai:gpt-4o" not in ids
    assert "openai:gpt-4o" in [m["id"] for m in list_models(GeoAgentSettings())["models"]]
