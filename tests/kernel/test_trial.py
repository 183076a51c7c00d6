"""Trials run against a throw-away copy of the kernel state and leave the user's state alone."""

from __future__ import annotations

import asyncio
import os
import time

import pytest

from geoagent_ext.kernel import KernelService

from .conftest import kernel_pid, live_children

pytestmark = pytest.mark.asyncio(loop_scope="module")

STATE_PROBE = (
    "print(sorted(k for k in globals() if not k.startswith('_')), x, items, list(gdf.columns), gdf.crs.to_epsg(), "
    "len(gdf))"
)


async def live_state(service, kid):
    res = await service.execute(kid, STATE_PROBE, silent=True, store_history=False)
    assert res.status == "ok", res.error
    return res.stdout


async def test_trial_leaves_live_namespace_unchanged(service, geo_kernel):
    before = await live_state(service, geo_kernel)
    code = (
        "del x\n"  # delete a variable
        "items = 'rebound'\n"  # rebind a name
        "gdf['area'] = gdf.area\n"  # mutate a GeoDataFrame in place ...
        "gdf.to_crs(3857, inplace=True)\n"  # ... twice
        "gdf.drop(index=0, inplace=True)\n"
        "new_var = 1\n"
        "print(len(gdf), gdf.crs.to_epsg())\n"
        "gdf.columns.tolist()"
    )
    res = await service.trial(geo_kernel, code)
    assert res.status == "ok", res.error
    assert res.mode == "fork"
    assert res.stdout == "2 3857\n"
    assert res.outputs[-1]["output_type"] == "execute_result"
    assert res.outputs[-1]["data"]["text/plain"] == "['name', 'pop', 'geometry', 'area']"
    assert res.deleted == ["x"]
    assert res.changed == ["gdf", "items"]
    assert res.defined == ["new_var"]
    assert await live_state(service, geo_kernel) == before


async def test_in_place_value_change_is_noticed(service, geo_kernel):
    res = await service.trial(geo_kernel, "gdf.loc[1, 'pop'] = 999\nitems.append(4)")
    assert res.status == "ok"
    assert res.changed == ["gdf", "items"]
    live = await service.execute(geo_kernel, "print(gdf.loc[1, 'pop'], items)", store_history=False)
    assert live.stdout == "20 [1, 2, 3]\n"


async def test_trial_error_is_typed_and_shortened(service, geo_kernel):
    res = await service.trial(geo_kernel, "ok_line = 1\ngdf.to_crss(3857)")
    assert res.status == "error"
    assert res.error.ename == "AttributeError"
    assert res.error.lineno == 2
    assert res.error.message == (
        "AttributeError: 'GeoDataFrame' object has no attribute 'to_crss' (line 2: gdf.to_crss(3857))"
    )
    assert res.defined == ["ok_line"]  # the names it defined before failing


async def test_trial_output_never_reaches_the_notebook(manager, service, geo_kernel):
    """stdout, stderr, C-level output and displays of a trial go to the result only."""
    km = manager.get_kernel(geo_kernel)
    watcher = km.client()
    watcher.start_channels()
    await watcher.wait_for_ready(timeout=30)
    try:
        while True:  # drain
            try:
                await watcher.get_iopub_msg(timeout=0.2)
            except Exception:
                break
        res = await service.trial(
            geo_kernel,
            "import os, sys\nprint('TRIAL-PY')\nsys.stderr.write('TRIAL-ERR\\n')\n"
            "os.system('echo TRIAL-NATIVE')\nfrom IPython.display import display\ndisplay('TRIAL-DISPLAY')",
        )
        assert res.status == "ok", res.error
        assert "TRIAL-PY" in res.stdout and "TRIAL-NATIVE" in res.stdout
        assert res.stderr == "TRIAL-ERR\n"
        assert any(o.get("data", {}).get("text/plain") == "'TRIAL-DISPLAY'" for o in res.outputs)
        await asyncio.sleep(0.3)
        seen = []
        while True:
            try:
                msg = await watcher.get_iopub_msg(timeout=0.2)
            except Exception:
                break
            seen.append(str(msg["content"]))
        assert not [s for s in seen if "TRIAL-" in s]
    finally:
        watcher.stop_channels()


