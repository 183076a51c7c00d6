"""The JSON schema of run events as the server sends them, for the panel's generated types.

``python -m geoagent_ext.agent.events_schema`` prints it; ``jlpm build:types`` (in
``labextension/``) turns it into ``src/runs/events.generated.ts``, and
``tests/frontend/test_event_types.py`` fails when that file drifts from the models.
Imports the events module and, for the ``repaired`` event's strategies, the repair registry
(``agent/fixes``), so it runs where the package's dependencies are installed.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from pydantic import TypeAdapter
from pydantic.json_schema import GenerateJsonSchema

from .events import Event


class _AsSent(GenerateJsonSchema):
    """Events go out whole (``model_dump_json``, nothing excluded): every field is present, so
    every field is required; and no per-field titles, which converters turn into one type each."""

    def field_is_required(self, field, total) -> bool:
        return True

    def field_title_should_be_set(self, schema) -> bool:
        return False


def sent_event_schema() -> dict[str, Any]:
    """The event union (discriminated on ``type``) as it is serialized."""
    return TypeAdapter(Event).json_schema(mode="serialization", schema_generator=_AsSent)


def schema_text() -> str:
    """The schema as stable text: what the generator reads and what its header's hash covers."""
    return json.dumps(sent_event_schema(), indent=1, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    sys.stdout.write(schema_text())
