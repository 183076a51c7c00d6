"""`jupyter geoagent …` from the installed command, and the deprecated `geoagent` alias
that is only written where it clashes with no other package (issue 19)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from importlib.metadata import distribution
from pathlib import Path

import pytest

from geoagent_ext.cli import alias

BIN = Path(sys.executable).parent
SUBCOMMANDS = ["run", "bench", "index", "status", "replay"]


def _run(args: list[str], **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(args, capture_output=True, text=True, timeout=120, env={**os.environ, **env})


def test_jupyter_finds_jupyter_geoagent_on_a_fresh_install():
    """`jupyter geoagent --help` with nothing but the system's PATH: jupyter_core looks
    for `jupyter-geoagent` beside its own script, as for any `jupyter-<sub>`."""
    result = _run([str(BIN / "jupyter"), "geoagent", "--help"], PATH="/usr/bin:/bin")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("usage: jupyter geoagent")
    listed = re.findall(r"^    (\w+) ", result.stdout, re.MULTILINE)
    assert sorted(listed) == sorted(SUBCOMMANDS), result.stdout
    assert "jupyter geoagent" in _run([str(BIN / "jupyter-geoagent"), "--version"]).stdout


def test_the_installed_package_declares_no_geoagent_command():
    """Two distributions declaring one console script overwrite each other's file."""
    scripts = {ep.name for ep in distribution("geoagent_ext").entry_points if ep.group == "console_scripts"}
    assert scripts == {"jupyter-geoagent"}


def _install_other_geoagent(site: Path, monkeypatch) -> str:
    """The unrelated GeoAgent package (opengeos) as importlib.metadata sees it installed."""
    info = site / "GeoAgent-1.9.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: GeoAgent\nVersion: 1.9.0\n")
    (info / "entry_points.txt").write_text("[console_scripts]\ngeoagent = geoagent.cli:main\n")
    monkeypatch.syspath_prepend(str(site))
    return "GeoAgent 1.9.0"


@pytest.fixture
def other_geoagent(tmp_path, monkeypatch):
    return _install_other_geoagent(tmp_path / "site", monkeypatch)


def test_alias_is_written_when_nothing_else_owns_the_name(tmp_path):
    assert alias.other_owners() == []
    installed, message = alias.install(tmp_path)
    assert installed, message
    script = tmp_path / "geoagent"
    assert os.access(script, os.X_OK)
    assert alias.install(tmp_path)[0], "a second setup refreshes its own alias"
    result = _run([str(script), "--help"], PYTHONPATH=str(Path(alias.__file__).parents[2]))
    assert result.returncode == 0, result.stderr
    assert "usage: jupyter geoagent" in result.stdout
    assert "`geoagent` is deprecated" in result.stderr and "use `jupyter geoagent`" in result.stderr


def test_alias_steps_aside_for_the_other_geoagent_package(tmp_path, other_geoagent):
    assert alias.other_owners() == [other_geoagent]
    installed, message = alias.install(tmp_path)
    assert not installed and other_geoagent in message and "jupyter geoagent" in message
    assert not (tmp_path / "geoagent").exists()


def test_alias_written_before_the_other_package_came_is_removed(tmp_path, monkeypatch):
    assert alias.install(tmp_path)[0]
    _install_other_geoagent(tmp_path / "site", monkeypatch)
    assert not alias.install(tmp_path)[0]
    assert not (tmp_path / "geoagent").exists()


def test_alias_never_overwrites_a_command_that_is_not_ours(tmp_path):
    theirs = tmp_path / "geoagent"
    theirs.write_text("#!/bin/sh\necho someone else's geoagent\n")
    installed, message = alias.install(tmp_path)
    assert not installed and "not ours" in message
    assert "someone else's" in theirs.read_text()


def test_the_alias_names_the_other_package_when_both_are_there(other_geoagent, capsys):
    assert alias.deprecated_main([]) == 2  # no sub-command: the help
    err = capsys.readouterr().err
    assert "`geoagent` is deprecated" in err and other_geoagent in err
