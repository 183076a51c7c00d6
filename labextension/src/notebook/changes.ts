/**
 * A run as a reviewable change to its notebook: which cells it added (and
 * whether the user edited them since), accepting or rejecting them, and
 * rejecting all of them in one undoable transaction of the shared model (so
 * RTC collaborators see one change and Ctrl+Z in the notebook brings them
 * back). Only cells carrying the run's metadata are ever touched.
 */
import type { ISharedNotebook } from '@jupyter/ydoc';
import { ISignal, Signal } from '@lumino/signaling';

import { IRunView } from '../runs/model';
import { METADATA_KEY, remember, runCellInfo } from './metadata';

export interface IRunCell {
  id: string;
  subtaskId: string;
  role: string;
  /** The subtask's number in the plan, from 1; 0 when it is not in the plan (yet). */
  subtaskNumber: number;
  /** The cell's text differs from what the run wrote. */
  edited: boolean;
  /** The user accepted it in the review. */
  accepted: boolean;
  /** Its first line, for the list. */
  preview: string;
}

/** The run's cells in notebook order, compared with what the run wrote. */
export function runCells(notebook: ISharedNotebook, run: IRunView): IRunCell[] {
  const cells: IRunCell[] = [];
  for (const cell of notebook.cells) {
    const info = runCellInfo(cell);
    if (!info || info.run_id !== run.runId) {
      continue;
    }
    const index = run.subtasks.findIndex(s => s.id === info.subtask_id);
    const subtask = index >= 0 ? run.subtasks[index] : undefined;
    const source = cell.getSource();
    let edited = false;
    if (subtask?.solved && info.role === 'code') {
      edited = source !== subtask.solved.code;
    } else if (subtask && info.role === 'heading') {
      edited = !source.includes(subtask.description);
    }
    cells.push({
      id: cell.getId(),
      subtaskId: info.subtask_id,
      role: info.role,
      subtaskNumber: index + 1,
      edited,
      accepted: (info as any).accepted === true,
      preview: source.split('\n').find(line => line.trim()) ?? ''
    });
  }
  return cells;
}

/**
 * Remove these cells of run `runId` in one transaction (one undo step);
 * returns how many went. Cells of anyone else are never removed.
 */
export function rejectCells(
  notebook: ISharedNotebook,
  runId: string,
  ids: Iterable<string>
): number {
  const wanted = new Set(ids);
  const gone: string[] = [];
  notebook.transact(() => {
    for (let i = notebook.cells.length - 1; i >= 0; i--) {
      const cell = notebook.cells[i];
      const info = runCellInfo(cell);
      if (info?.run_id === runId && wanted.has(cell.getId())) {
        gone.push(`${info.subtask_id}/${info.role}`);
        notebook.deleteCell(i);
      }
    }
  });
  remember(notebook, runId, gone);
  return gone.length;
}

/** Reject all: every cell of the run, in one transaction; returns how many went. */
export function rejectRun(notebook: ISharedNotebook, runId: string): number {
  const ids = notebook.cells
    .filter(c => runCellInfo(c)?.run_id === runId)
    .map(c => c.getId());
  const removed = rejectCells(notebook, runId, ids);
  remember(notebook, runId, ['*']);
  return removed;
}

/** Mark cells of the run as accepted (kept, out of the review's way); not an undo step. */
export function acceptCells(
  notebook: ISharedNotebook,
  runId: string,
  ids: Iterable<string>
): void {
  const wanted = new Set(ids);
  notebook.transact(() => {
    for (const cell of notebook.cells) {
      const info = runCellInfo(cell);
      if (info?.run_id === runId && wanted.has(cell.getId())) {
        cell.setMetadata(METADATA_KEY, { ...info, accepted: true });
      }
    }
  }, false);
}

/**
 * Tells when a notebook's cell list or one of a run's cells changes (the
 * user edits or deletes them), so the review shows it. `watch` is idempotent.
 */
export class NotebookWatch {
  get changed(): ISignal<this, void> {
    return this._changed;
  }

  watch(notebook: ISharedNotebook | null, runId: string | null): void {
    if (notebook !== this._notebook) {
      Signal.disconnectReceiver(this);
      this._cells = new WeakSet();
      this._notebook = notebook;
      notebook?.changed.connect(this._emit, this);
    }
    for (const cell of notebook?.cells ?? []) {
      if (
        runId &&
        runCellInfo(cell)?.run_id === runId &&
        !this._cells.has(cell)
      ) {
        this._cells.add(cell);
        cell.changed.connect(this._emit, this);
      }
    }
  }

  dispose(): void {
    Signal.disconnectReceiver(this);
    this._notebook = null;
  }

  private _emit(): void {
    this._changed.emit();
  }

  private _notebook: ISharedNotebook | null = null;
  private _cells = new WeakSet<object>();
  private _changed = new Signal<this, void>(this);
}
