"""The engine registry: one llama.cpp context per (file, instance), so inline suggestions
have a lock of their own, and one engine's slow load does not hold up another's callers."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from geoagent_ext.llm import llama_engine
from geoagent_ext.llm.local import LocalChatModel


class FakeEngine:
    """Stands in for a loaded GGUF; a path named "slow" loads until released."""

    release = threading.Event()

    def __init__(self, path, **kwargs):
        self.path = path
        self.lock = threading.Lock()
        if Path(path).name.startswith("slow"):
            assert FakeEngine.release.wait(10)


@pytest.fixture(autouse=True)
def fake_engines(monkeypatch):
    monkeypatch.setattr(llama_engine, "LlamaEngine", FakeEngine)
    monkeypatch.setattr(llama_engine, "_ENGINES", {})
    monkeypatch.setattr(llama_engine, "_LOADING", {})
    FakeEngine.release.clear()


def test_each_instance_of_a_file_is_its_own_engine(tmp_path):
    gguf = tmp_path / "model.gguf"
    runs = LocalChatModel(model_path=str(gguf)).engine()
    inline = LocalChatModel(model_path=str(gguf), instance="inline").engine()
    assert inline is not runs and inline.lock is not runs.lock
    assert LocalChatModel(model_path=str(gguf)).engine() is runs  # loaded once, kept
    assert LocalChatModel(model_path=str(gguf), instance="inline").engine() is inline


def test_a_slow_load_does_not_hold_up_other_engines(tmp_path):
    ready = llama_engine.get_engine(tmp_path / "ready.gguf")
    loading = threading.Thread(
        target=llama_engine.get_engine, args=(tmp_path / "slow.gguf",), kwargs={"instance": "inline"}
    )
    loading.start()
    try:
        got = []
        other = threading.Thread(target=lambda: got.append(llama_engine.get_engine(tmp_path / "ready.gguf")))
        other.start()
        other.join(5)
        assert got == [ready], "get_engine of a loaded model waited for another model's load"
    finally:
        FakeEngine.release.set()
        loading.join(10)
    assert llama_engine.get_engine(tmp_path / "slow.gguf", instance="inline").path.endswith("slow.gguf")


def test_each_engine_has_its_own_line_in_the_model_queue():
    # The fair queue (llm.queue) lines callers up per engine: the inline instance of the same
    # weights must not wait behind a run's calls, two run models over one file must.
    run_a, run_b = LocalChatModel(model_path="/m/coder.gguf"), LocalChatModel(model_path="/m/coder.gguf")
    inline = LocalChatModel(model_path="/m/coder.gguf", instance="inline")
    assert run_a.queue_key == run_b.queue_key
    assert inline.queue_key != run_a.queue_key
