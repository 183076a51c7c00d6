"""`jupyter geoagent run --undo RUN_ID`: a run's cells out of a notebook file the CLI wrote, and never
behind an editor that has it open (issue 20)."""

from __future__ import annotations

import nbformat

from geoagent_ext.agent import notebook as nbwriter
from geoagent_ext.agent.events import ExecutionSummary, Solved, SubtaskSpec
from geoagent_ext.cli import run_cmd
from geoagent_ext.cli.main import main as cli_main


def _notebook_with_two_runs(path):
    nb = nbwriter.load_or_new(path)
    nb.cells.append(nbformat.v4.new_code_cell("mine = 1"))
    steps = [SubtaskSpec(id="s1", description="Load"), SubtaskSpec(id="s2", description="Sum")]
    for run_id in ("run-a", "run-b"):
        events = [
            Solved(
                run_id=run_id,
                subtask_id=s.id,
                code=f"# {run_id} {s.id}",
                attempts=1,
                result=ExecutionSummary(status="ok"),
            )
            for s in steps
        ]
        nbwriter.append_run(nb, f"request {run_id}", steps, events)
    nbwriter.write(nb, path)


def test_undo_takes_out_that_runs_cells_only(tmp_path):
    path = tmp_path / "nb.ipynb"
    _notebook_with_two_runs(path)
    assert cli_main(["run", "--notebook", str(path), "--undo", "run-a"]) == 0
    sources = [c.source for c in nbformat.read(path, as_version=4).cells]
    assert sources[0] == "mine = 1" and not any("run-a" in s for s in sources)
    assert sum("run-b" in s for s in sources) == 3  # its request heading and two code cells
    assert cli_main(["run", "--notebook", str(path), "--undo", "run-a"]) == 1  # nothing left of it


def test_undo_refuses_a_notebook_open_in_an_editor(tmp_path, monkeypatch, capsys):
    path = tmp_path / "nb.ipynb"
    _notebook_with_two_runs(path)
    before = path.read_bytes()
    monkeypatch.setattr(run_cmd, "open_in", lambda p: "http://127.0.0.1:8888/" if p == path else None)
    assert cli_main(["run", "--notebook", str(path), "--undo", "run-a"]) == 3
    assert path.read_bytes() == before
    assert "open in the Jupyter server at http://127.0.0.1:8888/" in capsys.readouterr().err