async def test_endless_trial_is_killed_and_kernel_stays_responsive(manager, service, geo_kernel):
    t0 = time.perf_counter()
    task = asyncio.create_task(service.trial(geo_kernel, "while True:\n    pass", timeout=2))
    await asyncio.sleep(0.5)
    # the user's kernel is not blocked by a running trial
    t1 = time.perf_counter()
    live = await service.execute(geo_kernel, "x + 1", store_history=False)
    assert live.status == "ok" and time.perf_counter() - t1 < 1.2  # blocked would be >= 1.5 s
    res = await task
    assert res.status == "timeout"
    assert "time limit" in res.error.message
    assert 1.9 < time.perf_counter() - t0 < 5
    await asyncio.sleep(0.2)
    assert live_children(kernel_pid(manager, geo_kernel)) == []  # the child was killed


async def test_cancelled_trial_is_killed_at_once(manager, service, geo_kernel):
    """Cancelling the run that waits for a trial used to leave the child burning a core
    until its own alarm (the time limit + 2 s) (issue 18, item 3)."""
    pid = kernel_pid(manager, geo_kernel)
    task = asyncio.create_task(service.trial(geo_kernel, "while True:\n    pass", timeout=120))
    for _ in range(100):
        await asyncio.sleep(0.1)
        if live_children(pid):
            break
    [child] = live_children(pid)
    await asyncio.sleep(0.5)  # the child has said hello to the hub: the service knows its pid
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    for _ in range(30):
        if not live_children(pid):
            break
        await asyncio.sleep(0.1)
    assert live_children(pid) == [], f"trial child {child} still runs after the cancel"
    live = await service.execute(geo_kernel, "x + 1", store_history=False)
    assert live.status == "ok" and live.stdout == "" and live.outputs[0]["data"]["text/plain"] == "42"


async def test_memory_limit(service, geo_kernel):
    res = await service.trial(geo_kernel, "big = bytearray(600 * 2**20)", memory_mb=200)
    assert res.status == "error"
    assert res.error.ename == "MemoryError"
    assert any("memory limit" in h for h in res.error.hints)
    ok = await service.trial(geo_kernel, "small = bytearray(50 * 2**20)", memory_mb=200)
    assert ok.status == "ok" and ok.defined == ["small"]


async def test_trials_run_concurrently(service, geo_kernel):
    t0 = time.perf_counter()
    results = await asyncio.gather(
        *[service.trial(geo_kernel, f"__import__('time').sleep(1)\nr{i} = {i}") for i in range(3)]
    )
    assert [r.defined for r in results] == [["r0"], ["r1"], ["r2"]]
    assert time.perf_counter() - t0 < 2.8


async def test_matplotlib_figure_is_returned_as_png(service, geo_kernel):
    res = await service.trial(geo_kernel, "ax = gdf.plot()")
    assert res.status == "ok", res.error
    pngs = [o for o in res.outputs if "image/png" in o.get("data", {})]
    assert len(pngs) == 1


def _files(root):
    return {
        os.path.relpath(os.path.join(d, f), root): open(os.path.join(d, f)).read()
        for d, _, fs in os.walk(root)
        for f in fs
    }


@pytest.mark.parametrize("sandbox", ["overlay", "mirror"])
async def test_trial_files_stay_in_sandbox(manager, geo_kernel, workdir, sandbox):
    svc = KernelService(manager, sandbox=sandbox)
    before = _files(workdir)
    code = (
        "open('data/input.csv', 'a').write('3,4\\n')\n"  # append to an input
        "open('keep.txt', 'w').write('overwritten')\n"  # overwrite a file
        "gdf.to_file('out.gpkg')\n"  # GDAL writes a new file
        "import os\nos.remove('data/input.csv') if False else None\n"
        "print(open('data/input.csv').read())"
    )
    try:
        res = await svc.trial(geo_kernel, code)
    finally:
        await svc.close()
    if sandbox == "overlay" and res.status == "error" and res.error.ename == "OSError":
        pytest.skip(f"no overlay sandbox on this machine (user namespaces off?): {res.error.message}")
    assert res.status == "ok", res.error
    assert res.sandbox == sandbox
    assert res.stdout == "a,b\n1,2\n3,4\n\n"  # the trial saw its own writes
    assert set(res.files) == {"data/input.csv", "keep.txt", "out.gpkg"}
    assert _files(workdir) == before  # the user's folder is untouched
    if sandbox == "overlay":
        assert res.sandbox_dir is None and res.sandbox_note == ""  # the writes ended with the trial
    else:
        assert not os.path.exists(res.sandbox_dir)  # removed when the service closed
        assert "not isolated" in res.sandbox_note


