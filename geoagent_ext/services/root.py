"""``GeoAgentServices``: the one place that builds what every face uses.

The server builds it in ``app.py`` (``for_server``), the CLI and the bench with
``open_headless_services`` (``headless.py``); the faces take it from there and never
make a model, open the index or wrap a kernel manager themselves.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..agent.run import RunOptions
from ..completion import Completer
from ..config import GeoAgentSettings
from ..kernel import KernelService
from ..llm.choices import ModelNotOffered, choose_model
from ..runs.manager import RunManager, RunManagerError
from ..runs.placement import kernel_placement
from .knowledge import LazyKnowledgeIndex
from .models import ModelCache

SETTINGS_KEY = "geoagent"  # jupyter_server's web_app.settings[SETTINGS_KEY] is the server's services


def run_options(settings: GeoAgentSettings, **choices: Any) -> RunOptions:
    """A run's options: the settings, then a face's own choices (``None``: keep the setting).
    The one builder every face uses (server, chat, MCP, CLI, bench)."""
    return RunOptions.from_settings(settings, **choices)


def services_from_settings(web_app_settings: Mapping[str, Any]) -> GeoAgentServices | None:
    """The server's services from jupyter_server's ``web_app.settings`` (None: GeoAgent's
    extension is not enabled). Code that jupyter_server runs without handing it our objects
    (HTTP handlers, MCP tools) finds them here, as Jupyter's own extensions share theirs."""
    return web_app_settings.get(SETTINGS_KEY)


class GeoAgentServices:
    """Settings, models, knowledge index, kernels, runs and suggestions of one process.

    ``kernel_manager`` is jupyter_server's (server) or a headless one (CLI, bench);
    ``session_manager`` finds a notebook's kernel (server only).
    """

    def __init__(
        self,
        settings: GeoAgentSettings,
        kernel_manager: Any,
        *,
        session_manager: Any = None,
        root_dir: str | Path | None = None,
        knowledge: LazyKnowledgeIndex | None = None,
    ):
        self.settings = settings
        self.kernel_manager = kernel_manager
        self.session_manager = session_manager
        self.models = ModelCache(settings)
        self.knowledge = knowledge or LazyKnowledgeIndex(settings)
        self.kernels = KernelService(kernel_manager)
        self.placement = kernel_placement(settings, kernel_manager)  # local, or behind a gateway
        # Runs and suggestions get the models (this object, as ``ChatModels``) and the index, no more.
        self.run_manager = RunManager(
            settings, self.kernels, self, self.knowledge.get, session_manager=session_manager, root_dir=root_dir
        )
        self.completer = Completer(settings, self.kernels, self, self.knowledge.get, session_manager=session_manager)
        self.mcp_url: str | None = None  # where this server's MCP tools listen (set by the server extension)

    @classmethod
    def for_server(cls, settings: GeoAgentSettings, serverapp: Any) -> GeoAgentServices:
        """The server's services over jupyter_server's managers; with ``strip_kernel_secrets``
        its kernels start without the server's secrets and cannot log in to it, and the
        secrets leave its environment (what its children inherit) and its /proc environ."""
        services = cls(
            settings, serverapp.kernel_manager, session_manager=serverapp.session_manager, root_dir=serverapp.root_dir
        )
        if settings.strip_kernel_secrets:
            from ..runs.kernel_env import use_secretless_kernels
            from ..runs.server_env import scrub_own_environment
            from ..runs.server_login import forget_token_files, use_private_cookie_secret

            local = services.placement["where"] == "local"  # a gateway launches its kernels itself
            if local and use_secretless_kernels(
                serverapp.kernel_manager,
                settings.kernel_secret_patterns,
                before_launch=[functools.partial(forget_token_files, serverapp)],
            ):
                use_private_cookie_secret(serverapp)  # kernels can read the runtime dir's cookie key
            scrub_own_environment(settings.kernel_secret_patterns, keep=settings.server_kept_secrets)
        return services

    def model_spec(self, requested: str | None) -> str:
        """The spec a request's ``model`` field stands for; 400 unless the server offers it
        (a spec can load code into this process, see ``llm.choices``)."""
        try:
            return choose_model(requested, self.settings)
        except ModelNotOffered as exc:
            raise RunManagerError(400, str(exc)) from None

    async def chat_model(self, spec: str, *, instance: str = "") -> Any:
        """The cached chat model for ``spec`` (from ``model_spec`` or the configuration, never
        straight from a request); 400 when it cannot be made (unknown provider, missing
        package or weights)."""
        try:
            return await self.models.get(spec, instance=instance)
        except Exception as exc:
            raise RunManagerError(400, str(exc)) from None

    async def knowledge_index(self) -> Any:
        """The knowledge index, or None (runs and suggestions go on without retrieval)."""
        return await self.knowledge.get()

    def run_options(self, **choices: Any) -> RunOptions:
        """``run_options`` over these settings."""
        return run_options(self.settings, **choices)

    async def close(self) -> None:
        """Cancel live runs (their logs stay) and disconnect from the kernels."""
        await self.run_manager.shutdown()
        await self.kernels.close()
