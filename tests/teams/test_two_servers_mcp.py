"""Two users' ``jupyter server`` processes on one host, both with jupyter_server_mcp on its default
port (3001): each gets GeoAgent's MCP tools on a port of its own, reached by a real MCP client
with that server's token, and neither server's tools take the other's token."""

from __future__ import annotations

import textwrap
from contextlib import ExitStack

import pytest

from tests.mcp.conftest import GEO_TOOLS, Mcp
from tests.persona.helpers import EXTENSIONS
from tests.scripted_server import scripted_server_config, server_process
from tests.teams.helpers import User

DEFAULT_PORT = 3001  # jupyter_server_mcp's, when nothing is configured
SCRIPT = textwrap.dedent("""
    def reply(messages):
        return "1. Nothing to do."
""")


@pytest.fixture(scope="module")
def users(tmp_path_factory):
    """{name: (User, its MCP URL, its server log)}, started one after the other as users log in."""
    tmp = tmp_path_factory.mktemp("two-servers")
    with ExitStack() as stack:
        started = {}
        for name in ("alice", "bob"):
            home = tmp / name
            home.mkdir()
            config = scripted_server_config(home, SCRIPT, extensions={**EXTENSIONS, "jupyter_server_mcp": True})
            base, auth, log_path, _pid = stack.enter_context(server_process(home, config))
            user = User(base, auth)
            started[name] = (user, user.call("GET", "geoagent/status").json()["mcp_url"], log_path)
        yield started


def _port(url: str) -> int:
    return int(url.rsplit(":", 1)[1].split("/")[0])


def _moved_from_default(log: str) -> bool:
    return f"MCP port {DEFAULT_PORT} on localhost is taken" in log


async def test_each_server_has_its_own_working_mcp_tools(users):
    (alice, alice_url, _), (bob, bob_url, _) = users["alice"], users["bob"]
    assert alice_url and bob_url and _port(alice_url) != _port(bob_url)
    logs = {name: log.read_text() for name, (_user, _url, log) in users.items()}
    assert all("Cannot start MCP server" not in log for log in logs.values()), logs
    # Bob found the default taken (by Alice, or by someone before both); Alice kept it unless it was.
    assert _moved_from_default(logs["bob"]), logs["bob"][-3000:]
    assert _port(alice_url) == DEFAULT_PORT or _moved_from_default(logs["alice"])

    for user, url, other in ((alice, alice_url, bob), (bob, bob_url, alice)):
        mcp = Mcp(url, user.auth)
        assert GEO_TOOLS <= set(await mcp.tools()), url
        _, error = await mcp.call("geoagent_run_status", run_id="r1")
        assert error == "no run 'r1'", url  # this server's token reaches its run manager
        _, error = await mcp.call("geoagent_run_status", headers=other.auth, run_id="r1")
        assert "not authorised" in error, url  # the other user's token does not