async def test_trial_write_to_absolute_path_in_mirror_is_refused(manager, geo_kernel, workdir):
    svc = KernelService(manager, sandbox="mirror")
    try:
        res = await svc.trial(geo_kernel, f"open({str(workdir / 'keep.txt')!r}, 'w').write('x')")
    finally:
        await svc.close()
    assert res.status == "error" and res.error.ename == "PermissionError"
    assert (workdir / "keep.txt").read_text() == "original\n"


async def test_replay_fallback_gives_the_same_answers(manager, geo_kernel, workdir, service):
    before = await live_state(service, geo_kernel)
    svc = KernelService(manager, trial_mode="replay")
    kernels_before = set(manager.list_kernel_ids())
    try:
        res = await svc.trial(
            geo_kernel,
            "del x\nitems = 'rebound'\ngdf['area'] = gdf.area\nnew_var = 1\nopen('keep.txt', 'w').write('replayed')",
        )
    finally:
        await svc.close()
    assert res.mode == "replay"
    assert res.status == "ok", res.error
    assert res.deleted == ["x"]
    assert res.changed == ["gdf", "items"]
    assert res.defined == ["new_var"]
    assert "keep.txt" in res.files
    assert (workdir / "keep.txt").read_text() == "original\n"
    assert res.sandbox_dir and not os.path.exists(res.sandbox_dir)
    assert set(manager.list_kernel_ids()) == kernels_before  # the replay kernel is gone
    assert await live_state(service, geo_kernel) == before


async def test_trial_does_not_hold_the_kernels_sockets(service, geo_kernel):
    """Inherited ZMQ sockets are closed in the child: a restart can re-bind the ports at once."""
    code = (
        "import os, stat\n"
        "print(sum(stat.S_ISSOCK(os.fstat(int(fd)).st_mode) for fd in os.listdir('/proc/self/fd')"
        " if os.path.exists(f'/proc/self/fd/{fd}')))"
    )
    res = await service.trial(geo_kernel, code)
    assert res.status == "ok", res.error
    assert res.stdout == "1\n"  # only the result socket to the service


async def test_a_file_the_kernel_holds_open_is_written_in_the_trial_only(service, geo_kernel, workdir):
    """A descriptor the user's kernel opened for writing leads to the trial's copy of the file."""
    live = await service.execute(geo_kernel, "held = open('held.log', 'a')\nheld.write('live\\n')\nheld.flush()")
    assert live.status == "ok", live.error
    try:
        res = await service.trial(geo_kernel, "held.write('trial\\n')\nheld.flush()\nprint(open('held.log').read())")
        assert res.status == "ok", res.error
        if res.sandbox == "overlay":
            assert res.stdout == "live\ntrial\n\n" and "held.log" in res.files
        assert (workdir / "held.log").read_text() == "live\n"
    finally:
        await service.execute(geo_kernel, "held.close()\ndel held\nimport os\nos.remove('held.log')")


async def test_a_trial_has_no_network_and_says_so(service, geo_kernel):
    """Nothing on the network is reachable from a trial, the kernel's own machine included;
    the error tells the repair (and the user) why code that downloads failed."""
    res = await service.trial(geo_kernel, "import socket\nsocket.create_connection(('127.0.0.1', 9), timeout=5)")
    if res.sandbox != "overlay":
        pytest.skip(f"no overlay sandbox here: {res.sandbox_note}")
    assert res.status == "error" and "Network is unreachable" in res.error.message, res.error
    assert any("Trials run without network" in hint for hint in res.error.hints)
