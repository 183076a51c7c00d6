"""Reading the generated TypeScript wire types (labextension/src/runs/*.generated.ts) for the
drift tests, and regenerating them with the labextension's script."""

from __future__ import annotations

import difflib
import hashlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .jlpm import LABEXTENSION

GENERATED = LABEXTENSION / "src" / "runs"
REGENERATE = "run `cd labextension && jlpm build:types` and commit src/runs/*.generated.ts"


def interfaces(ts: str) -> dict[str, list[str]]:
    """{interface name: its top-level property names, in order}."""
    return {
        name: re.findall(r"^  (\w+)\??:", body, re.MULTILINE)
        for name, body in re.findall(r"^export interface (\w+) \{\n(.*?)^\}", ts, re.MULTILINE | re.DOTALL)
    }


def union(ts: str, name: str) -> list[str]:
    """The members of `export type <name> = | A | B;`."""
    found = re.search(rf"^export type {name} =\n(.*?);$", ts, re.MULTILINE | re.DOTALL)
    assert found, f"no {name} union: {REGENERATE}"
    return re.findall(r"\| (\w+)", found.group(1))


def assert_generated_from(generated: Path, schema_text: str) -> None:
    """The file's header records the sha256 of this schema text."""
    recorded = re.search(r"schema-sha256: ([0-9a-f]{64})", generated.read_text())
    assert recorded, f"{generated.name} has no schema-sha256 header: {REGENERATE}"
    current = hashlib.sha256(schema_text.encode()).hexdigest()
    assert recorded.group(1) == current, f"the models changed since {generated.name} was generated: {REGENERATE}"


def assert_regenerates_the_same(generated: Path, tmp_path: Path) -> None:
    """Run the generator into tmp_path and compare the whole text (skips without node)."""
    node = shutil.which("node")
    if not node or not (LABEXTENSION / "node_modules" / "json-schema-to-typescript").is_dir():
        pytest.skip("needs node and labextension/node_modules (`jlpm install`); the header and fields were checked")
    result = subprocess.run(
        [node, "scripts/build-types.js", "--out-dir", str(tmp_path)],
        cwd=LABEXTENSION,
        env={**os.environ, "GEOAGENT_PYTHON": sys.executable},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    diff = "".join(
        difflib.unified_diff(
            generated.read_text().splitlines(keepends=True),
            (tmp_path / generated.name).read_text().splitlines(keepends=True),
            "committed",
            "regenerated",
        )
    )
    assert not diff, f"{REGENERATE}\n{diff[:4000]}"
