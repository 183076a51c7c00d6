"""What a failed model call tells the user, in one sentence that names the fix.

A provider's own text ("Error code: 401 - {'detail': ...}", "Connection error.") does
not say which setting is wrong. A rejected key is said as such, naming the variable
the key comes from, and is not retried: the same key fails the same way. An
unreachable server names the URL the call went to (without any user:password part),
since with ``openai_base_url`` / ``OPENAI_BASE_URL`` that is a server the user runs.
Every message is redacted: the provider's text may echo a header.
"""

from __future__ import annotations

import os
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from ..redact import redact
from ..server_secrets import server_secret
from .factory import PROVIDERS

_AUTH_STATUS = (401, 403)
_AUTH_CLASSES = ("AuthenticationError", "PermissionDeniedError")
_TIMEOUT_CLASSES = ("APITimeoutError", "TimeoutException", "ReadTimeout", "ConnectTimeout")
_CONNECTION_CLASSES = ("APIConnectionError", "ConnectError", "ConnectionError", "ConnectionRefusedError")


def _status(exc: BaseException) -> int | None:
    status = getattr(exc, "status_code", None) or getattr(getattr(exc, "response", None), "status_code", None)
    return status if isinstance(status, int) else None


def _class_names(exc: BaseException) -> set[str]:
    return {cls.__name__ for cls in type(exc).__mro__}


def rejected_key(exc: BaseException) -> bool:
    """True when the provider refused the credentials (HTTP 401/403)."""
    return _status(exc) in _AUTH_STATUS or bool(_class_names(exc) & set(_AUTH_CLASSES))


def _unreachable(exc: BaseException) -> bool:
    names = _class_names(exc)
    return bool(names & set(_CONNECTION_CLASSES)) and not names & set(_TIMEOUT_CLASSES)


def key_variable(chat_model: Any) -> str | None:
    """The environment variable the chat model's provider reads its key from."""
    package = type(chat_model).__module__.split(".", 1)[0]
    return next((key for module, _pkg, _extra, key in PROVIDERS.values() if module == package), None)


def server_url(chat_model: Any) -> str:
    """Where the model's calls go when it is not the provider's default, without credentials."""
    url = getattr(chat_model, "openai_api_base", None) or getattr(chat_model, "base_url", None)
    if not url and key_variable(chat_model) == "OPENAI_API_KEY":
        url = os.environ.get("OPENAI_BASE_URL")
    if not isinstance(url, str) or not url:
        return ""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:  # IPv6
        host = f"[{host}]"
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


def explain(exc: BaseException, chat_model: Any) -> str:
    """One redacted sentence on why the call failed and what to do about it."""
    url = server_url(chat_model)
    at = f" at {url}" if url else ""
    detail = redact(f"{type(exc).__name__}: {exc}")
    if rejected_key(exc):
        var = key_variable(chat_model)
        status = _status(exc)
        where = f"{var} in the Jupyter server's environment" if var else "the provider's API key"
        unset = f"; {var} is not set" if var and not server_secret(var) else ""
        return (
            f"The model server{at} rejected the API key{f' (HTTP {status})' if status else ''}: "
            f"check your key ({where}{unset}), then restart Jupyter. ({detail})"
        )
    if _unreachable(exc):
        setting = (
            " (GeoAgentSettings.openai_base_url or OPENAI_BASE_URL)"
            if key_variable(chat_model) == "OPENAI_API_KEY"
            else ""
        )
        return f"Could not reach the model server{at}: is it running, and is its URL right{setting}? ({detail})"
    return f"The model call failed: {detail}"
