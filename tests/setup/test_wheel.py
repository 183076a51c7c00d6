"""The wheel builds again over a tree that an earlier install wrote into (issue 19).

`jupyter labextension develop` links the venv's labextension folder to the built
folder in the tree, so every later `pip install -e .` writes the wheel's shared data
through the link: `install.json` lands in `geoagent_ext/labextension/`, and the next
build saw that path twice and stopped ("A second file is being added to the wheel
archive at the same path"). hatchling builds this project's own pyproject here, with
its build hooks off (the labextension stands in prebuilt), in well under a second.
"""

from __future__ import annotations

import configparser
import json
import shutil
import zipfile
from pathlib import Path

import pytest
from hatchling.builders.wheel import WheelBuilder

REPO_ROOT = Path(__file__).resolve().parents[2]
LABEXTENSION = "share/jupyter/labextensions/geoagent-ext"


@pytest.fixture
def tree_after_an_install(tmp_path) -> Path:
    """The files the wheel is built from, with a built labextension that a previous
    install wrote its own ``install.json`` into."""
    root = tmp_path / "tree"
    for name in ("pyproject.toml", "README.md", "labextension/package.json", "labextension/install.json"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO_ROOT / name, root / name)
    for folder in ("jupyter-config", "rag_index"):
        shutil.copytree(REPO_ROOT / folder, root / folder)
    (root / "geoagent_ext").mkdir()
    (root / "geoagent_ext" / "__init__.py").write_text("")
    built = root / "geoagent_ext" / "labextension"
    (built / "static").mkdir(parents=True)
    (built / "static" / "style.js").write_text("/* built */\n")
    (built / "package.json").write_text(json.dumps({"name": "geoagent-ext", "version": "0.1.0"}))
    (built / "install.json").write_text('{"written": "through the develop link"}')
    return root


@pytest.mark.parametrize("version", ["editable", "standard"])
def test_wheel_builds_over_a_previous_install(tree_after_an_install, tmp_path, monkeypatch, version):
    monkeypatch.setenv("HATCH_BUILD_NO_HOOKS", "true")
    builder = WheelBuilder(str(tree_after_an_install))
    [wheel] = builder.build(directory=str(tmp_path / "dist"), versions=[version])

    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        data = next(n.split("/data/")[0] for n in names if "/data/" in n)
        install = [n for n in names if n.endswith(f"{LABEXTENSION}/install.json")]
        assert install == [f"{data}/data/{LABEXTENSION}/install.json"]
        shipped = json.loads(archive.read(install[0]))
        assert shipped == json.loads((REPO_ROOT / "labextension" / "install.json").read_text())
        assert f"{data}/data/{LABEXTENSION}/static/style.js" in names
        assert f"{data}/data/{LABEXTENSION}/package.json" in names
        assert f"{data}/data/etc/jupyter/jupyter_server_config.d/geoagent_ext.json" in names
        entry_points = configparser.ConfigParser()
        entry_points.read_string(archive.read(next(n for n in names if n.endswith("entry_points.txt"))).decode())
    # `jupyter geoagent`, and no `geoagent` to overwrite the unrelated GeoAgent package's command.
    assert dict(entry_points["console_scripts"]) == {"jupyter-geoagent": "geoagent_ext.cli.main:main"}
