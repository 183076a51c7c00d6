"""The inline model is loaded only once suggestions are wanted: JupyterLab says they are on (the
``warm`` message its provider sends), or the first suggestion arrives. Then it is kept. A
server whose user never turns them on loads nothing for them."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pytest
import requests

from geoagent_ext.completion.service import INSTANCE
from geoagent_ext.config import GeoAgentSettings
from geoagent_ext.llm.weights import ensure_weights, get_spec, weights_available
from geoagent_ext.services import models as models_module
from tests.persona.helpers import until
from tests.scripted_server import scripted_server_config, server_process

FAST = 'def reply(messages):\n    return "```python\\nparcels.geometry\\n```"\n'
SMALL = "qwen2.5-coder-0.5b"
START_GRACE_S = 5.0  # the old start-up warm-up had loaded the 0.5B well within this


@pytest.fixture
def made(monkeypatch):
    """Every (spec, instance) the server's model cache makes."""
    calls = []
    real = models_module.make_chat_model

    def counting(spec, settings, *, instance=""):
        calls.append((spec, instance))
        return real(spec, settings, instance=instance)

    monkeypatch.setattr(models_module, "make_chat_model", counting)
    return calls


@pytest.fixture
def jp_server_config(geoagent_data_dir, tmp_path):
    return scripted_server_config(tmp_path, FAST)  # inline_warm as shipped


async def test_jupyterlab_turning_suggestions_on_loads_the_inline_model_once(
    jp_serverapp, jp_fetch, jp_ws_fetch, tmp_path, made
):
    services = jp_serverapp.web_app.settings["geoagent"]
    await jp_serverapp.extension_manager.start_extension("geoagent_ext")  # what ServerApp.start does
    await asyncio.sleep(1)
    assert not services.models and made == []  # suggestions are off: nothing loaded

    status = json.loads((await jp_fetch("geoagent", "status")).body)
    assert status["inline_loaded"] is False

    ws = await jp_ws_fetch("geoagent", "complete", "stream")
    for page in ("w1", "w2"):  # two pages open with suggestions on
        ws.write_message(json.dumps({"type": "warm", "id": page}))
    inline = (f"scripted:{tmp_path / 'script.py'}", INSTANCE)
    await until(lambda: inline in services.models, 30, "the inline model to load")
    ws.write_message(json.dumps({"type": "complete", "id": "c1", "cell_text_before": "parcels."}))
    answer = json.loads(await asyncio.wait_for(ws.read_message(), 30))
    while answer["type"] == "text":
        answer = json.loads(await asyncio.wait_for(ws.read_message(), 30))
    ws.close()
    assert answer["type"] == "done" and answer["text"] == "geometry", answer
    assert made == [inline]  # one load for both pages and the suggestion
    assert json.loads((await jp_fetch("geoagent", "status")).body)["inline_loaded"] is True


def _small_model_weights() -> Path:
    try:
        import llama_cpp  # noqa: F401
    except ImportError:
        pytest.skip("llama-cpp-python is not installed")
    settings, spec = GeoAgentSettings(), get_spec(SMALL)
    if not weights_available(spec, settings.model_cache_dir):
        pytest.skip("the local 0.5B model is not installed (bash scripts/install_local_model.sh 0.5b)")
    return Path(ensure_weights(spec, settings.model_cache_dir)).resolve()


def _mapped(pid: int, weights: Path) -> bool:
    """Whether the process has the weights file mapped: llama.cpp mmaps the model it loads."""
    return str(weights) in Path(f"/proc/{pid}/maps").read_text()


def test_the_local_inline_model_loads_at_the_first_suggestion_and_stays(tmp_path):
    weights = _small_model_weights()
    config = {
        "ServerApp": {"jpserver_extensions": {"geoagent_ext": True}},
        "GeoAgentSettings": {"model": f"local:{SMALL}", "inline_model": f"local:{SMALL}"},
    }
    with server_process(tmp_path, config) as (base, auth, log_path, pid):
        time.sleep(START_GRACE_S)
        assert not _mapped(pid, weights), "the inline model was loaded at start with suggestions off"
        assert not _status(base, auth)["inline_loaded"]
        for _ in range(2):
            answer = requests.post(
                f"{base}/geoagent/complete",
                headers=auth,
                timeout=240,
                json={"cell_text_before": "import geopandas as gpd\nparcels = gpd."},
            )
            assert answer.ok, answer.text
            assert _mapped(pid, weights), "the first suggestion did not load the inline model"
        status = _status(base, auth)
        assert status["inline_model"] == f"local:{SMALL}" and status["inline_loaded"]


def _status(base: str, auth: dict) -> dict:
    return requests.get(f"{base}/geoagent/status", headers=auth, timeout=30).json()
