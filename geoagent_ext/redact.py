"""Remove secret-looking strings before text becomes an error, an event or a log line.

Provider libraries sometimes echo a request (headers, the key's prefix) in their
exceptions; those messages flow into events that reach the browser and the run log
on disk. Redaction happens at that boundary, by two rules: known key shapes
(``sk-...``, ``Bearer ...`` and a few vendor prefixes) and the literal values of
environment variables whose names say they are secrets (KEY, TOKEN, SECRET,
PASSWORD), so an unknown key format is still caught when it came from the env.

Structured data (events, tool answers) is redacted value by value with ``redact_obj``,
before it is serialised: in JSON text a rule's match can take in an escape's backslash
and leave the text unparseable. A secret-named key (``"api_key": ...``) redacts its
string value whole, the structured form of the ``key=value`` rule.

It sits at the package root, beside ``config``, because every layer redacts
(kernel errors, llm failures, events, logs) and none may import another for it.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from .server_secrets import held

REDACTED = "[REDACTED]"

_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL", re.IGNORECASE)
_MIN_ENV_SECRET = 8  # shorter values ("1", "true") would shred ordinary text

# The names of key=value shapes: ``api_key``, ``access_token``, ``client-secret``, ``password``.
# The text rule starts at the name's last word and leaves what is before it alone: a rule that
# also matched the ``[\w-]*`` before it retried that at every character, quadratic in a long word.
_SECRET_WORD = r"(?:api[_\-]?key|token|secret|password)"
_SECRET_KEY = re.compile(rf"[\w\-]*{_SECRET_WORD}", re.IGNORECASE)
_MIN_FIELD_SECRET = 6  # the key=value rule's shortest value

_PATTERNS = [
    re.compile(r"\bsk-[A-Za-z0-9_\-]{8,}"),  # OpenAI, Anthropic (sk-ant-...), many proxies
    re.compile(r"\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=\-]{8,}", re.IGNORECASE),
    re.compile(r"\b(ghp|gho|ghs|github_pat|hf|xox[abprs]|glpat)[_-][A-Za-z0-9_\-]{10,}"),
    re.compile(r"\bAIza[0-9A-Za-z_\-]{20,}"),  # Google API keys
    re.compile(r"\bAKIA[0-9A-Z]{16}\b"),  # AWS access key ids
    re.compile(r"(?<=://)[^/@\s:]+:[^/@\s]+(?=@)"),  # user:password@ in a URL (a proxy's key)
    # key=value / "api_key": "value" shapes, whatever the value looks like
    re.compile(
        rf"""(?P<name>{_SECRET_WORD}["']?\s*[:=]\s*)"""
        rf"""(?P<q>["']?)(?P<value>[^\s"',}}]{{{_MIN_FIELD_SECRET},}})""",
        re.IGNORECASE,
    ),
]


def env_secrets(environ: Mapping[str, str] | None = None) -> list[str]:
    """Values of secret-named environment variables, longest first (so overlaps redact whole);
    by default the server's environment and the variables it moved out of it (``server_secrets``)."""
    env = {**held(), **os.environ} if environ is None else environ
    values = {v for k, v in env.items() if _SECRET_NAME.search(k) and len(v) >= _MIN_ENV_SECRET}
    return sorted(values, key=len, reverse=True)


def redact(text: str, extra: Iterable[str] = ()) -> str:
    """Return text with every secret-looking substring replaced by ``[REDACTED]``."""
    if not text:
        return text
    for value in [*env_secrets(), *(e for e in extra if e and len(e) >= _MIN_ENV_SECRET)]:
        if value in text:
            text = text.replace(value, REDACTED)
    for pattern in _PATTERNS:
        if "value" in pattern.groupindex:
            text = pattern.sub(
                lambda m: m.group(0) if m.group("value") == REDACTED else f"{m.group('name')}{m.group('q')}{REDACTED}",
                text,
            )
        else:
            text = pattern.sub(REDACTED, text)
    return text


def redact_obj(obj: Any) -> Any:
    """Redact every string inside nested dicts/lists/tuples (for event payloads), each as a
    value: redact the data, then serialise it, never the other way round."""
    if isinstance(obj, str):
        return redact(obj)
    if isinstance(obj, Mapping):
        return {k: _redact_entry(k, v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(redact_obj(v) for v in obj)
    return obj


def _redact_entry(key: Any, value: Any) -> Any:
    """A dict entry's value: whole when its key names a secret (``{"api_key": "..."}``, which
    no text rule sees as one string), else redacted like any value."""
    if (
        isinstance(key, str)
        and isinstance(value, str)
        and len(value) >= _MIN_FIELD_SECRET
        and _SECRET_KEY.fullmatch(key)
    ):
        return REDACTED
    return redact_obj(value)


# Per log record, the exact substrings a RedactingFilter lets through.
KeptText = Callable[[logging.LogRecord], Iterable[str]]


class RedactingFilter(logging.Filter):
    """A logging filter that redacts the formatted message (attach to handlers).

    ``keep`` gives, per record, exact substrings that pass verbatim: the server's own
    login URLs in its start-up lines (``app.server_login_urls``), which are how its user
    gets in, not a model's key. Everything around them is redacted as usual.
    """

    def __init__(self, keep: KeptText | None = None) -> None:
        super().__init__()
        self.keep = keep

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cleaned = redact_around(message, self.keep(record) if self.keep else ())
        if cleaned != message or record.args:
            record.msg, record.args = cleaned, None
        if record.exc_info and record.exc_info[1] is not None:
            # Tracebacks repeat the exception message; format it now, redacted.
            record.exc_text = redact(logging.Formatter().formatException(record.exc_info))
            record.exc_info = None
        return True


def redact_around(text: str, kept: Iterable[str]) -> str:
    """``redact(text)``, except that the strings in ``kept`` stay where they stand whole
    (between whitespace or the text's ends: a kept URL with more query after it is redacted)."""
    kept = sorted({k for k in kept if k and k in text}, key=len, reverse=True)
    if not kept:
        return redact(text)
    pieces, last = [], 0
    for match in re.finditer(rf"(?<!\S)(?:{'|'.join(map(re.escape, kept))})(?!\S)", text):
        pieces += [redact(text[last : match.start()]), match.group(0)]
        last = match.end()
    return "".join([*pieces, redact(text[last:])])


def redact_log_handlers(*loggers: logging.Logger, keep: KeptText | None = None) -> None:
    """Put a RedactingFilter (keeping what ``keep`` names) on every handler of ``loggers``
    and of the root logger.

    Filters on a logger see only records created on it, so the handlers (the
    server's console, files) are where a record from any module passes through.
    """
    for logger in (*loggers, logging.getLogger()):
        for handler in logger.handlers:
            present = [f for f in handler.filters if isinstance(f, RedactingFilter)]
            if not present:
                handler.addFilter(RedactingFilter(keep))
            elif keep is not None:
                present[0].keep = keep
