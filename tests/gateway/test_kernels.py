"""Every kernel path of the agent through a real Kernel Gateway (loopback): execution with
exact outputs and tracebacks, fork trials inside the remote kernel, introspection and
probes, cancel and interrupt, and a restart seen as a new process before code is sent."""

from __future__ import annotations

import asyncio
import os
import time

import psutil
import pytest
import pytest_asyncio

from geoagent_ext.agent.kernel_handle import BoundKernel, KernelLost
from geoagent_ext.kernel import KernelService, local_kernel_manager, start_kernel
from geoagent_ext.kernel.errors import strip_ansi
from tests.gateway.conftest import gateway_config

pytestmark = pytest.mark.timeout(300)

CELLS = [
    "import sys\nprint('out', 1)\nprint('err', file=sys.stderr)\nfrom IPython.display import display, HTML\n"
    "display(HTML('<b>hi</b>'))\n{'a': [1, 2]}",
    "def inner(v):\n    return v / 0\n\ndef outer():\n    return inner(3)\n\nouter()",
    "import geopandas as gpd\nfrom shapely.geometry import Point\n"
    "gdf = gpd.GeoDataFrame({'name': ['a', 'b']}, geometry=[Point(0, 0), Point(1, 1)], crs=4326)\nx = 1",
]


@pytest.fixture
def jp_server_config(geoagent_data_dir, gateway):
    return {"ServerApp": {"jpserver_extensions": {"geoagent_ext": True}}, **gateway_config(gateway)}


@pytest_asyncio.fixture
async def remote(jp_serverapp):
    """(service, kernel id) of a kernel the gateway started, with ``gdf`` and ``x``."""
    km = jp_serverapp.kernel_manager
    kernel_id = await km.start_kernel(kernel_name="python3")
    service = KernelService(km)
    yield service, kernel_id
    await service.close()
    await km.shutdown_kernel(kernel_id, now=True)


def _comparable(outputs):
    """(stream outputs by stream, the others in order): stdout and stderr are flushed apart, so
    which of them comes first differs from run to run on any kernel (a CI run saw it)."""
    out = []
    for o in outputs:
        o = dict(o)
        if o["output_type"] == "error":
            o["traceback"] = [strip_ansi(line) for line in o["traceback"]]
        out.append(o)
    streams = sorted((o for o in out if o["output_type"] == "stream"), key=lambda o: o["name"])  # stable
    return streams, [o for o in out if o["output_type"] != "stream"]


async def test_execute_gives_the_outputs_and_tracebacks_a_local_kernel_gives(remote, tmp_path):
    service, kernel_id = remote
    mkm = local_kernel_manager(connection_dir=str(tmp_path))
    local_id = await start_kernel(mkm, cwd=str(tmp_path))
    local = KernelService(mkm)
    try:
        for cell in CELLS:
            got, want = (
                await service.execute(kernel_id, cell, timeout=120),
                await local.execute(local_id, cell, timeout=120),
            )
            assert got.status == want.status
            assert (got.stdout, got.stderr, got.execution_count) == (want.stdout, want.stderr, want.execution_count)
            assert _comparable(got.outputs) == _comparable(want.outputs)
            assert got.error == want.error
    finally:
        await local.close()
        await mkm.shutdown_all(now=True)
    assert service._conn(kernel_id).remote
    assert got.status == "ok" and [o["output_type"] for o in (await service.execute(kernel_id, CELLS[0])).outputs] == [
        "stream",
        "stream",
        "display_data",
        "execute_result",
    ]
    error = (await service.execute(kernel_id, CELLS[1])).error
    assert error.ename == "ZeroDivisionError" and error.lineno == 7
    shown = strip_ansi("".join(error.traceback))
    assert "inner(3)" in shown and "v / 0" in shown
    # The kernel is the gateway's child, not this server's (the test process).
    pid = int((await service.execute(kernel_id, "import os; print(os.getpid())")).stdout)
    parent = psutil.Process(pid).parent()
    assert parent.pid != os.getpid() and "kernel_gateway" in parent.cmdline()


