"""Run logs on disk: one JSON event per line, appended as the run goes.

Why JSONL: a crash mid-run leaves every event written so far readable, a
reopened panel replays the file to catch up, and ``grep`` works on it. Each
line is flushed at once so a server restart loses at most the line in flight
(a torn last line is skipped on read, not fatal).

A log has a size limit (``MAX_LOG_BYTES``): events are bounded (``output_limits``), but a
long run of big outputs must not fill the disk or make a replay slow. At the limit one
``progress`` line says so, and only the run's ``finished`` event is written after it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

from pydantic import ValidationError

from .events import TERMINAL_TYPES, Event, Progress, parse_event

# Bytes of one run log: a run's events are bounded (``output_limits``: ~100 kB at most for a
# step's output), so this holds well over a hundred attempts at full size, and a replay that
# reads it (a reopened panel, ``jupyter geoagent replay``) stays quick.
MAX_LOG_BYTES = 16 * 1024 * 1024


class RunLog:
    """Append-only event file for one run: ``<runs_dir>/<run_id>.jsonl``."""

    def __init__(self, path: Path, max_bytes: int = MAX_LOG_BYTES):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.max_bytes = max_bytes
        self.full = False  # the limit was reached: only the finished event is written now
        self._size = self.path.stat().st_size if self.path.exists() else 0
        self._fh: TextIO | None = None

    def append(self, event: Event) -> None:
        line = event.model_dump_json() + "\n"
        if event.type not in TERMINAL_TYPES:
            if self.full:
                return
            if self._size + len(line.encode("utf-8")) > self.max_bytes:
                self.full = True
                line = self._limit_note(event).model_dump_json() + "\n"
        self._write(line)

    def _limit_note(self, event: Event) -> Progress:
        """Stands in for the first event left out, with its seq (a replay's order holds)."""
        return Progress(
            run_id=event.run_id,
            seq=event.seq,
            ts=event.ts,
            message=(
                f"The run log reached its size limit ({self.max_bytes:,} bytes): later events are not "
                "written to it, except how the run ended (the live run still streams them all to a panel)."
            ),
        )

    def _write(self, line: str) -> None:
        if self._fh is None:
            self._fh = open(self.path, "a", encoding="utf-8")
        self._fh.write(line)
        self._fh.flush()
        os.fsync(self._fh.fileno())
        self._size += len(line.encode("utf-8"))

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
