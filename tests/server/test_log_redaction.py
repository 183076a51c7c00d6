"""The server's log keeps its own login URL and redacts every key, that token elsewhere included.

``app.server_login_urls`` against a stand-in for the ServerApp (its token, logger and printed
URLs); tests/setup/test_login_url.py checks the same on a real `scripts/start.sh --no-browser`.
"""

from __future__ import annotations

import io
import logging
from types import SimpleNamespace

import pytest

from geoagent_ext.app import server_login_urls
from geoagent_ext.redact import RedactingFilter

TOKEN = "3f9c2a7d1e8b4c6a9d0e2f4b6c8a0d1e3f5a7b9c1d2e4f6a"
LOCAL_URL = f"http://127.0.0.1:8888/lab?token={TOKEN}"
MODEL_KEY = "sk-proj-serverlog-0123456789abcdef"


@pytest.fixture
def server_log(monkeypatch):
    """(the ServerApp's logger, what its console shows), redacted as the extension sets it up."""
    monkeypatch.setenv("OPENAI_API_KEY", MODEL_KEY)
    log = logging.getLogger("test.login.ServerApp")
    log.setLevel(logging.INFO)
    serverapp = SimpleNamespace(
        identity_provider=SimpleNamespace(token=TOKEN),
        log=log,
        display_url=f"http://localhost:8888/lab?token={TOKEN}\n    {LOCAL_URL}",
        connect_url=f"http://localhost:8888/lab?token={TOKEN}\n    {LOCAL_URL}",
    )
    console = io.StringIO()
    handler = logging.StreamHandler(console)
    handler.addFilter(RedactingFilter(server_login_urls(serverapp)))
    log.addHandler(handler)
    yield log, console
    log.removeHandler(handler)


def test_the_servers_own_start_up_urls_are_printed_whole(server_log):
    log, console = server_log
    log.info("http://localhost:8888/lab?token=%s", TOKEN)
    log.critical("\n\nTo access the server, copy and paste one of these URLs:\n    %s", LOCAL_URL)
    assert console.getvalue().count(TOKEN) == 2
    assert f"    {LOCAL_URL}\n" in console.getvalue() and "[REDACTED]" not in console.getvalue()


def test_a_model_key_beside_the_login_url_is_redacted(server_log):
    log, console = server_log
    log.info("%s with %s and api_key=abcdef123456", LOCAL_URL, MODEL_KEY)
    assert console.getvalue() == f"{LOCAL_URL} with [REDACTED] and api_key=[REDACTED]\n"


@pytest.mark.parametrize(
    "line",
    [
        f"token={TOKEN}",  # not a URL of the server's
        f"http://attacker.example/collect?token={TOKEN}",  # another URL
        f"{LOCAL_URL}&next=/tree",  # not the URL the server prints
    ],
)
def test_the_servers_token_anywhere_else_is_redacted(server_log, line):
    log, console = server_log
    log.info(line)
    assert TOKEN not in console.getvalue() and "[REDACTED]" in console.getvalue()


def test_the_login_url_from_another_logger_is_redacted(server_log):
    log, console = server_log
    logging.getLogger(f"{log.name}.kernels").info("kernel saw %s", LOCAL_URL)  # same handler
    assert (
        TOKEN not in console.getvalue()
        and "kernel saw http://127.0.0.1:8888/lab?token=[REDACTED]" in console.getvalue()
    )


def test_model_keys_in_log_lines_are_redacted(server_log):
    log, console = server_log
    log.info("provider answered 401 for %s", MODEL_KEY)
    log.info("headers: Authorization: Bearer abcdefghijkl0123")
    assert MODEL_KEY not in console.getvalue() and "abcdefghijkl0123" not in console.getvalue()
    assert console.getvalue().count("[REDACTED]") == 2