async def test_a_fork_trial_runs_inside_the_remote_kernel_and_relays_its_result(remote, gateway):
    service, kernel_id = remote
    root = gateway[2]
    for cell in CELLS[2:]:
        assert (await service.execute(kernel_id, cell, timeout=120)).status == "ok"
    kernel_pid = int((await service.execute(kernel_id, "import os; print(os.getpid())")).stdout)
    code = (
        "import os\nx = 5\ngdf['area'] = gdf.geometry.area\nprint('parent', os.getppid())\n"
        "open('trial_out.txt', 'w').write('t')\ny = undefined_name if False else 2"
    )
    trial = await service.trial(kernel_id, code, timeout=60)
    assert trial.status == "ok", trial.error
    assert trial.mode == "fork" and trial.stdout == f"parent {kernel_pid}\n"  # forked from the kernel
    assert sorted(trial.defined) == ["y"] and sorted(trial.changed) == ["gdf", "x"]
    assert [f["path"] if isinstance(f, dict) else f for f in trial.files] == ["trial_out.txt"]
    assert service._hub.path is None  # no Unix socket of this server was used
    live = await service.execute(kernel_id, "print(x, list(gdf.columns), 'y' in dir())")
    assert live.stdout == "1 ['name', 'geometry'] False\n"  # the user's state is untouched
    assert not (root / "trial_out.txt").exists()

    failed = await service.trial(kernel_id, "import math\nmath.sqroot(4)", timeout=60)
    assert failed.status == "error" and failed.error.ename == "AttributeError" and failed.error.lineno == 2
    assert "sqroot" in strip_ansi("".join(failed.error.traceback))

    t0 = time.monotonic()
    hung = await service.trial(kernel_id, "import time\ntime.sleep(120)", timeout=3)
    assert hung.status == "timeout" and time.monotonic() - t0 < 30
    for _ in range(100):  # killed through the kernel (another host: no signal from here)
        left = await service.execute(kernel_id, "print(len(__geoagent__._children))", silent=True, store_history=False)
        if left.stdout.strip() == "0":
            break
        await asyncio.sleep(0.2)
    assert left.stdout.strip() == "0"


async def test_introspection_and_data_probes_answer_from_the_remote_kernel(remote):
    service, kernel_id = remote
    for cell in CELLS[2:]:
        assert (await service.execute(kernel_id, cell, timeout=120)).status == "ok"
    members = {m.name: m for m in await service.members(kernel_id, "gdf")}
    assert "to_crs" in members and "epsg" in members["to_crs"].signature
    assert "to_crs" in await service.closest_names(kernel_id, "gdf", "to_crss")
    profile = await service.profile(kernel_id, "gdf")
    assert "GeoDataFrame" in profile and "EPSG:4326" in profile
    assert {"gdf", "x"} <= {v.name for v in await service.variables(kernel_id)}


async def test_cancel_and_interrupt_reach_the_remote_kernel(remote):
    service, kernel_id = remote
    task = asyncio.create_task(service.execute(kernel_id, "import time\ntime.sleep(120)\nprint('not reached')"))
    await asyncio.sleep(3)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    t0 = time.monotonic()
    after = await service.execute(kernel_id, "print('free')", timeout=60)
    assert after.stdout == "free\n" and time.monotonic() - t0 < 20  # the sleep was interrupted

    timed = await service.execute(kernel_id, "import time\ntime.sleep(120)", timeout=2)
    assert timed.status == "timeout" and "interrupted" in timed.error.message

    running = asyncio.create_task(service.execute(kernel_id, "import time\ntime.sleep(120)"))
    await asyncio.sleep(3)
    await service.interrupt(kernel_id)
    result = await asyncio.wait_for(running, 60)
    assert result.status == "interrupted" and result.error.ename == "KeyboardInterrupt"


async def test_a_restart_through_the_gateway_is_a_new_process_before_code_is_sent(remote, jp_serverapp, gateway):
    service, kernel_id = remote
    root = gateway[2]
    bound = BoundKernel(service, kernel_id)
    assert (await bound.execute("x = 1")).status == "ok"
    before = service.process(kernel_id)
    assert before[0] == "remote"
    await jp_serverapp.kernel_manager.restart_kernel(kernel_id)
    with pytest.raises(KernelLost, match="restarted"):
        await bound.execute("open('ran_after_restart.txt', 'w').write('x')")
    assert not (root / "ran_after_restart.txt").exists()
    # A tool (no run) follows the restart: the new process, without x.
    res = await service.execute(kernel_id, "print('x' in dir())", timeout=60)
    assert res.stdout == "False\n" and service.process(kernel_id) not in (None, before)
