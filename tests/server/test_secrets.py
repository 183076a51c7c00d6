"""No secret from the server's environment reaches an event, the run log, the chat, a
notebook or the server log, even when the model's code prints it in the kernel; and,
opt-in, kernels can start without such variables at all."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import subprocess
import sys
import textwrap
import time
import uuid

import nbformat
import pytest
import requests

from geoagent_ext.agent import notebook as nbwriter
from geoagent_ext.kernel import KernelService
from geoagent_ext.runs.kernel_env import (
    PROVISIONER_NAME,
    restore_default_provisioner,
    secret_names,
    use_secretless_kernels,
)
from tests.persona.helpers import EXTENSIONS, close_chat, open_chat, open_notebook
from tests.scripted_server import scripted_server_config, server_process

# Step 1 prints both secrets, then so much that the events' 4000-character stdout cap cuts
# through the token; step 2 puts them in an exception (error paths are events too).
SCRIPT = textwrap.dedent("""
    def reply(messages):
        system, user = messages[0].text, messages[-1].text
        if "plans Python analyses" in system:
            return "1. Print the service keys.\\n2. Fail loudly with the key."
        if "Your step (1 of 2)" in user:
            return ("```python\\nimport os\\nprint('key:', os.environ.get('OPENAI_API_KEY'))\\n"
                    "print('token:', os.environ.get('GEO_SERVICE_TOKEN'))\\nprint('p' * 3990)\\n```")
        return ("```python\\nimport os\\nraise RuntimeError('bad key ' + os.environ.get('OPENAI_API_KEY', '-')"
                " + ' ' + os.environ.get('GEO_SERVICE_TOKEN', '-'))\\n```")
