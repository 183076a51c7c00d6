"""GeoAgent as MCP tools, for agents outside GeoAgent (Claude Code, Codex... in the Jupyter AI chat).

jupyter_server_mcp (installed with Jupyter AI 3.x) serves tools on its own port and finds ours
through the entry point ``jupyter_server_mcp.tools`` -> :data:`TOOLS` ("module:function" specs).
The tools call the services the panel calls (``GeoAgentServices``: the run manager, the kernel
service, the index and the contract checker), behind the caller check in ``access``. This module stays light: the MCP
extension imports it at server start.
"""

TOOLS = [
    "geoagent_ext.mcp.kernel_tools:geoagent_profile_data",
    "geoagent_ext.mcp.kernel_tools:geoagent_members",
    "geoagent_ext.mcp.docs_tool:geoagent_api_docs",
    "geoagent_ext.mcp.kernel_tools:geoagent_crs_advice",
    "geoagent_ext.mcp.kernel_tools:geoagent_check_deliverable",
    "geoagent_ext.mcp.run_tools:geoagent_run",
    "geoagent_ext.mcp.run_tools:geoagent_run_status",
]
