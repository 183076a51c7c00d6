"""Shortened error messages (pure functions, no kernel)."""

from __future__ import annotations

from geoagent_ext.kernel import shorten_error, strip_ansi

IPY_TB = [
    "\x1b[31m---------------------------------------------------------------------------\x1b[39m",
    "\x1b[31mKeyError\x1b[39m                                  Traceback (most recent call last)",
    "\x1b[36mCell\x1b[39m\x1b[36m \x1b[39m\x1b[32mIn[7]\x1b[39m\x1b[32m, line 2\x1b[39m\n"
    "\x1b[32m      1\x1b[39m a = 1\n\x1b[32m----> \x1b[39m\x1b[32m2\x1b[39m f()\n",
    "\x1b[36mCell\x1b[39m\x1b[36m \x1b[39m\x1b[32mIn[3]\x1b[39m\x1b[32m, line 5\x1b[39m, in f()\n",
    "\x1b[31mKeyError\x1b[39m: 'populaton'",
]


def test_message_uses_the_outermost_cell_frame():
    err = shorten_error("KeyError", "'populaton'", IPY_TB, "a = 1\nf()")
    assert err.lineno == 2  # the submitted cell's line, not line 5 of an earlier cell
    assert err.message == "KeyError: 'populaton' (line 2: f())"
    assert err.hints == []  # what the error means is the agent's (agent/gis_hints.py)


def test_strip_ansi():
    assert strip_ansi("\x1b[31mKeyError\x1b[39m: x") == "KeyError: x"


def test_long_values_are_cut():
    err = shorten_error("ValueError", "x" * 1000 + "\nsecond line", [], "boom()")
    assert len(err.message) < 320 and "second line" not in err.message


def test_a_secret_in_a_long_error_is_masked_before_the_message_is_cut(monkeypatch):
    secret = "sk-live-" + "s" * 40
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    # the secret straddles the 300-character cut of the message
    err = shorten_error("ValueError", "x" * 280 + secret, [], "token = '" + secret + "'\nraise ValueError", lineno=1)
    assert "sk-live" not in err.message and "ssssss" not in err.message
    assert "[REDACTED]" in err.message
