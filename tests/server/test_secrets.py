"""No secret from the server's environment reaches an event, the run log, the chat, a
notebook or the server log, even when the model's code prints it in the kernel; and,
opt-in, kernels can start without such variables at all."""

from __future__ import annotations

import json
import textwrap
import uuid

import nbformat
import pytest

from geoagent_ext.agent import notebook as nbwriter
from geoagent_ext.kernel import KernelService
from geoagent_ext.runs.kernel_env import (
    PROVISIONER_NAME, restore_default_provisioner, secret_names, use_secretless_kernels,
)
from tests.persona.helpers import EXTENSIONS, close_chat, open_chat, open_notebook
from tests.scripted_server import scripted_server_config

# Step 1 prints both secrets, then so much that the events' 4000-character stdout cap cuts
# through the token; step 2 puts them in an exception (error paths are events too).
SCRIPT = textwrap.dedent('''
    def reply(messages):
        system, user = messages[0].text, messages[-1].text
        if "plans Python analyses" in system:
            return "1. Print the service keys.\\n2. Fail loudly with the key."
        if "Your step (1 of 2)" in user:
            return ("```python\\nimport os\\nprint('key:', os.environ.get('OPENAI_API_KEY'))\\n"
                    "print('token:', os.environ.get('GEO_SERVICE_TOKEN'))\\nprint('p' * 3990)\\n```")
        return ("```python\\nimport os\\nraise RuntimeError('bad key ' + os.environ.get('OPENAI_API_KEY', '-')"
                " + ' ' + os.environ.get('GEO_SERVICE_TOKEN', '-'))\\n```")
''')


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
        jp_serverapp, jp_ws_fetch, jp_fetch, jp_root_dir, secrets, caplog, tmp_path):
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
        result = await kernels.execute(kernel_id, "import os\nprint(sorted(k for k in os.environ if k.startswith(('OPENAI', 'GEO_'))))")
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
