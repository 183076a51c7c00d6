"""Write a run's accepted code and outputs into a notebook (CLI and batch runs), or take them out.

The panel inserts cells live in the browser; headless runs need the same
result on disk: one markdown heading per subtask, then its code cell with the
outputs it produced in the kernel. Existing cells are never modified. Every
cell carries ``metadata.geoagent = {run_id, subtask_id, role}`` as the panel's
do (labextension/src/notebook/writer.ts), so ``remove_run`` can undo a run.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import nbformat

from .events import Event, Solved, SubtaskSpec


def load_or_new(path: Path) -> nbformat.NotebookNode:
    if path.exists():
        return nbformat.read(path, as_version=4)
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return nb


METADATA_KEY = "geoagent"


def _tag(cell: nbformat.NotebookNode, run_id: str, subtask_id: str, role: str) -> nbformat.NotebookNode:
    cell.metadata[METADATA_KEY] = {"run_id": run_id, "subtask_id": subtask_id, "role": role}
    return cell


def append_run(
    nb: nbformat.NotebookNode,
    request: str,
    subtasks: list[SubtaskSpec],
    events: list[Event],
    run_id: str = "",
    full_outputs: Callable[[str], list[dict] | None] | None = None,
) -> int:
    """Append the run's solved steps; returns how many code cells were added. ``full_outputs``
    (``Run.full_outputs``) gives a step's whole outputs: its events carry them bounded."""
    solved = {e.subtask_id: e for e in events if isinstance(e, Solved)}
    run_id = run_id or next((e.run_id for e in events), "")
    nb.cells.append(_tag(nbformat.v4.new_markdown_cell(f"## GeoAgent: {request}"), run_id, "", "run"))
    added = 0
    for number, subtask in enumerate(subtasks, start=1):
        event = solved.get(subtask.id)
        heading = f"### Step {number}: {subtask.description}"
        if event is None:
            nb.cells.append(
                _tag(nbformat.v4.new_markdown_cell(heading + "\n\n*(not done)*"), run_id, subtask.id, "heading")
            )
            continue
        if event.by == "human":
            heading += " *(fixed by you)*"
        nb.cells.append(_tag(nbformat.v4.new_markdown_cell(heading), run_id, subtask.id, "heading"))
        whole = full_outputs(subtask.id) if full_outputs is not None and event.result.truncated else None
        outputs = [nbformat.from_dict(o) for o in (event.result.outputs if whole is None else whole)]
        nb.cells.append(_tag(nbformat.v4.new_code_cell(event.code, outputs=outputs), run_id, subtask.id, "code"))
        added += 1
    return added


def remove_run(nb: nbformat.NotebookNode, run_id: str) -> int:
    """Take out every cell run ``run_id`` added (whoever added them: CLI or panel); returns how many."""
    keep = [c for c in nb.cells if (c.get("metadata", {}).get(METADATA_KEY) or {}).get("run_id") != run_id]
    removed = len(nb.cells) - len(keep)
    nb.cells = keep
    return removed


def write(nb: nbformat.NotebookNode, path: Path) -> None:
    nbformat.validate(nb)
    tmp = path.with_suffix(path.suffix + ".tmp")
    nbformat.write(nb, tmp)
    tmp.replace(path)
