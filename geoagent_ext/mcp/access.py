"""Who may call GeoAgent's MCP tools, and what a call reaches of the server.

jupyter_server_mcp serves tools on a port of its own, outside Jupyter's token and XSRF checks
(it checks only the Host and Origin headers). So every GeoAgent tool checks its caller against
what Jupyter already trusts before it touches a kernel, a model or the index:

- the server's token as ``Authorization: token <token>``, as the REST API takes it; or
- (setting ``mcp_trust_personas``) the identity headers Jupyter AI stamps on the MCP connection
  it gives each persona, when they name a persona that is answering a chat message right now:
  only a message sent through Jupyter's authenticated chat socket makes a persona busy.

Answers and error messages are redacted like events: no key from the server's environment
leaves a tool. Tools run on the server's event loop, so they share the run manager's per-kernel
locks and its one-run-per-kernel rule with the panel.

jupyter_server_mcp calls a tool as a plain function, with nothing of the server's: like
jupyter_server_mcp itself (``client_routing``), a tool finds the running ServerApp and, in its
``web_app.settings``, GeoAgent's services (``services_from_settings``, as the HTTP handlers do).
"""

import functools
import hmac
import re
from collections.abc import Awaitable, Callable
from typing import Any

from fastmcp.exceptions import ToolError
from fastmcp.server.dependencies import get_http_headers
from jupyter_server_mcp.client_routing import CHAT_ID_HEADER, PERSONA_ID_HEADER

from ..agent.kernel_handle import KernelLost
from ..kernel import KernelServiceError
from ..redact import redact, redact_obj
from ..runs import RunManagerError
from ..services import GeoAgentServices, services_from_settings

_TOKEN = re.compile(r"(?:token|bearer)\s+(\S+)", re.IGNORECASE)  # Jupyter's own header forms

REFUSED = (
    "not authorised: send the Jupyter server's token as 'Authorization: token <token>' "
    "(or call from a Jupyter AI chat persona while it answers a message)"
)


def _serverapp() -> Any:
    from jupyter_server.serverapp import ServerApp

    if not ServerApp.initialized():
        raise ToolError("no Jupyter server runs in this process")
    return ServerApp.instance()


def geoagent_services() -> GeoAgentServices:
    """The running server's GeoAgent services (run manager, kernels, index, models)."""
    services = services_from_settings(_serverapp().web_app.settings)
    if services is None:
        raise ToolError("GeoAgent is not enabled on this Jupyter server (jpserver_extensions: geoagent_ext)")
    return services


def caller(serverapp: Any, services: GeoAgentServices, headers: dict[str, str]) -> str | None:
    """'token' or 'persona' for a caller Jupyter trusts, else None."""
    expected = serverapp.identity_provider.token
    sent = _TOKEN.fullmatch(headers.get("authorization", "").strip())
    if expected and sent and hmac.compare_digest(sent.group(1).encode(), expected.encode()):
        return "token"
    if services.settings.mcp_trust_personas and _busy_persona(serverapp.web_app.settings, headers):
        return "persona"
    return None


def _busy_persona(settings: dict, headers: dict[str, str]) -> bool:
    """The headers name a Jupyter AI persona of an open chat that is processing a message now."""
    managers = settings.get("jupyter-ai", {}).get("persona-managers", {})
    manager = managers.get(headers.get(CHAT_ID_HEADER, ""))
    persona = manager.personas.get(headers.get(PERSONA_ID_HEADER, "")) if manager is not None else None
    return getattr(persona, "processing_message", None) is not None


def geoagent_tool(fn: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
    """An MCP tool: the caller is checked first; GeoAgent's refusals (a busy kernel, a notebook
    without a kernel, a model the server does not offer) become tool errors with their message;
    answers and errors are redacted. The signature and docstring stay the tool's schema."""

    @functools.wraps(fn)
    async def tool(*args: Any, **kwargs: Any) -> Any:
        serverapp = _serverapp()
        if caller(serverapp, geoagent_services(), get_http_headers(include={"authorization"})) is None:
            raise ToolError(REFUSED)
        try:
            return redact_obj(await fn(*args, **kwargs))
        except ToolError as exc:
            raise ToolError(redact(str(exc))) from None
        except (RunManagerError, KernelServiceError, KernelLost, ValueError) as exc:
            raise ToolError(redact(str(exc))) from None
        except Exception:
            serverapp.log.error("GeoAgent MCP tool %s failed", fn.__name__, exc_info=True)  # a redacted log
            raise ToolError("internal error in GeoAgent (see the server log)") from None

    return tool
