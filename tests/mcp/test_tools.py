"""GeoAgent's MCP tools through a real MCP client session against a running jupyter_server with
jupyter_server_mcp, a real ipykernel behind a notebook session, and the scripted model."""

from __future__ import annotations

import asyncio
import json

from tests.persona.helpers import PERSONA_ID, close_chat, open_chat, open_notebook, until

from .conftest import GEO_TOOLS

DISTRICTS = {
    "type": "FeatureCollection",
    "features": [
        {
            "type": "Feature",
            "properties": {"district_code": code, "district_name": name},
            "geometry": {
                "type": "Polygon",
                "coordinates": [[[x, 48.18], [x + 0.05, 48.18], [x + 0.05, 48.22], [x, 48.22], [x, 48.18]]],
            },
        }
        for code, name, x in (("A", "Innere Stadt", 16.35), ("B", "Leopoldstadt", 16.40))
    ],
}
REQUEST = (
    "Compute the area of every district in data/districts.geojson and write out/summary.csv with the "
    "columns `district_code`, `district_name` and `area_km2`, sorted by `district_code`."
)


def _manager(jp_serverapp):
    return jp_serverapp.web_app.settings["geoagent"].run_manager


async def _notebook_with_data(jp_serverapp, jp_root_dir):
    """An open notebook (work/nb.ipynb) whose kernel has read the districts; returns (path, kernel id)."""
    path = await open_notebook(jp_serverapp, jp_root_dir)
    (jp_root_dir / "work" / "data").mkdir()
    (jp_root_dir / "work" / "data" / "districts.geojson").write_text(json.dumps(DISTRICTS))
    manager = _manager(jp_serverapp)
    kernel_id = await manager.kernel_for(notebook_path=path)
    setup = await manager.kernels.execute(
        kernel_id,
        "import os\nimport geopandas as gpd\n"
        "gdf = gpd.read_file('data/districts.geojson')\n"
        "leak = 'the key is ' + os.environ['GEO_SERVICE_TOKEN']\n",
    )
    assert setup.status == "ok", setup.error
    return path, kernel_id


async def test_the_tools_come_from_the_entry_point_and_need_jupyters_auth(mcp):
    tools = await mcp.tools()
    assert GEO_TOOLS <= set(tools), sorted(tools)
    assert all(len(tools[name]) > 100 for name in GEO_TOOLS)  # each says what it does and when to use it
    refused = [
        {},
        {"Authorization": "token not-the-token"},
        {"X-Jupyter-Chat-Id": "no-such-chat", "X-JupyterAI-Persona-Id": PERSONA_ID},
    ]
    for headers in refused:
        answer, error = await mcp.call("geoagent_run_status", headers=headers, run_id="r1")
        assert answer is None and "not authorised" in error, headers
    _, error = await mcp.call("geoagent_run_status", run_id="r1")
    assert error == "no run 'r1'"  # with the token the call reaches the run manager
    _, error = await mcp.call("geoagent_api_docs", query="buffer")
    assert "geoagent index build" in error  # this server has no index: said, not a crash


async def test_kernel_tools_read_the_notebooks_live_kernel(mcp, jp_serverapp, jp_root_dir, secret):
    path, kernel_id = await _notebook_with_data(jp_serverapp, jp_root_dir)

    overview = await mcp.ok("geoagent_profile_data", notebook_path=path)
    assert "- data/districts.geojson: vector: 2 features, Polygon, CRS EPSG:4326" in overview["files"]
    assert "- gdf: GeoDataFrame" in overview["variables"]
    variable = await mcp.ok("geoagent_profile_data", target="gdf", notebook_path=path)
    assert "gdf: GeoDataFrame, 2 rows" in variable["profile"] and "EPSG:4326" in variable["profile"]
    assert "district_name" in variable["profile"]
    file = await mcp.ok("geoagent_profile_data", target="data/districts.geojson", notebook_path=path)
    assert file["profile"].startswith("vector:") and "district_code" in file["profile"]
    _, error = await mcp.call("geoagent_profile_data", target="../../outside.csv", notebook_path=path)
    assert "inside it" in error
    leak = await mcp.ok("geoagent_profile_data", target="leak", notebook_path=path)
    assert secret not in json.dumps(leak) and "the key is [REDACTED]" in leak["profile"]

    members = await mcp.ok("geoagent_members", expression="gdf.geometry", notebook_path=path)
    to_crs = next(m for m in members["members"] if m["name"] == "to_crs")
    assert "epsg" in to_crs["signature"] and to_crs["kind"] == "method"
    assert not any(m["name"].startswith("_") for m in members["members"])
    _, error = await mcp.call("geoagent_members", expression="'x' * 400_000_000", notebook_path=path)
    assert "is not a variable or an attribute chain" in error  # refused, never evaluated in the kernel

    _manager(jp_serverapp).active_notebook = path  # what the panel reports; the default notebook
    advice = await mcp.ok("geoagent_crs_advice", layer="data/districts.geojson", purpose="area", limit=2)
    assert len(advice["ranked"]) == 2 and advice["notebook"] == path
    assert all(isinstance(c["epsg"], int) and "metre" in c["units"] for c in advice["ranked"])
    _, error = await mcp.call("geoagent_crs_advice", layer="gdf", purpose="anything")
    assert "purpose" in error  # checked against the listed purposes before the kernel is asked


async def test_a_tool_call_waits_for_the_users_running_cell(mcp, jp_serverapp, jp_root_dir):
    """Serialised per kernel: a probe waits until the user's cell is done, then sees its result."""
    path, kernel_id = await _notebook_with_data(jp_serverapp, jp_root_dir)
    user = jp_serverapp.kernel_manager.get_kernel(kernel_id).client()  # the notebook's own connection
    user.start_channels()
    try:
        user.execute("import time\ntime.sleep(4)\nlate = 42")
        await asyncio.sleep(1)
        profile = await mcp.ok("geoagent_profile_data", target="late", notebook_path=path)
        assert profile["profile"] == "late: int = 42"
    finally:
        user.stop_channels()


