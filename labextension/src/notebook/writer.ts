/**
 * Puts a run's accepted code into the notebook: per solved subtask, a markdown
 * heading and a code cell with the outputs the live kernel produced, inserted
 * below the cell that was active when the run started (then below the
 * previous subtask's cells).
 *
 * It only ever inserts: existing cells are never changed, so the user's work
 * is safe even if they edit while the run goes on. Inserted cells carry
 * `metadata.geoagent = {run_id, subtask_id}`; that is how the writer finds
 * its own cells again (the user may move or delete them) and how a replayed
 * stream (reconnect, page reload) avoids writing a subtask twice.
 */
import type { ISharedNotebook } from '@jupyter/ydoc';
import type * as nbformat from '@jupyterlab/nbformat';

import { ISubtaskView } from '../runs/model';
import { isRejected, METADATA_KEY, runCellInfo } from './metadata';

export { METADATA_KEY, runCellInfo };

export interface IWrittenSubtask {
  subtaskId: string;
  headingId: string;
  codeId: string;
}

let counter = 0;
/** Cell ids: nbformat 4.5 allows [a-zA-Z0-9-_]{1,64}. */
function cellId(): string {
  counter += 1;
  return `geoagent-${Date.now().toString(36)}-${counter}-${Math.random()
    .toString(36)
    .slice(2, 8)}`;
}

/** Heading text: "Step 2 · Reproject the parcels" (+ who wrote the code). */
export function headingSource(subtask: ISubtaskView, index: number): string {
  const who = subtask.solved?.by === 'human' ? ' (your fix)' : '';
  return `### GeoAgent step ${index + 1}: ${subtask.description}${who}`;
}

export class RunCellWriter {
  /**
   * @param runId the run whose subtasks this writer inserts
   * @param anchorId id of the cell that was active when the run started
   *   (cells go below it); null: below the run's cells, else at the end
   */
  constructor(
    readonly runId: string,
    readonly anchorId: string | null
  ) {}

  /** Subtasks written so far, in order. */
  get written(): readonly IWrittenSubtask[] {
    return this._written;
  }

  /** Ids of every cell this writer inserted. */
  get cellIds(): string[] {
    const ids: string[] = [];
    this._written.forEach(w => ids.push(w.headingId, w.codeId));
    return ids;
  }

  /**
   * Insert the cells of a solved subtask into `notebook` (the shared model of
   * the run's notebook, looked up by the caller each time: the user may have
   * closed and reopened it), unless they are already there.
   * Returns the ids of the new cells (empty when nothing was inserted).
   * `outputs`: the subtask's whole outputs when its event carries them cut
   * (`result.truncated`); by default the event's.
   */
  write(
    notebook: ISharedNotebook,
    subtask: ISubtaskView,
    index: number,
    outputs?: nbformat.IOutput[]
  ): string[] {
    if (
      !subtask.solved ||
      this.has(notebook, subtask.id) ||
      isRejected(notebook, this.runId, subtask.id)
    ) {
      return [];
    }
    const at = this._insertionIndex(notebook);
    const heading: nbformat.IMarkdownCell = {
      id: cellId(),
      cell_type: 'markdown',
      source: headingSource(subtask, index),
      metadata: {
        [METADATA_KEY]: {
          run_id: this.runId,
          subtask_id: subtask.id,
          role: 'heading'
        }
      }
    };
    const code: nbformat.ICodeCell = {
      id: cellId(),
      cell_type: 'code',
      source: subtask.solved.code,
      execution_count: null,
      // nbformat output dicts from the kernel (the event types only say "dicts").
      outputs:
        outputs ??
        ((subtask.solved.result.outputs ?? []) as nbformat.IOutput[]),
      metadata: {
        // The outputs come from the user's own kernel running this code on their
        // behalf, as if they had run the cell: trust them like Lab trusts the
        // outputs of cells the user runs (else HTML maps are sanitized away).
        trusted: true,
        [METADATA_KEY]: {
          run_id: this.runId,
          subtask_id: subtask.id,
          role: 'code',
          by: subtask.solved.by
        }
      }
    };
    // One transaction: collaborators and undo see one change.
    notebook.transact(() => {
      notebook.insertCells(at, [heading, code]);
    });
    this._written.push({
      subtaskId: subtask.id,
      headingId: heading.id as string,
      codeId: code.id as string
    });
    return [heading.id as string, code.id as string];
  }

  /** Whether the notebook already holds this run's cells for a subtask. */
  has(notebook: ISharedNotebook, subtaskId: string): boolean {
    return notebook.cells.some(cell => {
      const info = runCellInfo(cell);
      return (
        info !== null &&
        info.run_id === this.runId &&
        info.subtask_id === subtaskId &&
        info.role === 'code'
      );
    });
  }

  /** Below this run's last cell still present, else below the anchor, else at the end. */
  private _insertionIndex(notebook: ISharedNotebook): number {
    const cells = notebook.cells;
    for (let i = cells.length - 1; i >= 0; i--) {
      const info = runCellInfo(cells[i]);
      if (info && info.run_id === this.runId) {
        return i + 1;
      }
    }
    if (this.anchorId) {
      const anchor = cells.findIndex(c => c.getId() === this.anchorId);
      if (anchor >= 0) {
        return anchor + 1;
      }
    }
    return cells.length;
  }

  private _written: IWrittenSubtask[] = [];
}
