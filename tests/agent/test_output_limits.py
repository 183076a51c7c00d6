"""A step's output is bounded in its events and the run log (``output_limits``), while its
notebook cell gets the whole of it; a run log stops at its size limit with a note."""

from __future__ import annotations

import json
import re

import nbformat

from geoagent_ext.agent import notebook as nbwriter
from geoagent_ext.agent.output_limits import FIELD_LIMIT, OUTPUTS_LIMIT, bounded_outputs
from geoagent_ext.agent.runlog import read_events
from geoagent_ext.llm.scripted import ScriptedChatModel

from .helpers import StepScript, make_run, real_kernel

PRINTED = 2_200_000
BIG_PRINT = f"print('x' * {PRINTED})"
# An event carries at most OUTPUTS_LIMIT characters of outputs, stdout and stderr within 4000
# each, the error within FIELD_LIMIT, markers and the rest of the event.
EVENT_BOUND = OUTPUTS_LIMIT + FIELD_LIMIT + 20_000
# The characters printed (and the newline, which a trial's capped capture may leave out).
MARKER = re.compile(
    r"\n… \[output truncated: 2,200,00[01] characters; the full output of an accepted step is in its "
    r"notebook cell\] …\n"
)


def log_lines(run) -> list[str]:
    return run.log.path.read_text(encoding="utf-8").rstrip("\n").split("\n")


async def test_a_step_printing_megabytes_gives_bounded_events_and_its_whole_output_to_the_notebook(tmp_path):
    workdir = tmp_path / "work"
    workdir.mkdir()
    model = ScriptedChatModel(responder=StepScript(["Print a lot."], {"Print a lot": [BIG_PRINT]}))
    async with real_kernel(workdir) as kernel:
        run = make_run("print a lot", kernel, model, tmp_path)
        finished = await run.wait()
    assert finished.status == "succeeded", finished.message
    lines = log_lines(run)
    assert max(len(line.encode()) for line in lines) < EVENT_BOUND  # 2.0-2.25 MB each before
    assert sum(len(line.encode()) for line in lines) < 4 * EVENT_BOUND
    carrying = [e for e in read_events(run.log.path) if e.type in ("executed", "solved")]
    assert [e.type for e in carrying] == ["executed", "executed", "solved"]  # the trial, the live run, accepted
    for event in carrying:
        assert event.result.truncated and MARKER.search(event.result.stdout)
        [stream] = event.result.outputs
        assert (
            MARKER.search(stream["text"])
            and stream["text"].startswith("x" * 1000)
            and stream["text"].rstrip("\n").endswith("x" * 1000)
        )
    [solved] = [e for e in run.bus.history if e.type == "solved"]
    assert run.full_outputs(solved.subtask_id)[0]["text"] == "x" * PRINTED + "\n"
    # The notebook cell of the accepted step holds the whole output, not the event's.
    nb = nbformat.v4.new_notebook()
    assert (
        nbwriter.append_run(nb, run.request, run.subtasks, run.bus.history, run.id, full_outputs=run.full_outputs) == 1
    )
    [cell] = [c for c in nb.cells if c.cell_type == "code"]
    assert cell.outputs[0]["text"] == "x" * PRINTED + "\n"


async def test_the_run_log_stops_at_its_size_limit_with_a_note_and_keeps_the_end(tmp_path):
    workdir = tmp_path / "work"
    workdir.mkdir()
    steps = {f"Print part {n}": [f"print('{n}' * 30_000)"] for n in range(1, 5)}
    model = ScriptedChatModel(responder=StepScript(list(steps), steps))
    async with real_kernel(workdir) as kernel:
        run = make_run("print four parts", kernel, model, tmp_path)
        run.log.max_bytes = 120_000
        finished = await run.wait()
    assert finished.status == "succeeded", finished.message
    assert run.log.path.stat().st_size < 120_000 + 5_000  # the limit, and the finished event past it
    logged = list(read_events(run.log.path))
    [note] = [e for e in logged if e.type == "progress" and "size limit" in e.message]
    assert note.message.startswith("The run log reached its size limit (120,000 bytes)")
    assert logged[-2] is note and logged[-1].type == "finished" and logged[-1].status == "succeeded"
    assert [e.seq for e in logged] == sorted(e.seq for e in logged)
    assert len(run.bus.history) > len(logged)  # the live run kept every event
    assert [json.loads(line)["seq"] for line in log_lines(run)] == [e.seq for e in logged]


def test_many_outputs_an_image_and_a_long_traceback_stay_within_the_outputs_limit():
    image = {
        "output_type": "display_data",
        "metadata": {},
        "data": {"image/png": "iVBOR" + "A" * 200_000, "text/plain": "<Figure size 640x480>"},
    }
    traceback = {
        "output_type": "error",
        "ename": "RecursionError",
        "evalue": "too deep",
        "traceback": [f"frame {i}" for i in range(50_000)],
    }
    displays = [
        {"output_type": "display_data", "metadata": {}, "data": {"text/html": "<p>" + "y" * 5_000 + "</p>"}}
    ] * 100
    outputs, cut = bounded_outputs([image, traceback, *displays])
    text = sum(
        len(v) for o in outputs for v in [o.get("text", ""), *o.get("traceback", []), *o.get("data", {}).values()]
    )
    assert cut and text < OUTPUTS_LIMIT + 2_000  # the markers past it
    assert len(json.dumps(outputs)) < 2 * OUTPUTS_LIMIT  # 200,000 + 300,000 + 500,000 characters given
    assert "image/png" not in outputs[0]["data"]  # half an image is no image: left out, said in its text
    assert outputs[0]["data"]["text/plain"].startswith("<Figure size 640x480>\n… [output truncated: 200,005 characters")
    assert outputs[1]["traceback"][0] == "frame 0" and outputs[1]["traceback"][-1] == "frame 49999"
    assert "more output(s) left out" in outputs[-1]["text"]
    small = [{"output_type": "stream", "name": "stdout", "text": "42\n"}]
    assert bounded_outputs(small) == (small, False)