async def test_check_deliverable_reads_the_written_file_back(mcp, jp_serverapp, jp_root_dir):
    path, kernel_id = await _notebook_with_data(jp_serverapp, jp_root_dir)
    out = jp_root_dir / "work" / "out"
    out.mkdir()
    (out / "summary.csv").write_text("district_code,area_km2\nB,16.5\nA,16.5\n")  # each box: 16.5 km²

    check = await mcp.ok("geoagent_check_deliverable", request=REQUEST, outputs=["out/summary.csv"], notebook_path=path)
    failed = {r["requirement"].split(" (")[0]: r["seen"] for r in check["results"] if not r["passed"]}
    assert not check["passed"]
    # A closed list of three names: no other column either.
    columns = (
        "has the columns district_code, district_name, area_km2, and no geometry or row-index column beside them, "
        "nor any column the request does not name"
    )
    assert set(failed) == {
        columns,
        "rows are sorted by `district_code` ascending",
        "`district_name` holds the values of `data/districts.geojson`'s `district_name`",  # missing: no values
    }, check["results"]
    assert "district_name" in failed[columns]
    assert len(check["fix"]) == 3  # one line per failing requirement

    (out / "summary.csv").write_text("district_code,district_name,area_km2\nA,Innere Stadt,16.5\nB,Leopoldstadt,16.5\n")
    check = await mcp.ok("geoagent_check_deliverable", request=REQUEST, outputs=["out/summary.csv"], notebook_path=path)
    assert check["passed"] and len(check["results"]) == 8 and check["fix"] == []
    # Square degrees are not km²: the area check reads the districts' own geometries.
    (out / "summary.csv").write_text(
        "district_code,district_name,area_km2\nA,Innere Stadt,0.002\nB,Leopoldstadt,0.002\n"
    )
    check = await mcp.ok("geoagent_check_deliverable", request=REQUEST, outputs=["out/summary.csv"], notebook_path=path)
    [unit] = [r for r in check["results"] if not r["passed"]]
    assert "as if measured in degrees" in unit["seen"], unit


async def test_the_run_tool_runs_in_the_notebooks_kernel_one_run_at_a_time(mcp, jp_serverapp, jp_root_dir, tmp_path):
    _, error = await mcp.call("geoagent_run", request="write result.csv")
    assert "no notebook is active" in error  # none named, none open in JupyterLab
    path = await open_notebook(jp_serverapp, jp_root_dir)
    loads_code = tmp_path / "loads_code.py"
    marker = tmp_path / "code-was-loaded"
    loads_code.write_text(f"open({str(marker)!r}, 'w').write('!')\ndef reply(messages):\n    return '1. x'\n")
    _, error = await mcp.call(
        "geoagent_run", request="write result.csv", notebook_path=path, model=f"scripted:{loads_code}"
    )
    assert "not offered" in error and not marker.exists()  # a request cannot make the server load code

    first = await mcp.ok("geoagent_run", request="write result.csv", notebook_path=path, wait_seconds=0)
    assert first["status"] == "running" and "geoagent_run_status" in first["next"]
    _, busy = await mcp.call("geoagent_run", request="write other.csv", notebook_path=path)
    assert f"run {first['run_id']} is still working on this kernel" in busy

    done = await mcp.ok("geoagent_run_status", run_id=first["run_id"], wait_seconds=240)
    assert done["status"] == "succeeded", done
    assert [s["status"] for s in done["steps"]] == ["solved", "solved"]
    assert "result.csv" in done["steps"][0]["code"] and done["unmet"] == []
    assert (jp_root_dir / "work" / "result.csv").read_text().startswith("code,count")
    run = _manager(jp_serverapp).get(first["run_id"])
    assert run.kernel_id == await _manager(jp_serverapp).kernel_for(notebook_path=path)


async def test_a_jupyter_ai_persona_may_call_only_while_it_answers(
    mcp, jp_serverapp, jp_ws_fetch, jp_root_dir, jp_fetch
):
    """The URL and headers Jupyter AI gives an ACP agent (Claude Code...) for the built-in MCP server."""
    chat = await open_chat(jp_serverapp, jp_ws_fetch, jp_root_dir)
    try:
        path = await open_notebook(jp_serverapp, jp_root_dir)
        await jp_fetch("geoagent", "active-notebook", method="POST", body=json.dumps({"path": path}))
        [server] = [s for s in chat.persona.get_mcp_settings().mcp_servers if getattr(s, "url", None) == mcp.url]
        persona_headers = {h.name: h.value for h in server.headers}  # no token among them
        assert set(persona_headers) == {"X-Jupyter-Chat-Id", "X-JupyterAI-Persona-Id"}

        chat.send("@GeoAgent slowly write result.csv")  # planning takes a minute: the persona is busy
        await until(lambda: chat.persona.processing, what="the turn")
        run = await until(lambda: next(iter(_manager(jp_serverapp).runs.values()), None), what="the run")
        status, error = await mcp.call("geoagent_run_status", headers=persona_headers, run_id=run.id)
        assert error is None and status["status"] == "running" and status["notebook"] == path

        chat.send("@GeoAgent cancel")
        await chat.wait_reply("Cancelled", timeout=30)
        await until(lambda: not chat.persona.processing, 10, "the turn to end")
        _, error = await mcp.call("geoagent_run_status", headers=persona_headers, run_id=run.id)
        assert "not authorised" in error
    finally:
        await close_chat(chat)
