"""Executing agent code in a live ipykernel: outputs, errors, isolation from the user's client."""

from __future__ import annotations

import asyncio
import time

import pytest
from jupyter_client.session import Session

from geoagent_ext.agent.gis_hints import error_hints
from geoagent_ext.kernel import (
    KernelBusyError,
    KernelNotFoundError,
    KernelService,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def test_outputs_come_back_exactly(service, kernel_id):
    code = (
        "import sys\n"
        "from IPython.display import display, HTML\n"
        "print('out 1')\n"
        "print('out 2')\n"
        "sys.stderr.write('warn\\n')\n"
        "display(HTML('<b>bold</b>'))\n"
        "h = display('v1', display_id=True)\n"
        "h.update('v2')\n"
        "6 * 7"
    )
    res = await service.execute(kernel_id, code)
    assert res.status == "ok" and res.error is None
    assert res.stdout == "out 1\nout 2\n"
    assert res.stderr == "warn\n"
    assert res.execution_count is not None and res.execution_count >= 1
    kinds = [o["output_type"] for o in res.outputs]
    assert kinds == ["stream", "stream", "display_data", "display_data", "execute_result"]
    # ipykernel flushes stdout and stderr on their own schedules: the order *between* the two
    # streams is the kernel's, each stream's text must come back whole and merged.
    streams = sorted(res.outputs[:2], key=lambda o: o["name"])
    assert streams == [
        {"output_type": "stream", "name": "stderr", "text": "warn\n"},
        {"output_type": "stream", "name": "stdout", "text": "out 1\nout 2\n"},
    ]
    assert res.outputs[2]["data"]["text/html"] == "<b>bold</b>"
    assert res.outputs[3]["data"]["text/plain"] == "'v2'"  # update_display_data applied
    assert res.outputs[4]["data"] == {"text/plain": "42"}
    assert res.outputs[4]["execution_count"] == res.execution_count
    assert res.duration_s > 0
    import nbformat

    cell = nbformat.v4.new_code_cell(code, outputs=res.outputs, execution_count=res.execution_count)
    nb = nbformat.v4.new_notebook(cells=[cell])
    nbformat.validate(nb)  # ready to be put into a cell as is


async def test_error_is_shortened_with_failing_line(service, kernel_id):
    res = await service.execute(kernel_id, "a = 1\nb = a + 1\nc = undefined_name + b")
    assert res.status == "error"
    err = res.error
    assert err.ename == "NameError"
    assert err.evalue == "name 'undefined_name' is not defined"
    assert err.lineno == 3
    assert err.message == "NameError: name 'undefined_name' is not defined (line 3: c = undefined_name + b)"
    assert "\x1b[" in "".join(err.traceback)  # raw traceback keeps its colours
    assert "\x1b" not in err.message
    assert res.outputs[-1]["output_type"] == "error"


async def test_syntax_error_points_at_line(service, kernel_id):
    res = await service.execute(kernel_id, "x1 = 1\nx2 = (\n")
    assert res.status == "error"
    assert res.error.ename == "SyntaxError"
    assert res.error.lineno == 2
    assert "line 2" in res.error.message and ".py" not in res.error.message


async def test_gis_hints_on_real_errors(service, geo_kernel):
    res = await service.execute(geo_kernel, "naive = gdf.set_crs(None, allow_override=True)\nnaive.to_crs(3857)")
    assert res.status == "error"
    assert res.error.lineno == 2
    hints = error_hints(res.error, res.stderr)
    assert any("set_crs" in h for h in hints), hints
    res = await service.execute(geo_kernel, "gpd.read_file('no_such_file.gpkg')")
    assert res.status == "error"
    hints = error_hints(res.error, res.stderr)
    assert any("not found" in h for h in hints), (res.error.message, hints)


async def test_silent_execution_leaves_no_history(service, kernel_id):
    before = await service.execute(kernel_id, "1")
    res = await service.execute(kernel_id, "print('quiet')", silent=True, store_history=False)
    assert res.status == "ok" and res.stdout == "quiet\n"
    after = await service.execute(kernel_id, "1")
    assert after.execution_count == before.execution_count + 1


async def test_unknown_kernel_is_a_clear_error(service):
    with pytest.raises(KernelNotFoundError, match="No running kernel with id 'nope'"):
        await service.execute("nope", "1")


async def test_bad_arguments_are_clear_errors(service, kernel_id):
    with pytest.raises(TypeError, match="code must be a str"):
        await service.execute(kernel_id, None)
    with pytest.raises(ValueError, match="timeout must be positive"):
        await service.execute(kernel_id, "1", timeout=0)
    with pytest.raises(ValueError, match="memory_mb must be positive"):
        await service.trial(kernel_id, "1", memory_mb=0)


async def test_timeout_interrupts_and_kernel_survives(service, kernel_id):
    await service.execute(kernel_id, "survivor = 'still here'")
    t0 = time.perf_counter()
    res = await service.execute(kernel_id, "import time\nwhile True:\n    time.sleep(0.05)", timeout=1)
    assert res.status == "timeout"
    assert time.perf_counter() - t0 < 4
    assert res.error.ename == "TimeoutError" and "interrupted" in res.error.message
    after = await service.execute(kernel_id, "survivor")
    assert after.status == "ok" and after.outputs[0]["data"]["text/plain"] == "'still here'"


async def test_cancelled_execute_can_be_interrupted(service, kernel_id):
    """The agent's cancel: the awaiting task is cancelled, then the kernel is interrupted."""
    task = asyncio.create_task(service.execute(kernel_id, "import time\ntime.sleep(30)"))
    await asyncio.sleep(0.5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await service.interrupt(kernel_id)
    t0 = time.perf_counter()
    res = await service.execute(kernel_id, "'free again'", wait_idle=10)
    assert res.status == "ok" and time.perf_counter() - t0 < 5


async def _user_run(client, code):
    """Run a cell the way a notebook frontend does; return (reply, its own IOPub outputs)."""
    msg_id = client.execute(code)
    outputs = []
    while True:
        msg = await client.get_iopub_msg(timeout=30)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        if msg["msg_type"] == "stream":
            outputs.append(msg["content"]["text"])
        if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            break
    while True:
        reply = await client.get_shell_msg(timeout=30)
        if reply["parent_header"].get("msg_id") == msg_id:
            return reply, "".join(outputs)


async def test_user_cell_interleaved_with_agent_runs(manager, kernel_id):
    """A notebook client (with the manager's own session id) keeps its replies and outputs."""
    km = manager.get_kernel(kernel_id)
    user = km.client()  # clone of the manager's session, like a frontend that reuses it
    user.start_channels()
    await user.wait_for_ready(timeout=30)
    agent = KernelService(manager)  # connects after the user: would steal replies if it shared ids
    try:
        user_task = asyncio.create_task(_user_run(user, "import time\ntime.sleep(0.5)\nprint('USER-OUT')"))
        await asyncio.sleep(0.1)
        results = [await agent.execute(kernel_id, f"print('AGENT-{i}')") for i in range(3)]
        reply, user_text = await asyncio.wait_for(user_task, 30)
        assert reply["content"]["status"] == "ok"
        assert user_text == "USER-OUT\n"
        assert [r.stdout for r in results] == ["AGENT-0\n", "AGENT-1\n", "AGENT-2\n"]
        # and the user keeps working after the agent's client exists
        reply, user_text = await _user_run(user, "print('USER-AGAIN')")
        assert user_text == "USER-AGAIN\n"
        assert (await agent.execute(kernel_id, "print('AGENT-LAST')")).stdout == "AGENT-LAST\n"
    finally:
        user.stop_channels()
        await agent.close()


async def test_busy_kernel(manager, service, kernel_id):
    km = manager.get_kernel(kernel_id)
    user = km.client(session=Session(key=km.session.key, signature_scheme=km.session.signature_scheme))
    user.start_channels()
    await user.wait_for_ready(timeout=30)
    try:
        task = asyncio.create_task(_user_run(user, "import time\ntime.sleep(1.5)\nprint('long user cell')"))
        await asyncio.sleep(0.3)
        with pytest.raises(KernelBusyError, match="busy with another request"):
            await service.execute(kernel_id, "1", wait_idle=0.3)
        # with patience the agent's code runs right after the user's cell, not during it
        res = await service.execute(kernel_id, "print('after user')", wait_idle=10)
        assert res.status == "ok" and res.stdout == "after user\n"
        _, text = await task
        assert text == "long user cell\n"
    finally:
        user.stop_channels()