""")


@pytest.fixture
def secrets(monkeypatch):
    """A key of a known shape, and a token of no known shape with JSON-escaped characters."""
    values = {
        "OPENAI_API_KEY": f"sk-test-{uuid.uuid4().hex}",
        "GEO_SERVICE_TOKEN": f'q"uo\\te-{uuid.uuid4().hex[:16]}',
    }
    for name, value in values.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("GEO_PLAIN_SETTING", "visible-in-kernels")
    return values


@pytest.fixture
def strip(request):
    return getattr(request, "param", False)


@pytest.fixture
def jp_server_config(geoagent_data_dir, tmp_path, secrets, strip):
    yield scripted_server_config(tmp_path, SCRIPT, extensions=EXTENSIONS, max_attempts=1, strip_kernel_secrets=strip)
    restore_default_provisioner()  # the provisioner factory is a process-wide singleton


def _leaks(text: str, secrets: dict[str, str]) -> list[str]:
    """Names of secrets found in ``text``, whole or by a distinctive 8-character piece."""
    found = []
    for name, value in secrets.items():
        pieces = [value, value[-8:], value[8:16]]
        if any(piece in text for piece in pieces):
            found.append(name)
    return found


async def test_printed_secrets_stay_out_of_events_log_chat_notebook_and_server_log(
    jp_serverapp, jp_ws_fetch, jp_fetch, jp_root_dir, secrets, caplog, tmp_path
):
    chat = await open_chat(jp_serverapp, jp_ws_fetch, jp_root_dir)
    try:
        path = await open_notebook(jp_serverapp, jp_root_dir)
        await jp_fetch("geoagent", "active-notebook", method="POST", body=json.dumps({"path": path}))
        chat.send("@GeoAgent print my keys")
        stuck = await chat.wait_reply("needs you")
        chat.send("skip")
        await chat.wait_reply("Partly done")
        [run] = jp_serverapp.web_app.settings["geoagent"].run_manager.runs.values()

        # The kernel did have the secrets (this server does not strip them), and they were redacted.
        solved = [e for e in run.bus.history if e.type == "solved"][0]
        printed = "".join(o.get("text", "") for o in solved.result.outputs)
        assert printed.split()[:4] == ["key:", "[REDACTED]", "token:", "[REDACTED]"]
        assert "[REDACTED]" in stuck

        events = (await jp_fetch("geoagent", "runs", run.id, "events")).body.decode()
        assert _leaks(events, secrets) == []
        assert json.loads(events)["events"][-1]["type"] == "finished"
        assert _leaks(run.log.path.read_text(), secrets) == []
        assert _leaks(json.dumps([m.body for m in chat.model.get_messages()]), secrets) == []
        assert _leaks((jp_root_dir / "geo.chat").read_text(), secrets) == []  # the chat file on disk
        nb = nbformat.v4.new_notebook()
        assert nbwriter.append_run(nb, run.request, run.subtasks, run.bus.history) == 1
        nbwriter.write(nb, tmp_path / "out.ipynb")
        written = (tmp_path / "out.ipynb").read_text()
        assert "[REDACTED]" in written and _leaks(written, secrets) == []
        assert _leaks(caplog.text, secrets) == []
    finally:
        await close_chat(chat)


@pytest.mark.parametrize("strip", [True], indirect=True)
async def test_opt_in_kernels_start_without_secret_variables(jp_serverapp, secrets):
    kernel_id = await jp_serverapp.kernel_manager.start_kernel(kernel_name="python3")
    kernels = KernelService(jp_serverapp.kernel_manager)
    try:
        result = await kernels.execute(
            kernel_id, "import os\nprint(sorted(k for k in os.environ if k.startswith(('OPENAI', 'GEO_'))))"
        )
    finally:
        await kernels.close()
    assert result.stdout.strip() == "['GEO_PLAIN_SETTING']"


def test_secret_names_and_a_foreign_default_provisioner_is_left_alone():
    env = {"OPENAI_API_KEY": "x", "hf_token": "y", "AWS_SECRET": "z", "PATH": "/bin", "TOKENIZERS_PARALLELISM": "1"}
    assert secret_names(env, ["*_API_KEY", "*_TOKEN", "*_SECRET"]) == ["AWS_SECRET", "OPENAI_API_KEY", "hf_token"]
    from jupyter_client.provisioning import KernelProvisionerFactory

    factory = KernelProvisionerFactory.instance()
    before = factory.default_provisioner_name
    try:
        factory.default_provisioner_name = "some-remote-provisioner"
        assert use_secretless_kernels(None, ["*_API_KEY"]) is False
        assert factory.default_provisioner_name == "some-remote-provisioner"
        factory.default_provisioner_name = "local-provisioner"
        assert use_secretless_kernels(None, ["*_API_KEY"]) is True
        assert factory.default_provisioner_name == PROVISIONER_NAME
    finally:
        factory.default_provisioner_name = before
        restore_default_provisioner()


# The model's code plays the attacker of issue 18 (item 4): it reads the environ of its own
# process and of every ancestor up to init (the server first), prints what looks like a key
# base64- and hex-encoded (redaction only knows the plain value), and says in which
# process it found the key itself (compared by hash, so its code carries no secret).
PROC_ATTACK = textwrap.dedent("""
    import base64, hashlib, os
    pids, pid = [], os.getpid()
    while pid > 1:
        pids.append(pid)
        with open(f"/proc/{pid}/stat") as fh:
            pid = int(fh.read().rsplit(")", 1)[1].split()[1])
    found = []
    for pid in pids:
        try:
            with open(f"/proc/{pid}/environ", "rb") as fh:
                raw = fh.read()
        except OSError as exc:
            print(pid, "unreadable", type(exc).__name__)
            continue
        print(pid, "read", len(raw))
        for entry in raw.split(b"\\0"):
            name, _, value = entry.partition(b"=")
            if value and name.endswith((b"_KEY", b"_TOKEN")):
                print(name.decode(), base64.b64encode(value).decode(), value.hex())
            if value and hashlib.sha256(value).hexdigest() == TARGET:
                found.append(pid)
    print("found in", found)
