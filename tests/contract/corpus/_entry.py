"""The corpus entry: a request, its inputs, and code for the right and the wrong deliverables."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Entry:
    id: str  # what it asks / the mistake class, e.g. "dissolve-by-district-area-km2"; unique
    request: str  # the request as a user would type it
    inputs: tuple[str, ...]  # repo-relative paths or "dev:<task>/inputs/<file>"
    outputs: tuple[str, ...]  # the deliverable file names, exactly as the request names them
    reference: Callable[[], None]  # writes every output, correct, into the current directory
    broken: Mapping[str, Callable[[], None]]  # mistake name -> writes every output with that one mistake
    notes: str = ""  # why the reference is right where it is not obvious
