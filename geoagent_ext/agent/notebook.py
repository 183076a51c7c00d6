"""Write a run's accepted code and outputs into a notebook (CLI and batch runs).

The panel inserts cells live in the browser; headless runs need the same
result on disk: one markdown heading per subtask, then its code cell with the
outputs it produced in the kernel. Existing cells are never modified.
"""

from __future__ import annotations

from pathlib import Path

import nbformat

from .events import Event, Solved, SubtaskSpec


def load_or_new(path: Path) -> nbformat.NotebookNode:
    if path.exists():
        return nbformat.read(path, as_version=4)
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return nb


def append_run(nb: nbformat.NotebookNode, request: str, subtasks: list[SubtaskSpec], events: list[Event]) -> int:
    """Append the run's solved steps; returns how many code cells were added."""
    solved = {e.subtask_id: e for e in events if isinstance(e, Solved)}
    nb.cells.append(nbformat.v4.new_markdown_cell(f"## GeoAgent: {request}"))
    added = 0
    for number, subtask in enumerate(subtasks, start=1):
        event = solved.get(subtask.id)
        heading = f"### Step {number}: {subtask.description}"
        if event is None:
            nb.cells.append(nbformat.v4.new_markdown_cell(heading + "\n\n*(not done)*"))
            continue
        if event.by == "human":
            heading += " *(fixed by you)*"
        nb.cells.append(nbformat.v4.new_markdown_cell(heading))
        outputs = [nbformat.from_dict(o) for o in event.result.outputs]
        cell = nbformat.v4.new_code_cell(event.code, outputs=outputs)
        nb.cells.append(cell)
        added += 1
    return added


def write(nb: nbformat.NotebookNode, path: Path) -> None:
    nbformat.validate(nb)
    tmp = path.with_suffix(path.suffix + ".tmp")
    nbformat.write(nb, tmp)
    tmp.replace(path)
