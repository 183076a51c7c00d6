/**
 * The run as a reviewable change: its cells (edited ones marked), rejecting
 * one or all in one undoable transaction, never the user's cells, and a
 * replay that does not write rejected cells again; the variables fold.
 */
import { YNotebook } from '@jupyter/ydoc';

import {
  acceptCells,
  rejectCells,
  rejectRun,
  runCells
} from '../notebook/changes';
import { RunCellWriter } from '../notebook/writer';
import { emptyRun, IRunView, ISubtaskView } from '../runs/model';
import { addNamespaceChange, emptyVariables } from '../runs/variables';
import { result } from './fakes';

function solved(id: string, description: string, code: string): ISubtaskView {
  return {
    id,
    description,
    status: 'solved',
    attempts: [],
    code,
    error: '',
    crsAdvice: '',
    nodes: {},
    nodeOrder: [],
    hints: [],
    by: 'agent',
    solved: { code, by: 'agent', result: result('ok') as any }
  };
}

function written(): { nb: YNotebook; run: IRunView; writer: RunCellWriter } {
  const nb = YNotebook.create(); // with its metadata map, as a notebook Lab opens
  nb.insertCells(0, [
    {
      id: 'user-1',
      cell_type: 'code',
      source: 'x = 1',
      metadata: {},
      outputs: [],
      execution_count: 1
    },
    { id: 'user-2', cell_type: 'markdown', source: '# notes', metadata: {} }
  ]);
  const run: IRunView = {
    ...emptyRun('run1'),
    subtasks: [solved('s1', 'Load', 'a = 1'), solved('s2', 'Sum', 'b = a + 1')]
  };
  const writer = new RunCellWriter('run1', 'user-1');
  run.subtasks.forEach((subtask, i) => writer.write(nb, subtask, i));
  // Another run's cell, which no review of run1 may touch.
  new RunCellWriter('run2', 'user-2').write(
    nb,
    solved('t1', 'Other', 'c = 3'),
    0
  );
  nb.undoManager.clear();
  return { nb, run, writer };
}

const ids = (nb: YNotebook) => nb.cells.map(c => c.getId());

describe('the review of a run', () => {
  it('lists the run’s cells in notebook order and marks the ones the user edited', () => {
    const { nb, run } = written();
    nb.cells[2].setSource('a = 1  # mine now');
    nb.undoManager.clear();
    const cells = runCells(nb, run);
    expect(cells.map(c => [c.subtaskNumber, c.role, c.edited])).toEqual([
      [1, 'heading', false],
      [1, 'code', true],
      [2, 'heading', false],
      [2, 'code', false]
    ]);
    acceptCells(nb, 'run1', [cells[0].id]);
    expect(runCells(nb, run)[0].accepted).toBe(true);
    expect(nb.undoManager.canUndo()).toBe(false); // accepting is no change to undo
  });

  it('rejects one cell, then all of the run in one undoable step, never another’s cells', () => {
    const { nb, run, writer } = written();
    const before = ids(nb);
    const [heading1, , heading2] = runCells(nb, run);
    expect(rejectCells(nb, 'run1', [heading2.id, 'user-1'])).toBe(1);
    expect(ids(nb)).not.toContain(heading2.id);
    expect(ids(nb)).toContain('user-1');
    nb.undoManager.stopCapturing();

    expect(rejectRun(nb, 'run1')).toBe(3);
    expect(nb.cells.map(c => c.getSource())).toEqual([
      'x = 1',
      '# notes',
      '### GeoAgent step 1: Other',
      'c = 3'
    ]);
    nb.undo(); // one step brings all three back
    expect(ids(nb)).toEqual(before.filter(id => id !== heading2.id));
    expect(ids(nb)).toContain(heading1.id);

    // A replayed stream (the run reopened) does not write rejected cells again.
    rejectRun(nb, 'run1');
    const replay = new RunCellWriter('run1', 'user-1');
    expect(run.subtasks.map((s, i) => replay.write(nb, s, i).length)).toEqual([
      0, 0
    ]);
    expect(writer.written).toHaveLength(2);
  });
});

describe('the run’s variables', () => {
  it('folds commits into created (deletable), changed and deleted', () => {
    const event = (
      created: string[],
      changed: string[],
      deleted: string[],
      fingerprints: Record<string, string>
    ) =>
      ({
        type: 'namespace_changed',
        run_id: 'r',
        seq: 1,
        ts: '',
        subtask_id: 's',
        created,
        changed,
        deleted,
        fingerprints
      }) as const;
    let v = addNamespaceChange(
      emptyVariables(),
      event(['a', 'b'], ['user'], ['gone', 'back'], {
        a: 'a1',
        b: 'b1',
        user: 'u'
      })
    );
    v = addNamespaceChange(
      v,
      event(['back'], ['a'], ['b'], { a: 'a2', back: 'k' })
    );
    expect(v).toEqual({
      created: { a: 'a2' },
      changed: ['user', 'back'],
      deleted: ['gone']
    });
  });
});
