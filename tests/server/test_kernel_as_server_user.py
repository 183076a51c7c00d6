"""With ``strip_kernel_secrets``, kernel code cannot act as the server's user over the
server's own API, and no process the server starts after start-up holds an API key.

A real ``jupyter server`` (its own process, keys in its initial environment) with
terminals. The model's code plays the attacker: it looks for the server's token in the
runtime directory (``jpserver-<pid>.json``, the browser-open file), forges a login
cookie from the runtime directory's cookie secret, opens a terminal with whatever got
in, and reads every process's ``/proc/<pid>/environ`` for the keys, printing what it
finds base64-encoded (redaction knows only plain values). Its report, printed as JSON,
carries no secret: it compares values by hash.

Everything here runs as root, which reads any process's memory: these tests show the
routes a kernel of the server's own (non-root) user had, not what root cannot do.
"""

from __future__ import annotations

import base64
import hashlib
import json
import textwrap
import time
import uuid

import psutil
import pytest
import requests

from tests.scripted_server import server_process

# The kernel's code: every route to the server's identity or to a key, reported by hash.
ATTACK = textwrap.dedent("""
    import base64, glob, hashlib, hmac, json, os, re, urllib.error, urllib.request
    from jupyter_core.paths import jupyter_runtime_dir
    from tornado.web import create_signed_value

    runtime = jupyter_runtime_dir()
    [info_file] = glob.glob(os.path.join(runtime, "jpserver-[0-9]*.json"))  # one server here
    info = json.load(open(info_file))
    base = info["url"].rstrip("/")
    report = {"info_file": True, "tokens": [], "terminal_statuses": [], "found_in": []}

    def status(path, method="GET", headers=None):
        data = b"" if method == "POST" else None
        request = urllib.request.Request(base + path, method=method, headers=headers or {}, data=data)
        try:
            with urllib.request.urlopen(request, timeout=10) as reply:
                return reply.status
        except urllib.error.HTTPError as exc:
            return exc.code
        except OSError as exc:
            return type(exc).__name__

    for path in glob.glob(os.path.join(runtime, "jpserver-*")):
        text = open(path).read()
        found = [json.loads(text).get("token")] if path.endswith(".json") else re.findall(r"token=(\\w+)", text)
        report["tokens"] += [t for t in found if t]
    for token in report["tokens"]:
        report["terminal_statuses"].append(status("/api/terminals", "POST", {"Authorization": "token " + token}))

    key = open(os.path.join(runtime, "jupyter_cookie_secret"), "rb").read()
    secret = hmac.new(key, b"", hashlib.sha256).digest()  # ServerApp's derivation, no password
    user = json.dumps({"username": "u", "name": "u", "display_name": "u", "initials": None,
                       "avatar_url": None, "color": None})
    name = re.sub(r"[^A-Za-z0-9]", "-", "username-" + base.split("://", 1)[1])
    cookie = create_signed_value(secret, name, user).decode()
    report["forged_cookie_status"] = status("/api/terminals", headers={"Cookie": f"{name}={cookie}"})

    for path in glob.glob("/proc/[0-9]*/environ"):
        try:
            raw = open(path, "rb").read()
        except OSError:
            continue
        for entry in raw.split(b"\\0"):
            value = entry.partition(b"=")[2]
            if value and hashlib.sha256(value).hexdigest() in TARGETS:
                print(base64.b64encode(value).decode())
                report["found_in"].append(int(path.split("/")[2]))
    print("REPORT", json.dumps(report))
""")


def _attack_script(secrets: dict[str, str]) -> str:
    targets = sorted(hashlib.sha256(v.encode()).hexdigest() for v in secrets.values())
    code = f"TARGETS = {targets!r}\n" + ATTACK
    return textwrap.dedent(f"""
        def reply(messages):
            if "plans Python analyses" in messages[0].text:
                return "1. Look around."
            return "```python\\n" + {code!r} + "\\n```"
    """)


@pytest.fixture(scope="module")
def secrets() -> dict[str, str]:
    return {"OPENAI_API_KEY": f"sk-test-{uuid.uuid4().hex}", "ANTHROPIC_API_KEY": f"geo-anthropic-{uuid.uuid4().hex}"}


@pytest.fixture(scope="module")
def server(tmp_path_factory, secrets):
    """A real server with strip_kernel_secrets and terminals, the keys in its environment."""
    tmp = tmp_path_factory.mktemp("kernel-as-user")
    (tmp / "attack.py").write_text(_attack_script(secrets))
    config = {
        "ServerApp": {"jpserver_extensions": {"geoagent_ext": True, "jupyter_server_terminals": True}},
        "GeoAgentSettings": {
            "model": f"scripted:{tmp / 'attack.py'}",
            "max_attempts": 1,
            "strip_kernel_secrets": True,
            "inline_warm": False,
        },
    }
    with server_process(tmp, config, env=secrets) as (base, auth, log_path, pid):
        yield {"base": base, "auth": auth, "log": log_path, "pid": pid, "tmp": tmp}


