"""Real ipykernels for the kernel-service tests (no mocks).

A module shares one kernel (starting one and importing geopandas costs ~2 s);
tests that kill or restart a kernel start their own.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time

import pytest
import pytest_asyncio
from jupyter_client.multikernelmanager import AsyncMultiKernelManager
from traitlets.config import Config

from geoagent_ext.kernel import KernelService, local_kernel_manager, start_kernel

GDF_SETUP = """
import geopandas as gpd
from shapely.geometry import Point, Polygon
gdf = gpd.GeoDataFrame(
    {"name": ["a", "b", None], "pop": [10, 20, 30]},
    geometry=[Point(0, 0), Point(1, 1), Polygon([(0, 0), (1, 0), (1, 1)])],
    crs=4326,
)
x = 41
items = [1, 2, 3]
"""


def make_manager(connection_dir, autorestart: bool = True, cache_ports: bool = True) -> AsyncMultiKernelManager:
    """``cache_ports=False`` lets ``restart_kernel(newports=True)`` really move the kernel."""
    return local_kernel_manager(
        Config({"KernelManager": {"autorestart": autorestart, "cache_ports": cache_ports}}),
        connection_dir=str(connection_dir),
    )


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    """The kernel's working directory, with a data file the trials must not change."""
    d = tmp_path_factory.mktemp("kernel-cwd")
    (d / "data").mkdir()
    (d / "data" / "input.csv").write_text("a,b\n1,2\n")
    (d / "keep.txt").write_text("original\n")
    return d


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def manager(tmp_path_factory):
    mkm = make_manager(tmp_path_factory.mktemp("connection-files"))
    yield mkm
    await mkm.shutdown_all(now=True)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def kernel_id(manager, workdir):
    return await start_kernel(manager, cwd=str(workdir))


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def service(manager):
    svc = KernelService(manager)
    yield svc
    await svc.close()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def geo_kernel(service, kernel_id):
    """The shared kernel with a small GeoDataFrame ``gdf`` and a few plain variables."""
    res = await service.execute(kernel_id, GDF_SETUP, timeout=60)
    assert res.status == "ok", res.error
    return kernel_id


def kernel_pid(manager, kernel_id) -> int:
    return manager.get_kernel(kernel_id).provisioner.pid


def live_children(pid: int) -> list[int]:
    """Non-zombie child processes of ``pid`` (Linux /proc)."""
    out = []
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/children") as f:
            for child in f.read().split():
                with open(f"/proc/{child}/stat") as s:
                    state = s.read().rsplit(")", 1)[1].split()[0]
                if state != "Z":
                    out.append(int(child))
    return out


def running(pid: int) -> bool:
    """Whether process ``pid`` still runs: a zombie (dead, not yet reaped by whoever
    adopted it) does not (Linux /proc)."""
    try:
        with open(f"/proc/{pid}/stat") as s:
            return s.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


async def stops_running(pid: int, within: float) -> bool:
    """Whether process ``pid`` stops running within ``within`` seconds."""
    deadline = time.monotonic() + within
    while running(pid):
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.05)
    return True


async def trial_child(kernel_pid: int, within: float = 60) -> int:
    """The pid of the kernel's (one) forked trial child, once it exists."""
    deadline = time.monotonic() + within
    while not live_children(kernel_pid):
        assert time.monotonic() < deadline, "no trial child appeared"
        await asyncio.sleep(0.05)
    [child] = live_children(kernel_pid)
    return child


def kill_kernel(manager, kernel_id) -> None:
    os.kill(kernel_pid(manager, kernel_id), signal.SIGKILL)
