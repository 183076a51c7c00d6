"""The service inside a running jupyter_server (MappingKernelManager, sessions, autorestart)."""

from __future__ import annotations

import asyncio
import os
import signal
import time

import pytest

from geoagent_ext.kernel import KernelDeadError, KernelNotFoundError, KernelService


async def test_service_through_jupyter_server(jp_serverapp, jp_root_dir):
    km = jp_serverapp.kernel_manager
    sm = jp_serverapp.session_manager
    (jp_root_dir / "work").mkdir()
    (jp_root_dir / "work" / "data.txt").write_text("server data\n")
    session = await sm.create_session(path="work/analysis.ipynb", kernel_name="python3", type="notebook")
    svc = KernelService(km)
    try:
        kid = await svc.kernel_for_notebook("work/analysis.ipynb", sm)
        assert kid == session["kernel"]["id"]
        with pytest.raises(KernelNotFoundError, match="No running kernel session for notebook 'other.ipynb'"):
            await svc.kernel_for_notebook("other.ipynb", sm)

        res = await svc.execute(kid, "value = open('data.txt').read()\nprint(value, end='')\nvalue.upper()")
        assert res.status == "ok", res.error
        assert res.stdout == "server data\n"  # the kernel runs in the notebook's folder
        assert res.outputs[-1]["data"]["text/plain"] == "'SERVER DATA\\n'"

        trial = await svc.trial(kid, "del value\nopen('data.txt', 'w').write('changed')")
        assert trial.status == "ok" and trial.mode == "fork" and trial.deleted == ["value"]
        assert (jp_root_dir / "work" / "data.txt").read_text() == "server data\n"
        assert (await svc.execute(kid, "value", store_history=False)).status == "ok"

        members = {m.name for m in await svc.members(kid, "value")}
        assert {"upper", "splitlines"} <= members
        assert (await svc.closest_names(kid, "value", "uper"))[0] == "upper"

        # the server's autorestarter brings a killed kernel back; the service follows
        pid = km.get_kernel(kid).provisioner.pid
        asyncio.get_running_loop().call_later(0.5, os.kill, pid, signal.SIGKILL)
        t0 = time.perf_counter()
        res = await svc.execute(kid, "import time\ntime.sleep(60)", timeout=30)
        assert res.status == "dead" and time.perf_counter() - t0 < 5
        for _ in range(100):
            try:
                res = await svc.execute(kid, "'alive again'")
                break
            except KernelDeadError:
                await asyncio.sleep(0.2)
        assert res.status == "ok" and res.outputs[0]["data"]["text/plain"] == "'alive again'"
        assert km.get_kernel(kid).provisioner.pid != pid
    finally:
        await svc.close()
        await sm.delete_session(session["id"])
