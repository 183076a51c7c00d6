"""Request bodies and socket messages -> validated pydantic models, or one clear error.

Every REST body parser and the completion socket go through here, so any input
that cannot be a request (not JSON, not an object, nested deeper than the JSON
decoder can recurse, failing the schema) is a 400 or an error frame that says
why, never an exception escaping into a 500 or a dropped socket.
"""

from __future__ import annotations

import json
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

M = TypeVar("M", bound=BaseModel)


class BadBody(ValueError):
    """Input that is no valid request; the message is meant for the client."""


def validation_message(exc: ValidationError) -> str:
    problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'body'}: {e['msg']}" for e in exc.errors())
    return f"invalid request: {problems}"


def json_object(raw: bytes | str | None, what: str = "the request body") -> dict[str, Any]:
    """Decode ``raw`` as a JSON object. Python's decoder recurses per nesting level and
    raises RecursionError (not ValueError) past its limit, so that is caught too."""
    try:
        data = json.loads(raw or b"null")
    except RecursionError:
        raise BadBody(f"{what} nests JSON arrays/objects too deeply") from None
    except ValueError:
        raise BadBody(f"{what} is not valid JSON") from None
    if not isinstance(data, dict):
        raise BadBody(f"{what} must be a JSON object")
    return data


def validated(model: type[M], data: dict[str, Any]) -> M:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise BadBody(validation_message(exc)) from None
    except RecursionError:  # belt and braces: nesting the decoder accepted but validation cannot walk
        raise BadBody("the request nests JSON arrays/objects too deeply") from None
