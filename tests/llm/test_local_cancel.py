"""Cancelling a local model's stream frees its engine at once: a suggestion cancelled by
typing must not keep the lock until some later garbage collection."""

from __future__ import annotations

import asyncio
import gc
import threading
import time

from geoagent_ext.llm import LLMClient
from geoagent_ext.llm.local import LocalChatModel


class SlowEngine:
    """Holds its lock while it streams, like LlamaEngine.stream; one piece per 50 ms."""

    def __init__(self):
        self.lock = threading.Lock()

    def stream(self, messages, **kwargs):
        with self.lock:
            for _ in range(200):
                time.sleep(0.05)
                yield "x"


async def test_cancelled_stream_releases_the_engine_lock(monkeypatch):
    engine = SlowEngine()
    monkeypatch.setattr(LocalChatModel, "engine", lambda self: engine)
    first = asyncio.Event()
    call = asyncio.ensure_future(LLMClient(LocalChatModel(), timeout=60).complete("hi", on_text=lambda _: first.set()))
    await asyncio.wait_for(first.wait(), 10)
    gc.disable()  # released by the cancel itself, not by a collection that happens to run
    try:
        call.cancel()
        await asyncio.gather(call, return_exceptions=True)
        free = await asyncio.to_thread(engine.lock.acquire, timeout=2)
    finally:
        gc.enable()
    assert free, "the engine stayed locked after its stream was cancelled"
    engine.lock.release()
