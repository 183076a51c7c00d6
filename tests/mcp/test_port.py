"""A taken MCP port: GeoAgent moves jupyter_server_mcp to a free one before it starts, and Jupyter
AI hands the moved address to its personas (a real server, a real chat, a real MCP client)."""

from __future__ import annotations

import json
import socket

import pytest

from geoagent_ext.mcp.port import pick_free_port, port_is_free
from tests.persona.helpers import close_chat, open_chat

from .conftest import GEO_TOOLS, Mcp


@pytest.fixture
def mcp_port():
    """The configured port, held by a listener of someone else's (another user's server)."""
    with socket.socket() as other:
        other.bind(("127.0.0.1", 0))
        other.listen()
        yield other.getsockname()[1]


@pytest.fixture
def mcp_url(jp_serverapp, jp_asyncio_loop):
    """Where GeoAgent says its tools are, once jupyter_server_mcp has started as the server starts it."""
    jp_asyncio_loop.run_until_complete(jp_serverapp.extension_manager.start_extension("jupyter_server_mcp"))
    yield jp_serverapp.web_app.settings["geoagent"].mcp_url
    for app in jp_serverapp.extension_manager.extension_apps.get("jupyter_server_mcp", ()):
        jp_asyncio_loop.run_until_complete(app.stop_extension())


def test_a_listening_port_is_taken_and_a_picked_one_is_free():
    with socket.socket() as other:
        other.bind(("127.0.0.1", 0))
        other.listen()
        taken = other.getsockname()[1]
        assert not port_is_free("localhost", taken)
        picked = pick_free_port("localhost")
        assert picked != taken and port_is_free("localhost", picked)
    assert port_is_free("localhost", taken)  # once the other listener is gone


async def test_tools_move_to_a_free_port_and_jupyter_ai_follows(
    mcp_url, mcp_port, token_headers, jp_serverapp, jp_fetch, jp_ws_fetch, jp_root_dir
):
    [app] = jp_serverapp.extension_manager.extension_apps["jupyter_server_mcp"]
    assert app.mcp_server_instance is not None, "jupyter_server_mcp did not start"
    moved = app.mcp_server_instance.port
    assert moved != mcp_port and mcp_url == f"http://localhost:{moved}/mcp"

    mcp = Mcp(mcp_url, token_headers)
    assert GEO_TOOLS <= set(await mcp.tools())
    _, error = await mcp.call("geoagent_run_status", run_id="r1")
    assert error == "no run 'r1'"  # the server's token is accepted there: the tools work

    status = json.loads((await jp_fetch("geoagent", "status")).body)
    assert status["mcp_url"] == mcp_url  # what a user points Claude Code or Codex at

    chat = await open_chat(jp_serverapp, jp_ws_fetch, jp_root_dir)
    try:
        urls = [getattr(s, "url", None) for s in chat.persona.get_mcp_settings().mcp_servers]
        assert mcp_url in urls and f"http://localhost:{mcp_port}/mcp" not in urls, urls
    finally:
        await close_chat(chat)
