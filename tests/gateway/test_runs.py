"""A whole run through a real Kernel Gateway with a scripted model: its probes (CRS
advice, contract checks), trials, repair and commits all reach the gateway's kernel;
and what a gateway changes is said at start-up and on the status endpoint."""

from __future__ import annotations

import asyncio
import json
import textwrap

import pytest
import requests

from tests.gateway.conftest import gateway_config
from tests.scripted_server import scripted_server_config, server_process

pytestmark = pytest.mark.timeout(400)

SCRIPT = textwrap.dedent("""
    def reply(messages):
        system, user = messages[0].text, messages[-1].text
        if "plans Python analyses" in system:
            return "1. Read points.geojson into pts.\\n2. Write out.csv with the name column and n = 2."
        if "previous attempt failed" in user:
            return ("Cause: a typo in the column name\\n```python\\npts['n'] = 2\\n"
                    "pts[['name', 'n']].to_csv('out.csv', index=False)\\n```")
        if "Your step (1 of 2)" in user:
            return "```python\\nimport geopandas as gpd\\npts = gpd.read_file('points.geojson')\\n```"
        if "Your step (2 of 2)" in user:
            return "```python\\npts['n'] = 2\\npts[['name', 'nme']].to_csv('out.csv', index=False)\\n```"
        return "```python\\nprint('nothing more')\\n```"
""")

POINTS = {
    "type": "FeatureCollection",
    "features": [
        {"type": "Feature", "properties": {"name": n}, "geometry": {"type": "Point", "coordinates": [x, 48.1]}}
        for n, x in (("a", 11.5), ("b", 11.6))
    ],
}


@pytest.fixture
def jp_server_config(geoagent_data_dir, tmp_path, gateway, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-for-kernels-0123456789")
    config = scripted_server_config(tmp_path, SCRIPT, max_attempts=3)
    return {**config, **gateway_config(gateway)}


async def _post(jp_fetch, *path, body):
    return await jp_fetch("geoagent", *path, method="POST", body=json.dumps(body))


async def _wait_done(jp_fetch, run_id, timeout=300):
    for _ in range(int(timeout * 5)):
        state = json.loads((await jp_fetch("geoagent", "runs", run_id)).body)
        if state["status"] in {"succeeded", "partial", "failed", "needs_human", "cancelled"}:
            return state
        await asyncio.sleep(0.2)
    raise AssertionError(f"run stayed {state['status']}")


async def test_a_run_trials_repairs_probes_and_commits_through_the_gateway(
    jp_fetch, jp_serverapp, jp_root_dir, gateway
):
    root = gateway[2]
    (root / "points.geojson").write_text(json.dumps(POINTS))
    kernel_id = await jp_serverapp.kernel_manager.start_kernel(kernel_name="python3")
    created = json.loads(
        (
            await _post(
                jp_fetch,
                "runs",
                body={
                    "request": "Read points.geojson and write out.csv with the name column and a column n of 2.",
                    "kernel_id": kernel_id,
                },
            )
        ).body
    )
    state = await _wait_done(jp_fetch, created["run_id"])
    events = json.loads((await jp_fetch("geoagent", "runs", created["run_id"], "events")).body)["events"]
    assert state["status"] == "succeeded", (state, [e["type"] for e in events])

    manager = jp_serverapp.web_app.settings["geoagent"].run_manager
    conn = manager.kernels._conns[kernel_id]
    assert conn.remote and manager.kernels._hub.path is None  # every trial relayed by the remote kernel
    types = [e["type"] for e in events]
    assert "crs_advised" in types  # a probe of points.geojson in the gateway's kernel
    trials = [e for e in events if e["type"] == "executed" and e["trial"]]
    assert trials and all(e["result"]["status"] in ("ok", "error") for e in trials)
    assert any("KeyError" in (e["result"]["error"] or "") for e in trials)  # the typo failed in a trial
    assert [e["strategy"] for e in events if e["type"] == "repaired"]
    assert any(e["type"] == "requirement_checked" for e in events)  # out.csv read back in the kernel
    # Committed in the live remote kernel, on the gateway host's file system.
    assert (root / "out.csv").read_text().splitlines() == ["name,n", "a,2", "b,2"]
    assert not (jp_root_dir / "out.csv").exists()
    live = await manager.kernels.execute(kernel_id, "import os\nprint(list(pts.n), os.environ.get('OPENAI_API_KEY'))")
    assert live.stdout == "[2, 2] None\n"  # the server's key never reached the gateway's kernel


async def test_status_says_kernels_are_behind_the_gateway(jp_fetch, gateway):
    status = json.loads((await jp_fetch("geoagent", "status")).body)
    assert status["kernels"]["where"] == "gateway" and status["kernels"]["gateway"] == gateway[0]
    assert gateway[1] not in json.dumps(status)  # the gateway's token is not shown
    assert not any("strip_kernel_secrets" in n for n in status["kernels"]["notes"])


def test_secretless_kernels_degrade_with_a_message_on_a_gateway(gateway, tmp_path):
    """A real ``jupyter server --GatewayClient.url=...`` with strip_kernel_secrets on: the
    secretless provisioner cannot act on the gateway's kernels, and the server says so."""
    config = {**scripted_server_config(tmp_path, SCRIPT, strip_kernel_secrets=True), **gateway_config(gateway)}
    with server_process(tmp_path, config) as (base, auth, log_path, _pid):
        status = requests.get(f"{base}/geoagent/status", headers=auth, timeout=30).json()
        assert requests.get(f"{base}/geoagent/status", timeout=30).status_code == 403  # behind Jupyter's auth
    started = log_path.read_text()
    [note] = [n for n in status["kernels"]["notes"] if "strip_kernel_secrets" in n]
    assert "no effect on gateway kernels" in note and note in started  # said at start-up too
    assert f"kernels run behind the gateway {gateway[0]}" in started
    assert gateway[1] not in started and gateway[1] not in json.dumps(status)
