"""A task suite on disk (GeoAgentBench layout): ``<suite>/<task_id>/task.json + inputs/ + reference/outputs/``."""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass
class Task:
    id: str
    dir: Path
    instruction: str
    expected_outputs: list[dict[str, Any]]
    raw: dict[str, Any]

    @property
    def inputs_dir(self) -> Path:
        return self.dir / "inputs"

    def prepare_workdir(self, workdir: Path) -> Path:
        """A fresh, writable copy of the task's inputs (the agent's working directory)."""
        if workdir.exists():
            shutil.rmtree(workdir)
        workdir.mkdir(parents=True)
        if self.inputs_dir.is_dir():
            for item in self.inputs_dir.iterdir():
                target = workdir / item.name
                if item.is_dir():
                    shutil.copytree(item, target)
                else:
                    shutil.copyfile(item, target)
        return workdir


def load_suite(suite_dir: Path, only: list[str] | None = None) -> list[Task]:
    suite_dir = Path(suite_dir)
    if not suite_dir.is_dir():
        raise FileNotFoundError(f"suite folder not found: {suite_dir}")
    tasks = []
    for task_json in sorted(suite_dir.glob("*/task.json")):
        data = json.loads(task_json.read_text())
        task_id = data.get("task_id") or task_json.parent.name
        if only and task_id not in only:
            continue
        tasks.append(Task(task_id, task_json.parent, data["instruction"], data.get("expected_outputs", []), data))
    if only:
        missing = sorted(set(only) - {t.id for t in tasks})
        if missing:
            raise ValueError(f"unknown task id(s): {', '.join(missing)}")
    if not tasks:
        raise ValueError(f"no task.json found under {suite_dir}")
    return tasks
