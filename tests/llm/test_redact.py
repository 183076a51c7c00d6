"""Secrets never survive redaction, ordinary text does."""

import logging

from geoagent_ext.redact import (
    REDACTED,
    RedactingFilter,
    env_secrets,
    redact,
    redact_log_handlers,
    redact_obj,
)


def test_key_shapes():
    for secret in [
        "sk-proj-abcdefghijklmnopqrstuvwxyz123456",
        "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUv",
        "ghp_0123456789abcdefghijABCDEFGHIJ",
        "hf_abcdefghijklmnopqrstuvwx",
        "AIzaSyA-1234567890abcdefghijklmnopq",
    ]:
        out = redact(f"Error 401: invalid key {secret} given")
        assert secret not in out and REDACTED in out
        assert out.startswith("Error 401: invalid key ")


def test_bearer_and_assignments():
    assert "abc.def.ghi123" not in redact("Authorization: Bearer abc.def.ghi123")
    out = redact('{"api_key": "hunter2hunter2", "model": "gpt-4o"}')
    assert "hunter2hunter2" not in out and '"model": "gpt-4o"' in out
    assert "s3cr3tvalue" not in redact("password=s3cr3tvalue&user=bob")


def test_credentials_in_a_url():
    out = redact("POST http://team:k3y-of-the-proxy@gpu-box:8000/v1/chat failed; see https://example.org/a:b")
    assert "k3y-of-the-proxy" not in out and "team" not in out
    assert "http://[REDACTED]@gpu-box:8000/v1/chat" in out and "https://example.org/a:b" in out


def test_env_values_of_secret_names(monkeypatch):
    monkeypatch.setenv("MY_SERVICE_TOKEN", "plainlooking-value-42")
    monkeypatch.setenv("SOME_SETTING", "plainlooking-other-43")
    monkeypatch.setenv("SHORT_KEY", "1")
    assert "plainlooking-value-42" in env_secrets()
    out = redact("failed with plainlooking-value-42 and plainlooking-other-43 1")
    assert "plainlooking-value-42" not in out
    assert "plainlooking-other-43" in out  # not a secret-named variable
    assert out.endswith(" 1")  # short values are left alone


def test_ordinary_text_untouched():
    text = "NameError: name 'parcels' is not defined (line 3: y = parcels.to_crs(3035))"
    assert redact(text) == text
    assert redact("") == ""


def test_redact_obj_nested(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-0123456789abcdef")
    obj = {"a": ["x sk-test-0123456789abcdef y", 3], "b": ("Bearer zzzzzzzzzzzz",)}
    out = redact_obj(obj)
    assert "sk-test" not in str(out) and "zzzzzzzzzzzz" not in str(out)
    assert out["a"][1] == 3 and isinstance(out["b"], tuple)


def test_logging_filter(monkeypatch, caplog):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "weird-format-secret-000111")
    logger = logging.getLogger("geoagent.test.redact")
    handler_filter = RedactingFilter()
    logger.addFilter(handler_filter)
    try:
        with caplog.at_level(logging.INFO, logger="geoagent.test.redact"):
            logger.info("calling with %s", "weird-format-secret-000111")
            try:
                raise RuntimeError("boom weird-format-secret-000111")
            except RuntimeError:
                logger.exception("failed")
        assert "weird-format-secret-000111" not in caplog.text
        assert "calling with" in caplog.text and "boom" in caplog.text
    finally:
        logger.removeFilter(handler_filter)


def test_handlers_of_the_server_log_redact_records_from_any_module(monkeypatch):
    import io

    monkeypatch.setenv("OPENAI_API_KEY", "sk-proj-handlerlevel-0123456789")
    stream = io.StringIO()
    server_log = logging.getLogger("test.ServerApp")
    handler = logging.StreamHandler(stream)
    server_log.addHandler(handler)
    try:
        redact_log_handlers(server_log)
        redact_log_handlers(server_log)  # idempotent: one filter per handler
        assert sum(isinstance(f, RedactingFilter) for f in handler.filters) == 1
        # a record from a child logger (another module) passes through the same handler
        logging.getLogger("test.ServerApp.kernels").warning("env has %s", "sk-proj-handlerlevel-0123456789")
        assert "env has [REDACTED]" in stream.getvalue() and "handlerlevel" not in stream.getvalue()
    finally:
        server_log.removeHandler(handler)
