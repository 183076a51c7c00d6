"""The panel's event types (labextension/src/runs/events.generated.ts) are generated from the
pydantic event models; these tests fail when the committed file drifts from them.

Without node the first two still check the file: its header's schema hash, and each
interface's fields and `type` literal read from the TypeScript. With node and the
labextension's node_modules, the third regenerates it and compares the whole text.
"""

from __future__ import annotations

import re

from geoagent_ext.agent.events_schema import schema_text, sent_event_schema

from .generated_ts import GENERATED, REGENERATE, assert_generated_from, assert_regenerates_the_same, interfaces, union

EVENTS = GENERATED / "events.generated.ts"


def test_generated_from_the_current_schema():
    assert_generated_from(EVENTS, schema_text())


def test_every_model_and_field_is_typed():
    schema = sent_event_schema()
    ts = EVENTS.read_text()
    typed = interfaces(ts)
    events = [ref["$ref"].rsplit("/", 1)[1] for ref in schema["oneOf"]]
    assert union(ts, "RunEvent") == events, REGENERATE
    for name, model in schema["$defs"].items():
        assert typed.get(name) == list(model["properties"]), f"{name}'s fields differ: {REGENERATE}"
    for name in events:
        literal = schema["$defs"][name]["properties"]["type"]["const"]
        body = re.search(rf"^export interface {name} \{{\n(.*?)^\}}", ts, re.MULTILINE | re.DOTALL).group(1)
        assert f"  type: '{literal}';" in body, f"{name} is not typed as '{literal}': {REGENERATE}"


def test_regenerating_gives_the_committed_file(tmp_path):
    assert_regenerates_the_same(EVENTS, tmp_path)
