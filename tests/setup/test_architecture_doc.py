"""docs/ARCHITECTURE.md names files, folders and functions as the way in for a newcomer: each must exist.

A path in backticks (``agent/loop.py``, ``kernel/inkernel/``) must be a file or folder of the repo,
read from the repo root, ``geoagent_ext/``, ``labextension/`` or ``labextension/src/``;
``agent/state.fold`` must be a module that defines ``fold``. The import rules the page states are
checked by ``lint-imports``, not here.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "ARCHITECTURE.md"
BASES = (ROOT, ROOT / "geoagent_ext", ROOT / "labextension", ROOT / "labextension" / "src")
_CODE = re.compile(r"`([^`\s]+)`")
_PATH = re.compile(r"^[\w.\-]+(?:/[\w.\-]+)*/?$")
_SUFFIXES = (".py", ".ts", ".tsx", ".md", ".toml", ".json")


def _named_paths(text: str) -> list[str]:
    """Backticked tokens that name a path: a slash in them, no placeholder (``_NN_*``, ``<id>``)."""
    return sorted({t for t in _CODE.findall(text) if "/" in t and _PATH.match(t) and not t.startswith("/")})


def _resolve(token: str) -> tuple[Path, str] | None:
    """The file or folder ``token`` names and the attribute it names in it ('' for none), or None."""
    candidates = [(token, "")]
    if not token.endswith("/") and not token.endswith(_SUFFIXES) and "." in token.rsplit("/", 1)[-1]:
        module, attr = token.rsplit(".", 1)  # agent/state.fold -> agent/state.py, fold
        candidates.append((module + ".py", attr))
    if not token.endswith("/") and "." not in token.rsplit("/", 1)[-1]:
        candidates.append((token + ".py", ""))  # agent/runlog -> agent/runlog.py
    for base in BASES:
        for rel, attr in candidates:
            path = base / rel.rstrip("/")
            if path.exists():
                return path, attr
    return None


def test_the_page_names_paths():
    assert len(_named_paths(DOC.read_text())) >= 20


@pytest.mark.parametrize("token", _named_paths(DOC.read_text()))
def test_each_named_path_exists(token):
    found = _resolve(token)
    assert found is not None, f"docs/ARCHITECTURE.md names `{token}`, which is not in the repo"
    path, attr = found
    if attr:
        assert re.search(rf"^\s*(?:async def|def|class)\s+{attr}\b|^\s*{attr}\s*[:=]", path.read_text(), re.M), (
            f"docs/ARCHITECTURE.md names `{token}`, but {path.relative_to(ROOT)} defines no `{attr}`"
        )


def test_the_page_stays_short():
    assert len(DOC.read_text().splitlines()) <= 200
