/**
 * The metadata that marks what a run wrote: `metadata.geoagent = {run_id,
 * subtask_id, role}` on each cell it inserted, and on the notebook the cells
 * the user rejected, so a replayed stream (the run reopened from the chat, a
 * reload) does not write them again.
 */
import type { ISharedNotebook } from '@jupyter/ydoc';

export const METADATA_KEY = 'geoagent';

/** Metadata of a cell a run inserted, or null for anyone else's cell. */
export function runCellInfo(
  cell: { getMetadata(key: string): unknown } | undefined
): { run_id: string; subtask_id: string; role: string } | null {
  const info = cell?.getMetadata(METADATA_KEY) as any;
  return info && typeof info.run_id === 'string' ? info : null;
}

/** Whether the user rejected this subtask's code (or the whole run): a replay must not write it again. */
export function isRejected(
  notebook: ISharedNotebook,
  runId: string,
  subtaskId: string
): boolean {
  const rejected = rejections(notebook)[runId] ?? [];
  return rejected.includes('*') || rejected.includes(`${subtaskId}/code`);
}

function rejections(notebook: ISharedNotebook): Record<string, string[]> {
  const meta = notebook.getMetadata(METADATA_KEY) as any;
  return meta && typeof meta.rejected === 'object' && meta.rejected
    ? meta.rejected
    : {};
}

/** Record rejected cells (`<subtask>/<role>`, or `*`: the whole run); not an undo step. */
export function remember(
  notebook: ISharedNotebook,
  runId: string,
  entries: string[]
): void {
  if (!entries.length) {
    return;
  }
  const meta = (notebook.getMetadata(METADATA_KEY) as any) ?? {};
  const rejected = rejections(notebook);
  const merged = Array.from(new Set([...(rejected[runId] ?? []), ...entries]));
  notebook.transact(() => {
    notebook.setMetadata(METADATA_KEY, {
      ...meta,
      rejected: { ...rejected, [runId]: merged }
    });
  }, false);
}
