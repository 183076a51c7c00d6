"""Fixtures for the persona tests (see helpers.py for the chat path they drive)."""

from __future__ import annotations

import textwrap

import pytest

from tests.scripted_server import scripted_server_config

from .helpers import EXTENSIONS, close_chat, open_chat, open_notebook

# Step 1 works, step 2 fails until the user's hint names the right code; "slowly" makes
# planning take a minute (to cancel a working run).
SCRIPT = textwrap.dedent("""
    def reply(messages):
        system, user = messages[0].text, messages[-1].text
        if "plans Python analyses" in system:
            plan = "1. Set x to forty.\\n2. Print x plus two."
            return {"text": plan, "delay": 60} if "slowly" in user else plan
        if "Your step (1 of 2)" in user:
            return "```python\\nx = 40\\n```"
        if "Hint from the user" in user:
            return "```python\\nprint(x + 2)\\n```"
        return "```python\\nraise ValueError('the scripted step 2 always fails')\\n```"
""")


@pytest.fixture
def approval_mode(request):
    """Parametrize indirectly with True for a server whose runs wait for approval."""
    return getattr(request, "param", False)


@pytest.fixture
def jp_server_config(geoagent_data_dir, tmp_path, approval_mode):
    return scripted_server_config(tmp_path, SCRIPT, extensions=EXTENSIONS, max_attempts=1, approval_mode=approval_mode)


@pytest.fixture
def chat(jp_serverapp, jp_ws_fetch, jp_root_dir, jp_asyncio_loop):
    """A connected chat with GeoAgent loaded (sync: pytest-jupyter runs no async fixtures)."""
    client = jp_asyncio_loop.run_until_complete(open_chat(jp_serverapp, jp_ws_fetch, jp_root_dir))
    yield client
    jp_asyncio_loop.run_until_complete(close_chat(client))


@pytest.fixture
def notebook(jp_serverapp, jp_root_dir, jp_asyncio_loop):
    return jp_asyncio_loop.run_until_complete(open_notebook(jp_serverapp, jp_root_dir))
