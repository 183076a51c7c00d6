"""Two users on one host as a team deploys them: two real ``jupyter server`` processes (own token,
root and data dir) whose kernels all run on ONE real Kernel Gateway (README, "Kernels on a
gateway") and whose API docs come from ONE real chroma server (README, "Shared index").

Their runs go on at the same time, each in its own notebook and gateway kernel, and neither
server shows the other's kernel, runs or files. Then the chroma server dies in the middle of a
run: status says ``unreachable`` while the run goes on, the next step's retrieval degrades with
a warning event (the copy of the index the server loaded still answers), and the run ends.

One module-scoped setup (chroma, the small pystac-client index, the gateway, two servers);
the tests run in file order.
"""

from __future__ import annotations

import json
import textwrap
import time
from contextlib import ExitStack
from pathlib import Path

import pytest
import requests

from tests.chroma_server import chroma_server
from tests.kernel_gateway import kernel_gateway
from tests.scripted_server import scripted_server_config, server_process
from tests.teams.helpers import LIBRARY, User, build_shared_index

pytestmark = pytest.mark.timeout(300)

NAMES = ("alice", "bob")
HOLD_S = 6.0  # how long the model "thinks" after step 1 of the two-step run: the window to stop chroma in
# Each user's model (after a line setting OWNER, OTHER, MARK, HOLD_S): every step's code records
# what it saw (API docs from the index, the other user's variable in its kernel, the kernel's
# directory). The two-step request says "twice"; its step 1 leaves MARK and answers HOLD_S later.
SCRIPT = textwrap.dedent(r"""
    import pathlib

    def reply(messages):
        system, user = messages[0].text, messages[-1].text
        if "plans Python analyses" in system:
            if "twice" in user:
                return ("1. Find the class that searches a STAC catalogue with pystac and keep its name.\n"
                        "2. Find the pystac method that lists the items of a STAC search and keep its name.")
            return "1. Find the class that searches a STAC catalogue with pystac and keep its name."
        if "reviewing" in system:
            return "OK"
        docs = user.split("## API documentation", 1)[-1] if "## API documentation" in user else ""
        seen = "seen" if "pystac_client." in docs else "none"
        code = (f"import json, os\nowner_{OWNER} = {seen!r}\n"
                f"print(json.dumps({{'docs': owner_{OWNER}, 'other': 'owner_{OTHER}' in globals(), "
                "'cwd': os.getcwd()}))")
        answer = "```python\n" + code + "\n```"
        if "Your step (1 of 2)" in user:
            pathlib.Path(MARK).touch()
            return {"text": answer, "delay": HOLD_S}
        return answer
""")


def _script(name: str, mark: Path) -> str:
    other = NAMES[1 - NAMES.index(name)]
    return f"OWNER, OTHER, MARK, HOLD_S = {name!r}, {other!r}, {str(mark)!r}, {HOLD_S!r}\n" + SCRIPT


@pytest.fixture(scope="module")
def team(tmp_path_factory):
    """(chroma server, gateway (url, token, root), {name: User}); each User has ``home`` and
    ``mark`` (the file its model touches at step 1 of a two-step run)."""
    tmp = tmp_path_factory.mktemp("team-gateway")
    gateway_root = tmp / "gateway-host"
    gateway_root.mkdir()
    with ExitStack() as stack:
        chroma = stack.enter_context(chroma_server(tmp))
        build_shared_index(chroma, tmp / "cli-data")
        url, token = stack.enter_context(kernel_gateway(gateway_root, tmp / "gateway.log"))
        users = {}
        for name in NAMES:
            home = tmp / name
            home.mkdir()
            mark = home / "at-step-1"
            config = {
                **scripted_server_config(home, _script(name, mark), max_attempts=1, **chroma.settings),
                "GatewayClient": {"url": url, "auth_token": token, "request_timeout": 120.0},
            }
            base, auth, _log, _pid = stack.enter_context(server_process(home, config))
            users[name] = User(base, auth)
            users[name].home, users[name].mark = home, mark
        yield chroma, (url, token, gateway_root), users


def _solved(events: list[dict]) -> list[dict]:
    """What each solved step's code printed (its JSON line)."""
    return [json.loads(e["result"]["stdout"].strip().splitlines()[-1]) for e in events if e["type"] == "solved"]


def _gateway_kernels(gateway) -> set[str]:
    url, token, _root = gateway
    answer = requests.get(f"{url}/api/kernels", headers={"Authorization": f"token {token}"}, timeout=30)
    assert answer.ok, answer.text
    return {k["id"] for k in answer.json()}


