"""A kernel that dies or restarts under the service: clear errors, then recovery."""

from __future__ import annotations

import asyncio
import time

import pytest
import pytest_asyncio

from geoagent_ext.kernel import KernelDeadError, KernelService, start_kernel
from geoagent_ext.kernel.trial import TrialHub

from .conftest import kernel_pid, kill_kernel, make_manager, stops_running, trial_child

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def lone(tmp_path_factory):
    # the test decides when to restart, and a restart may move the kernel to new ports
    mkm = make_manager(tmp_path_factory.mktemp("connection-files"), autorestart=False, cache_ports=False)
    kid = await start_kernel(mkm)
    svc = KernelService(mkm)
    yield mkm, kid, svc
    await svc.close()
    await mkm.shutdown_all(now=True)


async def test_kernel_killed_mid_execute(lone):
    mkm, kid, svc = lone
    assert (await svc.execute(kid, "state = 1")).status == "ok"
    asyncio.get_running_loop().call_later(0.5, kill_kernel, mkm, kid)
    t0 = time.perf_counter()
    res = await svc.execute(kid, "import time\ntime.sleep(60)", timeout=30)
    assert res.status == "dead"
    assert "died while running" in res.error.message
    assert time.perf_counter() - t0 < 3  # noticed at once, not at the timeout
    with pytest.raises(KernelDeadError, match="not running"):
        await svc.execute(kid, "1")
    with pytest.raises(KernelDeadError):
        await svc.members(kid, "state")
    await mkm.restart_kernel(kid, now=True)
    res = await svc.execute(kid, "1 + 1")
    assert res.status == "ok" and res.outputs[0]["data"]["text/plain"] == "2"
    assert (await svc.execute(kid, "state")).error.ename == "NameError"  # a new process
    assert [m.name for m in await svc.members(kid, "str") if m.name == "upper"]  # helper reinstalled


async def test_restart_between_calls_is_transparent(lone):
    mkm, kid, svc = lone
    await svc.execute(kid, "before_restart = 1")
    km = mkm.get_kernel(kid)
    old_port = km.shell_port
    await km.restart_kernel(now=True, newports=True)  # new process on new ports
    assert km.shell_port != old_port
    res = await svc.execute(kid, "print('fresh')", timeout=20)
    assert res.status == "ok" and res.stdout == "fresh\n"
    trial = await svc.trial(kid, "t = 1")
    assert trial.status == "ok" and trial.defined == ["t"]


async def test_restart_during_execute_is_reported(lone):
    mkm, kid, svc = lone
    loop = asyncio.get_running_loop()
    loop.call_later(0.5, lambda: asyncio.ensure_future(mkm.restart_kernel(kid, now=True)))
    res = await svc.execute(kid, "import time\ntime.sleep(30)", timeout=20)
    assert res.status == "dead"
    assert "restarted" in res.error.message or "died" in res.error.message
    for _ in range(50):  # the restart completes in the background
        try:
            res = await svc.execute(kid, "'back'")
            break
        except KernelDeadError:
            await asyncio.sleep(0.2)
    assert res.status == "ok" and res.outputs[0]["data"]["text/plain"] == "'back'"


async def test_a_late_starting_status_of_the_same_process_is_not_a_restart(lone):
    # ipykernel 7 can answer our control ping before its main thread publishes
    # "starting" (seen on a loaded CI machine); the same process saying it again
    # must not fail the next request.
    mkm, kid, svc = lone
    await svc.execute(kid, "late_start = 1")
    res = await svc.execute(
        kid,
        "import time\nget_ipython().kernel._publish_status('starting', 'shell')\n"
        "time.sleep(0.5)\nprint(late_start + 1)",
    )
    assert res.status == "ok" and res.stdout == "2\n"


async def test_a_trial_ends_dead_at_once_when_its_kernel_is_killed(lone):
    """Not at its time limit: the run waiting on it holds the kernel until it returns."""
    mkm, kid, svc = lone
    trial = asyncio.ensure_future(svc.trial(kid, "import time\ntime.sleep(60)", timeout=50))
    child = await trial_child(kernel_pid(mkm, kid))
    await asyncio.sleep(1.0)  # past trial_start's answer (milliseconds): the service waits for the child
    kill_kernel(mkm, kid)
    t0 = time.perf_counter()
    res = await asyncio.wait_for(trial, 50)
    assert res.status == "dead" and res.error.ename == "KernelDied", res
    assert time.perf_counter() - t0 < 3
    assert await stops_running(child, within=3)
    await mkm.restart_kernel(kid, now=True)
    assert (await svc.trial(kid, "t = 1")).status == "ok"  # the new process forks trials again


async def test_a_trial_child_dies_with_its_kernel_with_nobody_to_kill_it(lone):
    """The child's own guard, without the service's wait: a child the kernel forked must not
    run on, orphaned, when the kernel is gone (nothing could ever read its result)."""
    mkm, kid, svc = lone
    hub = TrialHub()
    try:
        waiter = hub.expect("orphan")
        info = await svc.probe(
            kid,
            "trial_start",
            code="import time\ntime.sleep(60)",
            socket_path=await hub.start(),
            token="orphan",
            timeout=50,
            memory_mb=None,
        )
        assert info["mode"] == "fork", info
        await asyncio.wait_for(waiter.hello.wait(), 10)  # the child runs (and is past its guard)
        await asyncio.sleep(0.5)  # into its sandbox (a new user namespace) and the code
        kill_kernel(mkm, kid)
        assert await stops_running(info["pid"], within=2)
    finally:
        await hub.close()
        await mkm.restart_kernel(kid, now=True)
