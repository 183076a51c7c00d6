"""The Jupyter server extension: wires settings, services and HTTP handlers."""

from __future__ import annotations

import asyncio

from jupyter_server.extension.application import ExtensionApp

from . import __version__
from .config import GeoAgentSettings
from .handlers import make_handlers
from .handlers.complete import completer_for
from .redact import redact_log_handlers
from .runs import RunManager
from .runs.placement import log_placement


class GeoAgentApp(ExtensionApp):
    """Hosts GeoAgent inside jupyter_server (enabled on install)."""

    name = "geoagent_ext"
    description = "GeoAgent: plain-words geospatial analysis in your own kernel."
    version = __version__
    load_other_extensions = True
    classes = [GeoAgentSettings]

    def initialize_settings(self) -> None:
        self.geoagent_settings = GeoAgentSettings(parent=self)
        self.run_manager = RunManager(
            self.geoagent_settings,
            self.serverapp.kernel_manager,
            self.serverapp.session_manager,
            root_dir=self.serverapp.root_dir,
        )
        self.settings["geoagent"] = self
        # No key from the environment in the server's log, whoever logs it (kernels, providers, us).
        redact_log_handlers(self.log, self.serverapp.log)
        self.log.info("GeoAgent %s: model %s, inline suggestions %s", __version__,
                      self.geoagent_settings.model, self.geoagent_settings.inline_model or "the same")
        log_placement(self.run_manager.placement, self.log)  # kernels behind a gateway: what differs

    def initialize_handlers(self) -> None:
        self.handlers.extend(make_handlers())

    async def _start_jupyter_server_extension(self, serverapp) -> None:
        """Once the loop runs: load the inline model in the background (``inline_warm``)."""
        if self.geoagent_settings.inline_warm:
            self._warming = asyncio.ensure_future(completer_for(self).warm())

    async def stop_extension(self) -> None:
        """Cancel live runs (their logs stay) and disconnect from kernels."""
        await self.run_manager.shutdown()