def _children(server_pid: int, *, kernels: bool) -> list[psutil.Process]:
    """The server's child processes: its kernels, or everything else (terminals)."""
    found = []
    for child in psutil.Process(server_pid).children():
        is_kernel = "ipykernel_launcher" in " ".join(child.cmdline())
        if is_kernel == kernels:
            found.append(child)
    return found


def _keys_in(environ: dict[str, str], secrets: dict[str, str]) -> list[str]:
    return sorted(name for name, value in secrets.items() if value in environ.values())


def _wait_for_child(server_pid: int, *, kernels: bool, known: set[int]) -> psutil.Process:
    for _ in range(100):
        fresh = [c for c in _children(server_pid, kernels=kernels) if c.pid not in known]
        if fresh:
            return fresh[0]
        time.sleep(0.1)
    raise AssertionError("the server started no such process")


def test_a_terminal_the_user_opens_inherits_no_key(server, secrets):
    """A terminal is a process of the user that any kernel of the user can read in /proc."""
    known = {c.pid for c in _children(server["pid"], kernels=False)}
    reply = requests.post(f"{server['base']}/api/terminals", headers=server["auth"], timeout=30)
    assert reply.status_code == 200, reply.text
    shell = _wait_for_child(server["pid"], kernels=False, known=known)
    environ = shell.environ()
    assert "PATH" in environ
    assert _keys_in(environ, secrets) == []


def test_a_kernel_started_over_the_api_inherits_no_key(server, secrets):
    known = {c.pid for c in _children(server["pid"], kernels=True)}
    reply = requests.post(f"{server['base']}/api/kernels", headers=server["auth"], json={"name": "python3"}, timeout=60)
    assert reply.status_code == 201, reply.text
    kernel = _wait_for_child(server["pid"], kernels=True, known=known)
    assert "PATH" in kernel.environ() and _keys_in(kernel.environ(), secrets) == []


def test_the_runtime_files_hold_no_token_once_a_kernel_runs(server):
    """``jupyter server list`` still finds the server, without a way in; the browser-open
    file (a redirect carrying the token) is gone."""
    requests.post(f"{server['base']}/api/kernels", headers=server["auth"], json={"name": "python3"}, timeout=60)
    runtime = server["tmp"] / "runtime"
    info = json.loads((runtime / f"jpserver-{server['pid']}.json").read_text())
    assert info["pid"] == server["pid"] and info["url"].startswith("http://127.0.0.1:")
    assert info["token"] == ""
    assert not (runtime / f"jpserver-{server['pid']}-open.html").exists()
    token = server["auth"]["Authorization"].split()[1]
    assert [p.name for p in runtime.iterdir() if token in p.read_text(errors="replace")] == []


def test_a_browser_still_logs_in_with_the_token(server):
    """The login cookie is signed with the key held in the server's memory, and works."""
    token = server["auth"]["Authorization"].split()[1]
    browser = requests.Session()
    assert browser.get(f"{server['base']}/api/terminals", timeout=10).status_code == 403
    assert browser.get(f"{server['base']}/api/status?token={token}", timeout=10).status_code == 200
    assert any(c.name.startswith("username-") for c in browser.cookies)
    assert browser.get(f"{server['base']}/api/terminals", timeout=10).status_code == 200


def _run(server: dict) -> tuple[dict, str]:
    """A GeoAgent run of the attacker's code on a fresh kernel: its final state, its events."""
    base, auth = server["base"], server["auth"]
    kernel_id = requests.post(f"{base}/api/kernels", headers=auth, json={"name": "python3"}, timeout=60).json()["id"]
    run_id = requests.post(
        f"{base}/geoagent/runs", headers=auth, json={"request": "look", "kernel_id": kernel_id}, timeout=60
    ).json()["run_id"]
    for _ in range(600):
        state = requests.get(f"{base}/geoagent/runs/{run_id}", headers=auth, timeout=10).json()
        if state["status"] != "running":
            break
        time.sleep(0.2)
    return state, requests.get(f"{base}/geoagent/runs/{run_id}/events", headers=auth, timeout=10).text


def test_model_code_cannot_act_as_the_server_user_or_find_a_key(server, secrets):
    requests.post(f"{server['base']}/api/terminals", headers=server["auth"], timeout=30)  # a user's terminal is open
    state, events = _run(server)
    assert state["status"] == "succeeded", state
    executed = [e for e in json.loads(events)["events"] if e["type"] == "executed" and not e["trial"]]
    stdout = executed[-1]["result"]["stdout"]
    report = json.loads(stdout.split("REPORT ", 1)[1])
    assert report["info_file"] and report["tokens"] == [] and report["terminal_statuses"] == []
    assert report["forged_cookie_status"] == 403, report
    assert report["found_in"] == [], report
    encoded = [v for s in secrets.values() for v in (s, base64.b64encode(s.encode()).decode())]
    run_logs = "".join(p.read_text() for p in (server["tmp"] / "data").rglob("*.jsonl"))
    for where, text in (("events", events), ("run logs", run_logs), ("server log", server["log"].read_text())):
        assert [e for e in encoded if e in text] == [], where