""")


def _attack_script(secret: str) -> str:
    code = f"TARGET = {hashlib.sha256(secret.encode()).hexdigest()!r}\n" + PROC_ATTACK
    return textwrap.dedent(f"""
        def reply(messages):
            if "plans Python analyses" in messages[0].text:
                return "1. Look at the environment."
            return "```python\\n" + {code!r} + "\\n```"
    """)


def test_kernels_cannot_read_the_key_from_the_servers_proc_environ(tmp_path):
    """With strip_kernel_secrets the key is in no kernel's environment, and not in the
    environ of the server the kernel can open through /proc (it was, issue 18 item 4);
    neither plainly nor base64- or hex-encoded, in events, run log or server log."""
    secret = f"sk-test-{uuid.uuid4().hex}"
    (tmp_path / "attack.py").write_text(_attack_script(secret))
    config = {
        "ServerApp": {"jpserver_extensions": {"geoagent_ext": True}},
        "GeoAgentSettings": {
            "model": f"scripted:{tmp_path / 'attack.py'}",
            "max_attempts": 1,
            "strip_kernel_secrets": True,
            "inline_warm": False,
        },
    }
    with server_process(tmp_path, config, env={"OPENAI_API_KEY": secret}) as (base, auth, log_path, server_pid):
        with open(f"/proc/{server_pid}/environ", "rb") as fh:
            assert secret.encode() not in fh.read()  # what any process of this user could read
        kernel_id = requests.post(f"{base}/api/kernels", headers=auth, json={"name": "python3"}, timeout=60).json()[
            "id"
        ]
        run_id = requests.post(
            f"{base}/geoagent/runs", headers=auth, json={"request": "look", "kernel_id": kernel_id}, timeout=60
        ).json()["run_id"]
        for _ in range(300):
            state = requests.get(f"{base}/geoagent/runs/{run_id}", headers=auth, timeout=10).json()
            if state["status"] != "running":
                break
            time.sleep(0.2)
        events = requests.get(f"{base}/geoagent/runs/{run_id}/events", headers=auth, timeout=10).text
    assert state["status"] == "succeeded", state
    executed = [e for e in json.loads(events)["events"] if e["type"] == "executed"]
    live = [e["result"]["stdout"] for e in executed if not e["trial"]][-1]
    assert f"{server_pid} read" in live or f"{server_pid} unreadable" in live, live  # the server was tried
    assert "found in []" in live, live
    run_log = next((tmp_path / "data").rglob(f"{run_id}.jsonl")).read_text()
    encodings = [secret, base64.b64encode(secret.encode()).decode(), secret.encode().hex()]
    for where, text in (("events", events), ("run log", run_log), ("server log", log_path.read_text())):
        assert [e for e in encodings if e in text] == [], where


def test_the_scrubbed_server_holds_its_key_for_its_models_and_its_children_get_none(tmp_path):
    """The key leaves os.environ, the C environment (what subprocess and exec pass on) and the
    /proc view; the server keeps it in memory: an openai model made afterwards is given it,
    redaction and the model list still know it. A kept name stays for code in the server."""
    probe = textwrap.dedent("""
        import ctypes, json, os, subprocess, sys
        from geoagent_ext.runs.server_env import scrub_own_environment
        from geoagent_ext.llm.choices import list_models
        from geoagent_ext.llm.factory import make_chat_model
        from geoagent_ext.redact import redact
        from geoagent_ext.config import GeoAgentSettings
        moved = scrub_own_environment(["*_API_KEY", "*_TOKEN"], keep=["JUPYTERHUB_*"])
        getenv = ctypes.CDLL(None).getenv
        getenv.restype = ctypes.c_char_p
        with open("/proc/self/environ", "rb") as fh:
            proc = fh.read().decode()
        child = subprocess.run([sys.executable, "-c", "import os; print(dict(os.environ))"],
                               capture_output=True, text=True, check=True).stdout
        key = os.environ.get("OPENAI_API_KEY", "")
        model = make_chat_model("openai:gpt-4o")
        openai = [m for m in list_models(GeoAgentSettings())["models"] if m["id"] == "openai:gpt-4o"]
        print(json.dumps({"moved": moved, "environ": "OPENAI_API_KEY" in os.environ,
                          "getenv": getenv(b"OPENAI_API_KEY"), "proc": proc, "child": child,
                          "model_key": model.openai_api_key.get_secret_value(),
                          "redacted": redact("the key is " + model.openai_api_key.get_secret_value()),
                          "offered": openai[0]["available"] if openai else None,
                          "hub": os.environ.get("JUPYTERHUB_API_TOKEN"),
                          "dumpable": ctypes.CDLL(None).prctl(3, 0, 0, 0, 0)}))
    """)
    secret, hub = f"sk-test-{uuid.uuid4().hex}", f"hub-{uuid.uuid4().hex}"
    env = {**os.environ, "OPENAI_API_KEY": secret, "JUPYTERHUB_API_TOKEN": hub, "GEO_PLAIN": "kept"}
    for name in ("OPENAI_BASE_URL", "OPENAI_API_BASE"):
        env.pop(name, None)
    out = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True).stdout
    seen = json.loads(out)
    assert "OPENAI_API_KEY" in seen["moved"] and "JUPYTERHUB_API_TOKEN" not in seen["moved"]
    assert seen["environ"] is False and seen["getenv"] is None
    assert secret not in seen["child"] and "GEO_PLAIN" in seen["child"]
    assert seen["model_key"] == secret and seen["redacted"] == "the key is [REDACTED]"
    assert seen["offered"] is True
    assert secret not in seen["proc"] and hub not in seen["proc"] and "GEO_PLAIN=kept" in seen["proc"]
    assert seen["hub"] == hub and hub in seen["child"]  # a kept name: code in the server reads it
    assert seen["dumpable"] == 0  # PR_GET_DUMPABLE: /proc/<pid>/mem is closed to other non-root processes
