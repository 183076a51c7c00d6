"""Fair turns on a serial model (``llm.queue``): FIFO across callers, places reported, no timeouts from waiting."""

from __future__ import annotations

import asyncio

import pytest

from geoagent_ext.llm.client import LLMClient
from geoagent_ext.llm.queue import ModelQueue, place_text, queue_for
from geoagent_ext.llm.scripted import ScriptedChatModel, ScriptedModelError


async def _hold(
    queue: ModelQueue, name: str, served: list[str], places: dict[str, list[int]], release: asyncio.Event
) -> None:
    async with queue.turn(lambda place: places.setdefault(name, []).append(place)):
        served.append(name)
        await release.wait()


async def test_turns_are_first_come_first_served_and_places_count_down():
    queue, served, places = ModelQueue(), [], {}
    gates = {name: asyncio.Event() for name in "ABCD"}
    tasks = []
    for name in "ABCD":
        tasks.append(asyncio.ensure_future(_hold(queue, name, served, places, gates[name])))
        await asyncio.sleep(0)  # each arrives after the one before
    await asyncio.sleep(0)
    assert served == ["A"] and queue.waiting == 3
    for name in "ABCD":
        gates[name].set()
        await asyncio.sleep(0.01)
    await asyncio.gather(*tasks)
    assert served == ["A", "B", "C", "D"]
    assert "A" not in places  # never waited: no place reported
    assert places == {"B": [1, 0], "C": [2, 1, 0], "D": [3, 2, 1, 0]}
    assert not queue.busy and queue.waiting == 0


async def test_a_cancelled_waiter_leaves_the_line():
    queue, served, places = ModelQueue(), [], {}
    gates = {name: asyncio.Event() for name in "ABC"}
    tasks = {}
    for name in "ABC":
        tasks[name] = asyncio.ensure_future(_hold(queue, name, served, places, gates[name]))
        await asyncio.sleep(0)
    tasks["B"].cancel()
    await asyncio.sleep(0)
    assert places["C"] == [2, 1]  # moved up when B left
    gates["A"].set()
    gates["C"].set()
    await asyncio.gather(tasks["A"], tasks["C"])
    assert served == ["A", "C"]
    assert not queue.busy and queue.waiting == 0


def test_place_text_says_the_place_in_words():
    assert place_text(1) == "waiting for the model: 1st in line"
    assert place_text(2) == "waiting for the model: 2nd in line"
    assert place_text(3) == "waiting for the model: 3rd in line"
    assert place_text(11) == "waiting for the model: 11th in line"
    assert place_text(22) == "waiting for the model: 22nd in line"


def _serial_model(delay: float) -> ScriptedChatModel:
    return ScriptedChatModel(responder=lambda messages: messages[-1].text, serial=True, delay=delay)


async def test_only_serial_models_have_a_line():
    assert queue_for(ScriptedChatModel(replies=["x"])) is None
    model = _serial_model(0)
    assert queue_for(model) is queue_for(model) is not None


async def test_the_serial_scripted_model_refuses_a_call_that_skipped_the_line():
    """The guard the run-level tests rely on: without the queue, overlapping calls fail."""
    model = _serial_model(0.2)
    with pytest.raises(ScriptedModelError, match="second call"):
        await asyncio.gather(model.ainvoke("a"), model.ainvoke("b"))


async def test_a_busy_caller_does_not_starve_the_others():
    """A caller that asks again at once goes to the back of the line: turns alternate."""
    model = _serial_model(0.05)
    served: list[str] = []

    async def caller(name: str, calls: int) -> None:
        client = LLMClient(model, timeout=30)
        for i in range(calls):
            gen = await client.complete(f"{name}{i}")
            served.append(gen.text)

    greedy = asyncio.ensure_future(caller("G", 5))
    await asyncio.sleep(0.01)  # G holds the model; A then B line up behind it
    others = [asyncio.ensure_future(caller("A", 2))]
    await asyncio.sleep(0)
    others.append(asyncio.ensure_future(caller("B", 2)))
    await asyncio.gather(greedy, *others)
    assert served == ["G0", "A0", "B0", "G1", "A1", "B1", "G2", "G3", "G4"]


async def test_waiting_in_line_does_not_count_towards_the_timeout():
    """Three callers on a model taking 0.4 s a call with a 0.6 s timeout: the third waits
    0.8 s, longer than its timeout, and still gets its answer; it heard its places."""
    model = _serial_model(0.4)
    clients = [LLMClient(model, timeout=0.6, retries=0) for _ in range(3)]
    places: list[list[int]] = [[], [], []]
    for client, heard in zip(clients, places):
        client.on_wait = heard.append
    tasks = []
    for i, client in enumerate(clients):
        tasks.append(asyncio.ensure_future(client.complete(f"call {i}")))
        await asyncio.sleep(0)
    answers = await asyncio.gather(*tasks)
    assert [a.text for a in answers] == ["call 0", "call 1", "call 2"]
    assert places == [[], [1, 0], [2, 1, 0]]
    assert all(c.stats.timeouts == 0 for c in clients)
