"""A run on a real jupyter_server whose model is ``openai:<model>`` on a self-hosted
OpenAI-compatible server (llama-cpp-python's, the local 0.5B model, key required),
configured only through ``GeoAgentSettings.openai_base_url`` and ``OPENAI_API_KEY``.

With the right key the run plans and proposes code through HTTP and counts the
server's tokens; with a wrong one it fails at once with a status that says to check
the key. Either way the key is in no event, run log, server log line, kernel or
notebook (kernels are started secretless, as ``strip_kernel_secrets`` promises).
"""

from __future__ import annotations

import asyncio
import json
import logging

import nbformat
import pytest

from geoagent_ext.agent import notebook as nbwriter
from geoagent_ext.kernel import KernelService
from geoagent_ext.runs.kernel_env import restore_default_provisioner
from tests.openai_server import ALIAS

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]

WRONG_KEY = "geo-wrong-fedcba9876543210"
DONE = {"succeeded", "partial", "failed", "cancelled"}


@pytest.fixture
def key(openai_server, request):
    """The key the Jupyter server holds: the model server's own, or a parametrized wrong one."""
    return getattr(request, "param", None) or openai_server.key


@pytest.fixture
def jp_server_config(geoagent_data_dir, openai_server, key, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", key)
    for name in ("OPENAI_BASE_URL", "OPENAI_API_BASE"):
        monkeypatch.delenv(name, raising=False)
    yield {
        "ServerApp": {"jpserver_extensions": {"geoagent_ext": True}},
        "GeoAgentSettings": {
            "model": f"openai:{ALIAS}",
            "openai_base_url": openai_server.url,
            "strip_kernel_secrets": True,
            "max_attempts": 1,
            "llm_timeout": 300,
            "inline_warm": False,
        },
    }
    restore_default_provisioner()  # the provisioner factory is a process-wide singleton


async def _run(jp_fetch, jp_serverapp, request: str) -> tuple[str, list[dict], str]:
    """Start a run, see it to its end (a step handed to the human is skipped); its id, events, kernel."""
    kernel_id = await jp_serverapp.kernel_manager.start_kernel(kernel_name="python3")
    body = json.dumps({"request": request, "kernel_id": kernel_id})
    run_id = json.loads((await jp_fetch("geoagent", "runs", method="POST", body=body)).body)["run_id"]
    for _ in range(600 * 5):
        state = json.loads((await jp_fetch("geoagent", "runs", run_id)).body)
        if state["status"] in DONE:
            break
        if state["status"] == "needs_human":
            skip = {"kind": "skip", "subtask_id": state["waiting_for"]["subtask_id"]}
            await jp_fetch("geoagent", "runs", run_id, "actions", method="POST", body=json.dumps(skip))
        await asyncio.sleep(0.2)
    events = json.loads((await jp_fetch("geoagent", "runs", run_id, "events")).body)["events"]
    return run_id, events, kernel_id


async def _kernel_env(jp_serverapp, kernel_id: str) -> str:
    kernels = KernelService(jp_serverapp.kernel_manager)
    try:
        result = await kernels.execute(kernel_id, "import os\nprint(sorted(os.environ.items()))")
    finally:
        await kernels.close()
    assert result.status == "ok" and "PATH" in result.stdout
    return result.stdout


def _everything(jp_serverapp, run_id: str, events: list[dict], tmp_path) -> str:
    """Every text the key must stay out of: events, the run log, a notebook of the run."""
    run = jp_serverapp.web_app.settings["geoagent"].run_manager.runs[run_id]
    nb = nbformat.v4.new_notebook()
    nbwriter.append_run(nb, run.request, run.subtasks, run.bus.history)
    nbwriter.write(nb, tmp_path / "out.ipynb")
    return "\n".join([json.dumps(events), run.log.path.read_text(), (tmp_path / "out.ipynb").read_text()])


async def test_a_run_through_the_endpoint_counts_tokens_and_keeps_the_key_out(
    jp_fetch, jp_serverapp, openai_server, caplog, tmp_path
):
    caplog.set_level(logging.DEBUG)
    run_id, events, kernel_id = await _run(jp_fetch, jp_serverapp, "Print the sum of 2 and 3.")
    kinds = [e["type"] for e in events]
    finished = events[-1]
    assert finished["type"] == "finished" and finished["status"] != "failed", finished["message"]
    assert "planned" in kinds and "code_proposed" in kinds  # the model answered over HTTP
    stats = finished["stats"]
    print("openai-endpoint run:", finished["status"], json.dumps(stats))
    assert stats["llm_calls"] >= 2 and stats["tokens_in"] > 100 and stats["tokens_out"] > 5, stats

    key = openai_server.key
    assert key not in _everything(jp_serverapp, run_id, events, tmp_path)
    assert key not in caplog.text
    kernel_env = await _kernel_env(jp_serverapp, kernel_id)
    assert key not in kernel_env and "OPENAI_API_KEY" not in kernel_env


@pytest.mark.parametrize("key", [WRONG_KEY], indirect=True)
async def test_a_wrong_key_fails_the_run_with_check_your_key(jp_fetch, jp_serverapp, openai_server, caplog, tmp_path):
    caplog.set_level(logging.DEBUG)
    run_id, events, _ = await _run(jp_fetch, jp_serverapp, "Print the sum of 2 and 3.")
    finished = events[-1]
    assert finished["type"] == "finished" and finished["status"] == "failed"
    message = finished["message"]
    print("wrong-key status:", message)
    assert "rejected the API key (HTTP 401)" in message and "check your key" in message, message
    assert "OPENAI_API_KEY" in message and openai_server.url in message
    assert finished["stats"]["llm_calls"] == 1  # not retried: the same key fails the same way
    state = json.loads((await jp_fetch("geoagent", "runs", run_id)).body)
    assert state["status"] == "failed" and state["message"] == message  # what the panel shows
    for secret in (WRONG_KEY, openai_server.key):
        assert secret not in _everything(jp_serverapp, run_id, events, tmp_path) and secret not in caplog.text