def test_two_users_run_at_once_on_one_gateway_and_one_index(team):
    chroma, gateway, users = team
    kernels = {}
    for name, user in users.items():
        status = user.call("GET", "geoagent/status").json()
        assert status["kernels"]["where"] == "gateway" and status["kernels"]["gateway"] == gateway[0], status
        index = status["index"]
        assert (index["state"], index["location"], list(index["libraries"])) == (
            "remote",
            f"127.0.0.1:{chroma.port}",
            [LIBRARY],
        ), index
        kernels[name] = user.open_notebook(f"{name}.ipynb")
    assert set(kernels.values()) <= _gateway_kernels(gateway)  # both users' kernels live on the one gateway

    runs = {name: user.start_run("which class searches STAC?", f"{name}.ipynb") for name, user in users.items()}
    states = {name: users[name].wait_run(run_id, timeout=120) for name, run_id in runs.items()}
    _assert_overlapped(*(users[name].events(run_id) for name, run_id in runs.items()))
    for name, user in users.items():
        other = NAMES[1 - NAMES.index(name)]
        assert states[name]["status"] == "succeeded", states[name]
        events = user.events(runs[name])
        assert not [e for e in events if e["type"] == "warning"], events
        [step] = _solved(events)
        # Docs from the shared chroma server; no trace of the other user's run in this kernel,
        # which runs in the gateway's directory, not this user's root.
        assert step == {"docs": "seen", "other": False, "cwd": str(gateway[2])}, step
        _assert_sees_only_its_own(user, name, other, kernels, runs)


def _assert_overlapped(one: list[dict], other: list[dict]) -> None:
    """Each run started before the other finished (event timestamps are ISO UTC, comparable as text)."""
    assert one[0]["ts"] < other[-1]["ts"] and other[0]["ts"] < one[-1]["ts"], (one[0], one[-1], other[0], other[-1])


def _assert_sees_only_its_own(user: User, name: str, other: str, kernels: dict, runs: dict) -> None:
    """Kernels, runs and files: the other user's are neither listed nor reachable by id."""
    assert [k["id"] for k in user.call("GET", "api/kernels").json()] == [kernels[name]]
    assert user.call("GET", f"api/kernels/{kernels[other]}", ok=False).status_code == 404
    refused = user.call("POST", "geoagent/runs", {"request": "x", "kernel_id": kernels[other]}, ok=False)
    assert refused.status_code == 404, refused.text
    assert [r["run_id"] for r in user.call("GET", "geoagent/runs").json()["runs"]] == [runs[name]]
    assert user.call("GET", f"geoagent/runs/{runs[other]}", ok=False).status_code == 404
    listed = {f["name"] for f in user.call("GET", "api/contents").json()["content"]}
    assert f"{name}.ipynb" in listed and f"{other}.ipynb" not in listed, listed
    assert user.call("GET", f"api/contents/{other}.ipynb", ok=False).status_code == 404
    assert (user.home / "root" / ".geoagent" / "runs" / f"{runs[name]}.jsonl").is_file()
    assert not list(user.home.rglob(f"{runs[other]}.jsonl"))


def _wait_for(path: Path, run: tuple[User, str], timeout: float = 60) -> None:
    user, run_id = run
    deadline = time.monotonic() + timeout
    while not path.exists():
        state = user.call("GET", f"geoagent/runs/{run_id}").json()
        assert state["status"] == "running" and time.monotonic() < deadline, f"no step 1 of 2: {state}"
        time.sleep(0.1)


def test_chroma_stopped_during_a_run_degrades_it_with_a_warning_and_it_ends(team):
    chroma, _gateway, users = team
    alice = users["alice"]
    run_id = alice.start_run("which class searches STAC, and its items: look twice", "alice.ipynb")
    _wait_for(alice.mark, (alice, run_id))  # step 1 retrieved from chroma; its model answers HOLD_S later
    chroma.kill()
    for user in users.values():
        index = user.call("GET", "geoagent/status", timeout=10).json()["index"]
        assert index["state"] == "unreachable" and index["location"] == f"127.0.0.1:{chroma.port}", index
    assert alice.call("GET", f"geoagent/runs/{run_id}").json()["status"] == "running"  # status said so meanwhile

    state = alice.wait_run(run_id, timeout=60)
    assert state["status"] == "succeeded", state
    events = alice.events(run_id)
    warnings = [e for e in events if e["type"] == "warning"]
    assert len(warnings) == 1 and warnings[0]["source"] == "retrieval", warnings
    assert "API retrieval is degraded: cannot reach the chroma server" in warnings[0]["message"], warnings
    assert f"127.0.0.1:{chroma.port}" in warnings[0]["message"]
    assert state["warnings"] == [{"source": "retrieval", "message": warnings[0]["message"]}]
    # Step 1 saw chroma's docs, step 2 the copy this server loaded; the run log keeps the warning.
    assert [s["docs"] for s in _solved(events)] == ["seen", "seen"]
    log = (alice.home / "root" / ".geoagent" / "runs" / f"{run_id}.jsonl").read_text()
    assert warnings[0]["message"] in log
