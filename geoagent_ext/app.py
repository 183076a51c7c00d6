"""The Jupyter server extension: builds the services and hands them to every face.

The composition root of the server: ``GeoAgentServices.for_server`` makes the model
cache, knowledge index, kernel service, run manager and completer once. HTTP handlers
and MCP tools find them in ``web_app.settings`` (``services_from_settings``); the
Jupyter AI persona gets them bound on its class, as Jupyter AI's own extensions bind
their config manager on their persona.
"""

from __future__ import annotations

import asyncio
import logging

from jupyter_server.extension.application import ExtensionApp

from . import __version__
from .config import GeoAgentSettings
from .handlers import make_handlers
from .llm.choices import inline_model_spec
from .llm.llama_engine import close_engines
from .mcp.port import claim_mcp_port
from .persona import GeoAgentPersona
from .redact import KeptText, redact_log_handlers
from .runs.placement import log_placement
from .services import SETTINGS_KEY, GeoAgentServices


def server_login_urls(serverapp) -> KeptText:
    """What the log filter lets through: this server's own login URLs
    (``http://127.0.0.1:8888/lab?token=…``) in the records of the ServerApp's own logger,
    where jupyter_server prints them at start.

    That token is no model key: jupyter_server generated it for this run, to be read
    in this terminal (one from the config or ``JUPYTER_TOKEN`` it prints as ``...``),
    and with ``--no-browser`` the URL is the only way in. The same token anywhere else
    (another logger, another URL, a bare ``token=``) is still redacted.
    """

    def kept(record: logging.LogRecord) -> list[str]:
        token = serverapp.identity_provider.token
        if not token or record.name != serverapp.log.name or f"token={token}" not in record.getMessage():
            return []
        printed = f"{serverapp.display_url}\n{serverapp.connect_url}"
        return [url for url in printed.split() if url.endswith(f"?token={token}")]

    return kept


class GeoAgentApp(ExtensionApp):
    """Hosts GeoAgent inside jupyter_server (enabled on install)."""

    name = "geoagent_ext"
    description = "GeoAgent: plain-words geospatial analysis in your own kernel."
    version = __version__
    load_other_extensions = True
    classes = [GeoAgentSettings]

    def initialize_settings(self) -> None:
        settings = GeoAgentSettings(parent=self)
        self.services = GeoAgentServices.for_server(settings, self.serverapp)
        self.settings[SETTINGS_KEY] = self.services
        # The web app's settings are updated from this copy of them next: keep the cookie key
        # for_server may have replaced (strip_kernel_secrets: one held only in memory).
        self.settings["cookie_secret"] = self.serverapp.web_app.settings["cookie_secret"]
        GeoAgentPersona.services = self.services
        # No key from the environment in the server's log, whoever logs it (kernels, providers, us).
        # Its own login URL stays: with --no-browser it is the only way in.
        redact_log_handlers(self.log, self.serverapp.log, keep=server_login_urls(self.serverapp))
        self.log.info(
            "GeoAgent %s: model %s, inline suggestions %s",
            __version__,
            settings.model,
            inline_model_spec(settings),
        )
        log_placement(self.services.placement, self.log)  # kernels behind a gateway: what differs
        # Before jupyter_server_mcp starts: a port of its own when another server holds the configured one.
        self.services.mcp_url = claim_mcp_port(self.serverapp, self.log)

    def initialize_handlers(self) -> None:
        self.handlers.extend(make_handlers())

    async def _start_jupyter_server_extension(self, serverapp) -> None:
        """Once the loop runs: load the inline model in the background if ``inline_warm`` says
        so; otherwise JupyterLab's "suggestions on" or the first suggestion loads it."""
        if self.services.settings.inline_warm:
            self.services.completer.warm_in_background()

    async def stop_extension(self) -> None:
        """Cancel live runs (their logs stay), disconnect from kernels and free the local models."""
        if GeoAgentPersona.services is self.services:
            GeoAgentPersona.services = None
        await self.services.close()
        await asyncio.to_thread(close_engines)  # may wait a moment for a call in progress
