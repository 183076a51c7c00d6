"""A free port for jupyter_server_mcp when the configured one is taken.

jupyter_server_mcp listens on ``MCPExtensionApp.mcp_port`` (3001 unless configured) and gives
up when that port is taken, as it is by another user's Jupyter server on the same host. Jupyter
AI hands ``http://localhost:<MCPExtensionApp.mcp_port>/mcp`` to its chat personas, read from the
same configuration. So while the extensions load, before either starts, a taken port (or 0,
"the OS picks", which Jupyter AI cannot hand on) is replaced in the configuration by a free
one: the MCP server listens there and the personas are told so.
"""

from __future__ import annotations

import errno
import logging
import os
import socket
import sys
from typing import Any

MCP_EXTENSION = "jupyter_server_mcp"
MCP_APP_CONFIG = "MCPExtensionApp"  # the section both jupyter_server_mcp and Jupyter AI read
DEFAULT_HOST = "localhost"  # jupyter_server_mcp's MCPServer.host default
PICK_ATTEMPTS = 20


def _addresses(host: str, port: int) -> list[tuple]:
    infos = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    return sorted(set(infos))


def port_is_free(host: str, port: int) -> bool:
    """Whether every address of ``host`` can bind ``port``: the test jupyter_server_mcp makes
    before it listens (an address the machine lacks, such as ::1 without IPv6, is skipped)."""
    bound_any = False
    for family, kind, proto, _name, address in _addresses(host, port):
        try:
            sock = socket.socket(family, kind, proto)
        except OSError:
            continue
        with sock:
            if os.name == "posix" and sys.platform != "cygwin":
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            try:
                sock.bind(address)
            except OSError as exc:
                if exc.errno == errno.EADDRNOTAVAIL:
                    continue
                return False
            bound_any = True
    return bound_any


def pick_free_port(host: str) -> int:
    """A port the OS calls free on ``host``'s first address and that is free on all of them."""
    family, kind, proto, _name, address = _addresses(host, 0)[0]
    for _ in range(PICK_ATTEMPTS):
        with socket.socket(family, kind, proto) as sock:
            sock.bind(address)
            port = sock.getsockname()[1]
        if port_is_free(host, port):
            return port
    raise OSError(f"no free port found on {host}")


def mcp_app(serverapp: Any) -> Any | None:
    """jupyter_server_mcp's extension app in this server, if it is enabled."""
    apps = serverapp.extension_manager.extension_apps.get(MCP_EXTENSION, ())
    return next(iter(apps), None)


def mcp_host(app: Any) -> str:
    return app.config.get("MCPServer", {}).get("host", DEFAULT_HOST) or DEFAULT_HOST


def set_mcp_port(serverapp: Any, app: Any, port: int) -> None:
    """As if configured: the MCP app listens on ``port``, and whatever reads the setting
    later (each chat's PersonaManager, made from its extension's own copy of the
    configuration) reads ``port``."""
    app.mcp_port = port
    configs = [
        serverapp.config,
        *(a.config for apps in serverapp.extension_manager.extension_apps.values() for a in apps),
    ]
    for config in configs:
        config[MCP_APP_CONFIG]["mcp_port"] = port


def mcp_url(host: str, port: int) -> str:
    """Where a client on this machine reaches it (a wildcard bind address is no place to dial)."""
    dial = "localhost" if host in ("", "0.0.0.0", "::", "::0") else host
    return f"http://{dial}:{port}/mcp"


def claim_mcp_port(serverapp: Any, log: logging.Logger) -> str | None:
    """The URL of GeoAgent's MCP tools in this server (None without jupyter_server_mcp),
    moved to a free port when the configured one is taken or 0."""
    app = mcp_app(serverapp)
    if app is None:
        return None
    host, port = mcp_host(app), app.mcp_port
    if port and port_is_free(host, port):
        return mcp_url(host, port)
    chosen = pick_free_port(host)
    set_mcp_port(serverapp, app, chosen)
    if port:
        log.warning(
            "GeoAgent: MCP port %s on %s is taken (another Jupyter server?): the MCP tools are on "
            "port %s instead, and Jupyter AI's personas are told so. Clients outside the chat: %s",
            port,
            host,
            chosen,
            mcp_url(host, chosen),
        )
    else:
        log.info("GeoAgent: MCP tools on port %s (mcp_port = 0), told to Jupyter AI's personas", chosen)
    return mcp_url(host, chosen)
