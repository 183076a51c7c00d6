"""A team on one shared index: a real ``chroma run`` server, the index built into it by the CLI,
two users' ``jupyter server`` processes (as JupyterHub spawns them: own root, own data dir)
querying it; their runs, run logs and active notebooks never cross; a server that goes away
degrades retrieval with a warning, never fails a run.

One module-scoped setup (chroma ~10 s, the small pystac-client index ~15 s, two servers
~15 s each) shared by the tests, which run in file order.
"""

from __future__ import annotations

import textwrap
import time
from contextlib import ExitStack

import pytest

from geoagent_ext.config import GeoAgentSettings
from geoagent_ext.rag import IndexUnavailable, KnowledgeIndex
from tests.chroma_server import chroma_server
from tests.scripted_server import free_port, scripted_server_config, server_process
from tests.teams.helpers import LIBRARY, User, build_shared_index

# The coder's prompt shows the API docs retrieval found; the code says whether it saw them.
SCRIPT = textwrap.dedent("""
    def reply(messages):
        system, user = messages[0].text, messages[-1].text
        if "plans Python analyses" in system:
            return "1. Find the class that searches a STAC catalogue with pystac and keep its name."
        if "reviewing" in system:
            return "OK"
        docs = user.split("## API documentation", 1)[-1] if "## API documentation" in user else ""
        seen = "pystac_client." in docs
        return "```python\\nsearch_docs = %r\\nprint(search_docs)\\n```" % ("seen" if seen else "none")
""")


@pytest.fixture(scope="module")
def team(tmp_path_factory):
    """(chroma server, {user: User}) with the index built into chroma by the CLI."""
    tmp = tmp_path_factory.mktemp("team")
    with ExitStack() as stack:
        chroma = stack.enter_context(chroma_server(tmp))
        build_shared_index(chroma, tmp / "cli-data")
        users = {}
        for name in ("alice", "bob"):
            home = tmp / name
            home.mkdir()
            config = scripted_server_config(home, SCRIPT, max_attempts=1, **chroma.settings)
            base, auth, _log, _pid = stack.enter_context(server_process(home, config))
            users[name] = User(base, auth)
            users[name].home = home
        yield chroma, users


def _code(events: list[dict]) -> str:
    return next(e for e in events if e["type"] == "solved")["code"]


def test_two_users_share_the_index_and_nothing_else(team):
    chroma, users = team
    alice, bob = users["alice"], users["bob"]
    for user in (alice, bob):
        index = user.call("GET", "geoagent/status").json()["index"]
        assert (index["state"], index["location"]) == ("remote", f"127.0.0.1:{chroma.port}"), index
        assert index["records"] > 0 and list(index["libraries"]) == [LIBRARY], index
    alice.open_notebook("alice.ipynb")
    bob.open_notebook("bob.ipynb")
    alice.call("POST", "geoagent/active-notebook", {"path": "alice.ipynb"})
    bob.call("POST", "geoagent/active-notebook", {"path": "bob.ipynb"})
    # At once, on two servers: each server's run queries the shared chroma server.
    runs = {
        "alice": alice.start_run("which class searches STAC?", "alice.ipynb"),
        "bob": bob.start_run("which class searches STAC?", "bob.ipynb"),
    }
    states = {name: users[name].wait_run(run_id) for name, run_id in runs.items()}
    for name, user in users.items():
        assert states[name]["status"] == "succeeded", states[name]
        events = user.events(runs[name])
        assert "search_docs = 'seen'" in _code(events)  # the coder saw docs from the chroma server
        assert not [e for e in events if e["type"] == "warning"]
        other = runs["bob" if name == "alice" else "alice"]
        # Runs: each server knows only its own.
        assert [r["run_id"] for r in user.call("GET", "geoagent/runs").json()["runs"]] == [runs[name]]
        assert user.call("GET", f"geoagent/runs/{other}", ok=False).status_code == 404
        # Run logs: beside the user's own notebook, none of the other's anywhere in their home.
        assert (user.home / "root" / ".geoagent" / "runs" / f"{runs[name]}.jsonl").is_file()
        assert not list(user.home.rglob(f"{other}.jsonl"))
        # The active notebook is the user's own.
        assert user.call("GET", "geoagent/active-notebook").json()["path"] == f"{name}.ipynb"


def test_a_chroma_server_gone_mid_session_degrades_retrieval_with_a_warning(team):
    chroma, users = team
    alice = users["alice"]
    chroma.kill()
    run_id = alice.start_run("which class searches STAC, again?", "alice.ipynb")
    state = alice.wait_run(run_id)
    assert state["status"] == "succeeded", state
    events = alice.events(run_id)
    warnings = [e for e in events if e["type"] == "warning"]
    assert len(warnings) == 1 and warnings[0]["source"] == "retrieval", warnings
    assert "retrieval is degraded" in warnings[0]["message"]
    assert f"127.0.0.1:{chroma.port}" in warnings[0]["message"]
    assert state["warnings"] == [{"source": "retrieval", "message": warnings[0]["message"]}]
    # The copy the server loaded before still answered.
    assert "search_docs = 'seen'" in _code(events)


def test_an_index_opened_while_the_server_is_gone_recovers_when_it_is_back(team):
    """Never loaded: no docs (IndexUnavailable, never a rebuild over a shared server), and the
    same index object answers once the server is back, without a restart."""
    chroma, _users = team
    chroma.kill()
    settings = GeoAgentSettings(**chroma.settings, chroma_timeout=5.0)
    index = KnowledgeIndex.open(settings, auto_build=True)
    with pytest.raises(IndexUnavailable, match="cannot reach the chroma server"):
        index.retrieve("search a STAC catalogue")
    chroma.start()  # same --path: the index is still there
    index._checked = 0.0  # skip the wait between looks at the server (REMOTE_RECHECK_S)
    warnings: list[str] = []
    hits = index.retrieve("search a STAC catalogue for items", warnings=warnings)
    assert warnings == []
    assert any(h.library == LIBRARY for h in hits), hits
    # Gone again between two looks at the manifest: chroma's own search fails, the copy
    # loaded here is searched instead (the same records), with a warning.
    chroma.kill()
    index._checked = time.monotonic()  # the last look was just now
    warnings = []
    again = index.retrieve("search a STAC catalogue for items", warnings=warnings)
    assert [h.id for h in again] == [h.id for h in hits]
    assert len(warnings) == 1 and "searched the copy loaded at" in warnings[0], warnings
    index.close()


def test_an_unreachable_port_fails_fast(tmp_path):
    """Nothing listening: a clear IndexUnavailable at once, not a hang."""
    settings = GeoAgentSettings(chroma_host="127.0.0.1", chroma_port=free_port(), index_dir=str(tmp_path))
    index = KnowledgeIndex.open(settings, auto_build=False)
    with pytest.raises(IndexUnavailable, match="chroma_host"):
        index.retrieve("buffer")
    assert index.state == "unreachable"
