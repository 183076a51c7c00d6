"""``docs/benchmarks`` stays a small table of figures, and what points into it still finds its file.

Run data (logs, deliverables, per-task results) belongs on the ``benchmark-data`` branch: a folder
copied into main would bring back the thousand files moved out, and a link or a command in the docs
or a script's docstring that names a moved file would send the reader nowhere.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCH_DOCS = ROOT / "docs" / "benchmarks"
MAX_FILES = 100

MARKDOWN_LINK = re.compile(r"\]\(([^)\s]+)\)")
BENCH_PATH = re.compile(r"docs/benchmarks(?:/[\w.*{},-]+)*")


def files_in_bench_docs() -> list[str]:
    """Tracked files when this is a git checkout (run output there may be git-ignored), else all."""
    try:
        out = subprocess.run(
            ["git", "ls-files", "docs/benchmarks"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return [str(p) for p in BENCH_DOCS.rglob("*") if p.is_file()]
    return out.splitlines()


def texts_naming_bench_docs() -> list[Path]:
    """Every file of the project's docs and code that may link to or name a file of docs/benchmarks."""
    docs = [ROOT / "README.md", *(ROOT / "docs").rglob("*.md")]
    code = [*(ROOT / "benchmarks").glob("*.py"), *(ROOT / "geoagent_ext").rglob("*.py")]
    return [p for p in docs + code if p.is_file()]


def relative_links(md: Path) -> list[str]:
    links = (m.group(1) for m in MARKDOWN_LINK.finditer(md.read_text(encoding="utf-8")))
    return [link.split("#", 1)[0] for link in links if not re.match(r"[a-z]+:|#", link)]


def test_bench_docs_hold_at_most_a_hundred_files():
    files = files_in_bench_docs()
    assert files, "docs/benchmarks is gone"
    assert len(files) <= MAX_FILES, f"{len(files)} files in docs/benchmarks: move run data to branch benchmark-data"


def test_every_relative_link_into_bench_docs_resolves():
    broken = []
    for md in (p for p in texts_naming_bench_docs() if p.suffix == ".md"):
        for link in relative_links(md):
            target = (md.parent / link).resolve()
            inside = BENCH_DOCS in target.parents or target == BENCH_DOCS or BENCH_DOCS in md.parents
            if inside and not target.exists():
                broken.append(f"{md.relative_to(ROOT)} -> {link}")
    assert not broken, broken


def test_every_named_bench_docs_path_exists():
    """A path such as ``docs/benchmarks/contract/at-X/on/logs/loop/*.jsonl`` in a command must match a file."""
    missing = []
    for path in texts_naming_bench_docs():
        for name in BENCH_PATH.findall(path.read_text(encoding="utf-8")):
            name = name.rstrip(".,")
            if not list(ROOT.glob(name)) and not (ROOT / name).exists():
                missing.append(f"{path.relative_to(ROOT)}: {name}")
    assert not missing, missing


@pytest.mark.parametrize("name", ["README.md", "contract/README.md", "dev/README.md"])
def test_bench_docs_say_how_to_fetch_the_data(name):
    text = (BENCH_DOCS / name).read_text(encoding="utf-8")
    assert "git fetch origin benchmark-data" in text
