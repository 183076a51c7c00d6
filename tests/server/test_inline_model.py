"""The inline model: its own instance, so a suggestion answers while a run's call holds
the main model; its default; loaded once (at server start with inline_warm); reported by the status."""

from __future__ import annotations

import asyncio
import json
import textwrap

import pytest

from geoagent_ext.completion import CompletionRequest
from geoagent_ext.completion.service import INSTANCE
from geoagent_ext.config import GeoAgentSettings
from geoagent_ext.llm import LLMClient, choices
from geoagent_ext.services import GeoAgentServices, LazyKnowledgeIndex
from geoagent_ext.services import models as models_module
from tests.scripted_server import scripted_server_config

# A run's call blocks inside the scripted model's lock (like llama.cpp reading a long
# prompt) until the test releases it; completion prompts answer at once.
BLOCKING = textwrap.dedent("""
    import threading
    STARTED, RELEASE = threading.Event(), threading.Event()

    def reply(messages):
        if "code completion" in messages[0].text:
            return "```python\\nparcels.area\\n```"
        STARTED.set()
        RELEASE.wait(30)
        return "1. Plan."
""")
FAST = 'def reply(messages):\n    return "```python\\nparcels.geometry\\n```"\n'


def _services(tmp_path, monkeypatch, **settings) -> GeoAgentServices:
    settings = GeoAgentSettings(data_dir=str(tmp_path / "data"), **settings)
    # no index (no chromadb import): no docs needed here
    return GeoAgentServices(settings, kernel_manager={}, knowledge=LazyKnowledgeIndex(settings, enabled=False))


@pytest.mark.parametrize(
    "inline,text", [("fast.py", "geometry"), ("block.py", "area")], ids=["other-spec", "same-spec"]
)
async def test_suggestion_answers_while_a_run_call_holds_the_main_model(tmp_path, monkeypatch, inline, text):
    (tmp_path / "block.py").write_text(BLOCKING)
    (tmp_path / "fast.py").write_text(FAST)
    services = _services(
        tmp_path, monkeypatch, model=f"scripted:{tmp_path / 'block.py'}", inline_model=f"scripted:{tmp_path / inline}"
    )
    run_model = await services.chat_model(services.settings.model)  # what RunManager._new_run gives a run
    started, release = (run_model.responder.__globals__[n] for n in ("STARTED", "RELEASE"))
    # Streamed, so the scripted model answers in a worker thread as llama.cpp does.
    run_call = asyncio.ensure_future(
        LLMClient(run_model, timeout=60).complete("Plan: buffer the parcels.", on_text=lambda _: None)
    )
    suggest = None
    try:
        assert await asyncio.to_thread(started.wait, 10), "the run's call never reached the model"
        suggest = asyncio.ensure_future(services.completer.complete(CompletionRequest(cell_text_before="parcels.")))
        answered, _ = await asyncio.wait({suggest}, timeout=5)
        run_busy = not run_call.done()
    finally:
        release.set()
        await asyncio.gather(*(t for t in (run_call, suggest) if t), return_exceptions=True)
    assert answered, "the suggestion waited for the run's call to end"
    assert run_busy  # the run's call was holding its model all along
    assert suggest.result().text == text  # from the inline model's own instance
    assert run_call.result().text == "1. Plan."


def _pretend_installed(monkeypatch, installed: set[str], llama: bool = True) -> None:
    monkeypatch.setattr(choices.importlib.util, "find_spec", lambda name, *a: object() if llama else None)
    monkeypatch.setattr(choices, "weights_available", lambda spec, cache_dir: spec.model_id in installed)


def test_inline_default_is_the_small_model_when_installed(monkeypatch):
    _pretend_installed(monkeypatch, {"qwen2.5-coder-0.5b"})
    assert choices.inline_model_spec(GeoAgentSettings(model="openai:gpt-4o")) == "local:qwen2.5-coder-0.5b"


@pytest.mark.parametrize(
    "installed,llama",
    [({"qwen2.5-coder-1.5b"}, True), ({"qwen2.5-coder-0.5b"}, False)],
    ids=["no-0.5b-weights", "no-llama-cpp"],
)
def test_inline_default_is_the_main_model_without_the_small_one(monkeypatch, installed, llama):
    _pretend_installed(monkeypatch, installed, llama)
    assert choices.inline_model_spec(GeoAgentSettings()) == "local:qwen2.5-coder-1.5b"
    assert choices.inline_model_spec(GeoAgentSettings(model="openai:gpt-4o")) == "openai:gpt-4o"


def test_configured_inline_model_wins_and_empty_means_the_main_model(monkeypatch, tmp_path):
    _pretend_installed(monkeypatch, {"qwen2.5-coder-0.5b"})
    assert choices.inline_model_spec(GeoAgentSettings(inline_model="openai:gpt-4o-mini")) == "openai:gpt-4o-mini"
    services = _services(tmp_path, monkeypatch, model="openai:gpt-4o", inline_model="")
    assert services.completer.inline_spec() == "openai:gpt-4o"


async def test_inline_model_is_made_once_for_warmup_and_suggestions(tmp_path, monkeypatch):
    (tmp_path / "fast.py").write_text(FAST)
    made = []
    real = models_module.make_chat_model

    def counting(spec, settings, *, instance=""):
        made.append((spec, instance))
        return real(spec, settings, instance=instance)

    monkeypatch.setattr(models_module, "make_chat_model", counting)
    spec = f"scripted:{tmp_path / 'fast.py'}"
    completer = _services(tmp_path, monkeypatch, model=spec, inline_model=spec).completer
    request = CompletionRequest(cell_text_before="parcels.")
    # The warm-up and the first suggestions arrive together: they share one load.
    _, first, second = await asyncio.gather(completer.warm(), completer.complete(request), completer.complete(request))
    assert first.text == second.text == "geometry"
    assert made == [(spec, INSTANCE)]
    assert len((await completer.model()).prompts) == 2  # warming a scripted model asks it nothing


@pytest.fixture
def jp_server_config(geoagent_data_dir, tmp_path):
    config = scripted_server_config(tmp_path, FAST, inline_warm=True)
    (tmp_path / "inline.py").write_text(FAST)
    config["GeoAgentSettings"]["inline_model"] = f"scripted:{tmp_path / 'inline.py'}"
    return config


async def test_status_reports_the_inline_model_warmed_at_start(jp_fetch, jp_serverapp, tmp_path):
    body = json.loads((await jp_fetch("geoagent", "status")).body)
    inline = f"scripted:{tmp_path / 'inline.py'}"
    assert body["inline_model"] == inline and body["model"] == f"scripted:{tmp_path / 'script.py'}"
    models = jp_serverapp.web_app.settings["geoagent"].models
    assert not models
    await jp_serverapp.extension_manager.start_extension("geoagent_ext")  # what ServerApp.start does
    for _ in range(100):  # loaded in the background once the server's loop runs
        if (inline, INSTANCE) in models:
            break
        await asyncio.sleep(0.1)
    assert (inline, INSTANCE) in models
