"""A real Jupyter AI chat path for tests: jupyterlab_chat's WebSocket chat -> jupyter-ai-router ->
jupyter-ai-persona-manager (which loads our persona from its entry point) -> RunManager ->
a real kernel. Shared by tests/persona and tests/server/test_secrets.py."""

from __future__ import annotations

import asyncio
import json
import uuid

PERSONA_ID = "jupyter-ai-personas::geoagent_ext::GeoAgentPersona"

EXTENSIONS = {
    "jupyterlab_chat": True,
    "jupyter_ai_router": True,
    "jupyter_ai_persona_manager": True,
    "geoagent_ext": True,
}


async def until(predicate, timeout=120.0, what="condition"):
    """Poll ``predicate`` (sync) until it returns something truthy."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.1)


class ChatClient:
    """One browser tab's chat connection, plus the server's view of the same chat."""

    def __init__(self, ws, serverapp, chat_id):
        self.ws, self.serverapp, self.chat_id = ws, serverapp, chat_id

    @property
    def model(self):
        return self.serverapp.web_app.settings["chat_manager"].get(self.chat_id)

    @property
    def persona(self):
        managers = self.serverapp.web_app.settings.get("jupyter-ai", {}).get("persona-managers", {})
        manager = managers.get(self.chat_id)
        return manager.personas.get(PERSONA_ID) if manager else None

    def send(self, body, attachments=None):
        frame = {
            "type": "client",
            "action": "send",
            "id": uuid.uuid4().hex,
            "body": body,
            "metadata": {"to_persona": PERSONA_ID},
        }
        if attachments:
            frame["attachments"] = attachments
        self.ws.write_message(json.dumps(frame))

    def replies(self):
        """Bodies of the persona's messages, oldest first."""
        return [m.body for m in self.model.get_messages() if m.sender == PERSONA_ID]

    async def wait_reply(self, fragment, timeout=120.0):
        """The first persona message containing ``fragment``."""
        return await until(lambda: next((b for b in self.replies() if fragment in b), None), timeout, repr(fragment))


async def open_chat(serverapp, ws_fetch, root_dir, path="geo.chat"):
    """Connect to a chat and wait until its PersonaManager has loaded GeoAgent."""
    (root_dir / path).write_text("{}")
    ws = await ws_fetch("api", "chat", "ws", path)
    hello = json.loads(await ws.read_message())
    assert hello["action"] == "connection"
    client = ChatClient(ws, serverapp, hello["id"])
    await until(lambda: client.persona, 30, "the persona manager to load GeoAgent")
    return client


async def close_chat(client):
    """Close the tab and stop the runs it left, so the server shuts down quickly."""
    client.ws.close()
    manager = client.serverapp.web_app.settings["geoagent"].run_manager
    tasks = [r._task for r in manager.runs.values() if r._task is not None and not r._task.done()]
    for r in manager.runs.values():
        r.cancel()
    if tasks:
        await asyncio.wait(tasks, timeout=20)


async def open_notebook(serverapp, root_dir, path="work/nb.ipynb"):
    """A notebook with a live kernel session (what JupyterLab creates when you open one)."""
    file = root_dir / path
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(json.dumps({"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    await serverapp.session_manager.create_session(path=path, kernel_name="python3", type="notebook")
    return path
