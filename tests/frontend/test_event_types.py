"""The panel's event types (labextension/src/runs/events.generated.ts) are generated from the
pydantic event models; these tests fail when the committed file drifts from them.

Without node the first two still check the file: its header's schema hash, and each
interface's fields and `type` literal read from the TypeScript. With node and the
labextension's node_modules, the third regenerates it and compares the whole text.
"""

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

from geoagent_ext.agent.events_schema import schema_text, sent_event_schema

LABEXTENSION = Path(__file__).resolve().parents[2] / "labextension"
GENERATED = LABEXTENSION / "src" / "runs" / "events.generated.ts"
REGENERATE = "run `cd labextension && jlpm build:types` and commit src/runs/events.generated.ts"


def _interfaces(ts: str) -> dict[str, list[str]]:
    """{interface name: its top-level property names, in order}."""
    return {
        name: re.findall(r"^  (\w+)\??:", body, re.MULTILINE)
        for name, body in re.findall(r"^export interface (\w+) \{\n(.*?)^\}", ts, re.MULTILINE | re.DOTALL)
    }


def test_generated_from_the_current_schema():
    recorded = re.search(r"schema-sha256: ([0-9a-f]{64})", GENERATED.read_text())
    assert recorded, f"{GENERATED.name} has no schema-sha256 header: {REGENERATE}"
    current = hashlib.sha256(schema_text().encode()).hexdigest()
    assert recorded.group(1) == current, f"the event models changed since {GENERATED.name} was generated: {REGENERATE}"


def test_every_model_and_field_is_typed():
    schema = sent_event_schema()
    ts = GENERATED.read_text()
    interfaces = _interfaces(ts)
    union = re.search(r"^export type RunEvent =\n(.*?);$", ts, re.MULTILINE | re.DOTALL)
    assert union, f"no RunEvent union in {GENERATED.name}: {REGENERATE}"
    events = [ref["$ref"].rsplit("/", 1)[1] for ref in schema["oneOf"]]
    assert re.findall(r"\| (\w+)", union.group(1)) == events, REGENERATE
    for name, model in schema["$defs"].items():
        assert interfaces.get(name) == list(model["properties"]), f"{name}'s fields differ: {REGENERATE}"
    for name in events:
        literal = schema["$defs"][name]["properties"]["type"]["const"]
        body = re.search(rf"^export interface {name} \{{\n(.*?)^\}}", ts, re.MULTILINE | re.DOTALL).group(1)
        assert f"  type: '{literal}';" in body, f"{name} is not typed as '{literal}': {REGENERATE}"


def test_regenerating_gives_the_committed_file(tmp_path):
    node = shutil.which("node")
    if not node or not (LABEXTENSION / "node_modules" / "json-schema-to-typescript").is_dir():
        pytest.skip("needs node and labextension/node_modules (`jlpm install`); the header and fields were checked")
    fresh = tmp_path / "events.generated.ts"
    result = subprocess.run(
        [node, "scripts/build-types.js", "--out", str(fresh)],
        cwd=LABEXTENSION,
        env={**os.environ, "GEOAGENT_PYTHON": sys.executable},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    diff = "".join(
        difflib.unified_diff(
            GENERATED.read_text().splitlines(keepends=True),
            fresh.read_text().splitlines(keepends=True),
            "committed",
            "regenerated",
        )
    )
    assert not diff, f"{REGENERATE}\n{diff[:4000]}"
