"""Run logs on disk: one JSON event per line, appended as the run goes.

Why JSONL: a crash mid-run leaves every event written so far readable, a
reopened panel replays the file to catch up, and ``grep`` works on it. Each
line is flushed at once so a server restart loses at most the line in flight
(a torn last line is skipped on read, not fatal).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Iterator

from pydantic import ValidationError

from .events import Event, parse_event


class RunLog:
    """Append-only event file for one run: ``<runs_dir>/<run_id>.jsonl``."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fh = None

    def append(self, event: Event) -> None:
        if self._fh is None:
            self._fh = open(self.path, "a", encoding="utf-8")
        self._fh.write(event.model_dump_json() + "\n")
        self._fh.flush()
        os.fsync(self._fh.fileno())

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None

    def __iter__(self) -> Iterator[Event]:
        return read_events(self.path)


def read_events(path: Path) -> Iterator[Event]:
    """Yield the events of a log, skipping a torn or foreign line instead of failing."""
    path = Path(path)
    if not path.exists():
        return
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            line = line.strip()
            if not line:
                continue
            try:
                yield parse_event(json.loads(line))
            except (ValueError, ValidationError):
                continue


def list_logs(runs_dir: Path) -> list[Path]:
    """Run logs in a directory, newest first."""
    runs_dir = Path(runs_dir)
    if not runs_dir.is_dir():
        return []
    return sorted(runs_dir.glob("*.jsonl"), key=lambda p: p.stat().st_mtime, reverse=True)
