"""The panel's REST types (labextension/src/runs/rest.generated.ts) are generated from the
request and response bodies openapi.json documents (``handlers/openapi.rest_schema_text``);
these tests fail when the committed file drifts from them. Shapes the events already define
(the contract, run stats) are imported from events.generated.ts, not repeated.
"""

from __future__ import annotations

import json
import re

from geoagent_ext.agent.events_schema import sent_event_schema
from geoagent_ext.handlers.openapi import rest_schema_text

from .generated_ts import GENERATED, REGENERATE, assert_generated_from, assert_regenerates_the_same, interfaces, union

REST = GENERATED / "rest.generated.ts"


def test_generated_from_the_current_schema():
    assert_generated_from(REST, rest_schema_text())


def test_every_body_and_field_is_typed_and_event_shapes_are_imported():
    schema = json.loads(rest_schema_text())
    event_shapes = set(sent_event_schema()["$defs"])
    ts = REST.read_text()
    typed = interfaces(ts)
    assert union(ts, "RestBody") == [ref["$ref"].rsplit("/", 1)[1] for ref in schema["oneOf"]], REGENERATE
    for name, model in schema["$defs"].items():
        if name in event_shapes:
            assert name not in typed, f"{name} is repeated instead of imported: {REGENERATE}"
        else:
            assert typed.get(name) == list(model["properties"]), f"{name}'s fields differ: {REGENERATE}"
    imported = re.search(r"^import type \{(.*?)\} from './events.generated';$", ts, re.MULTILINE | re.DOTALL)
    assert imported and {"Contract", "RunStats"} <= {n.strip() for n in imported.group(1).split(",")}, REGENERATE


def test_regenerating_gives_the_committed_file(tmp_path):
    assert_regenerates_the_same(REST, tmp_path)
