"""A real jupyter_server with jupyter_server_mcp enabled, GeoAgent's tools found through their
entry point, and a real MCP client (fastmcp over streamable HTTP) talking to its port.

The server also loads Jupyter AI's chat and persona manager, so a test can use the very MCP
settings (URL and identity headers) Jupyter AI hands to an ACP agent such as Claude Code.
"""

from __future__ import annotations

import json
import textwrap
import uuid

import pytest
from fastmcp import Client
from fastmcp.client.transports import StreamableHttpTransport

from geoagent_ext.config import GeoAgentSettings
from tests.persona.helpers import EXTENSIONS
from tests.scripted_server import free_port, scripted_server_config

GEO_TOOLS = {
    "geoagent_profile_data",
    "geoagent_members",
    "geoagent_api_docs",
    "geoagent_crs_advice",
    "geoagent_check_deliverable",
    "geoagent_run",
    "geoagent_run_status",
}

# The scripted model answers by the first marker its prompt contains. The plan has two steps:
# step 1 writes a CSV (printing a key on the way), step 2 sleeps a few seconds so a second run on
# the same kernel finds it busy; "slowly" makes planning take a minute (a busy persona).
SCRIPT = textwrap.dedent("""
    PLAN = "1. Write the summary file.\\n2. Wait a moment."
    CODE = {
        "Your step (1 of 2)": "import os\\nprint('key:', os.environ.get('GEO_SERVICE_TOKEN'))\\n"
                              "open('result.csv', 'w').write('code,count\\\\nA,1\\\\nB,2\\\\n')",
        "Your step (2 of 2)": "import time\\ntime.sleep(4)\\nprint('waited')",
    }

    def reply(messages):
        if "plans Python analyses" not in messages[0].text:
            return next("```python\\n%s\\n```" % code for mark, code in CODE.items() if mark in messages[-1].text)
        return {"text": PLAN, "delay": 60} if "slowly" in messages[-1].text else PLAN
""")


@pytest.fixture
def secret(monkeypatch):
    """A token of no known shape: only the environment rule of the redaction can catch it."""
    value = f"q-uote-{uuid.uuid4().hex[:16]}"
    monkeypatch.setenv("GEO_SERVICE_TOKEN", value)
    return value


@pytest.fixture(scope="session")
def shapely_index(tmp_path_factory):
    """A real chromadb index of the installed shapely (built once per session)."""
    from geoagent_ext.rag import KnowledgeIndex

    path = tmp_path_factory.mktemp("mcp-index")
    index = KnowledgeIndex.open(GeoAgentSettings(index_dir=str(path)), libraries=["shapely"])
    report = index.build()
    assert not report.failed, report.failed
    index.close()
    return path


@pytest.fixture
def index_dir(tmp_path):
    """No index unless a test asks for ``shapely_index`` (override this fixture)."""
    return tmp_path / "no-index"


@pytest.fixture
def mcp_port():
    return free_port()


@pytest.fixture
def jp_server_config(geoagent_data_dir, tmp_path, mcp_port, index_dir, secret):
    config = scripted_server_config(
        tmp_path,
        SCRIPT,
        extensions={**EXTENSIONS, "jupyter_server_mcp": True},
        max_attempts=1,
        index_dir=str(index_dir),
    )
    config["MCPExtensionApp"] = {"mcp_port": mcp_port}
    return config


@pytest.fixture
def mcp_url(jp_serverapp, jp_asyncio_loop, mcp_port):
    """Start jupyter_server_mcp as the server does after start-up (it discovers the tools then)."""
    jp_asyncio_loop.run_until_complete(jp_serverapp.extension_manager.start_extension("jupyter_server_mcp"))
    yield f"http://localhost:{mcp_port}/mcp"
    for app in jp_serverapp.extension_manager.extension_apps.get("jupyter_server_mcp", ()):
        jp_asyncio_loop.run_until_complete(app.stop_extension())


@pytest.fixture
def token_headers(jp_serverapp):
    return {"Authorization": f"token {jp_serverapp.identity_provider.token}"}


class Mcp:
    """One MCP client session per call, as an agent's client opens them."""

    def __init__(self, url: str, headers: dict[str, str]):
        self.url, self.headers = url, headers

    def client(self, headers: dict[str, str] | None = None) -> Client:
        return Client(StreamableHttpTransport(self.url, headers=self.headers if headers is None else headers))

    async def tools(self) -> dict[str, str]:
        async with self.client() as client:
            return {t.name: t.description or "" for t in await client.list_tools()}

    async def call(self, name: str, headers: dict[str, str] | None = None, **arguments):
        """(answer, None) for a result, (None, error text) for a tool error."""
        async with self.client(headers) as client:
            result = await client.call_tool(name, arguments, raise_on_error=False, timeout=300)
        text = "".join(getattr(c, "text", "") for c in result.content)
        if result.is_error:
            return None, text
        return result.structured_content or json.loads(text), None

    async def ok(self, name: str, **arguments):
        answer, error = await self.call(name, **arguments)
        assert error is None, f"{name} failed: {error}"
        return answer


@pytest.fixture
def mcp(mcp_url, token_headers):
    return Mcp(mcp_url, token_headers)
