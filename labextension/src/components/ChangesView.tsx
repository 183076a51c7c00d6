/**
 * *Changes in the notebook*: the run as a reviewable change. Its cells (those
 * the user edited since are marked), each with accept / reject; *Reject all*
 * takes them all out in one undoable step; then what the run did to the
 * kernel's variables, with a button that deletes the ones it created (the
 * ones it changed can only be named: their old values are gone).
 */
import * as React from 'react';

import { IRunCell } from '../notebook/changes';
import { IDeleteVariablesResult, IRunVariables } from '../runs/types';

export interface IChangesViewProps {
  /** The run's cells in the notebook; null when the notebook is not open here. */
  cells: IRunCell[] | null;
  notebookPath: string | null;
  /** The run has ended: its variables can be cleaned up. */
  finished: boolean;
  variables: IRunVariables;
  /** How many cells the last *Reject all* removed, null before one. */
  rejectedAll: number | null;
  onAccept: (ids: string[]) => void;
  onReject: (ids: string[]) => void;
  onRejectAll: () => void;
  onDeleteVariables: () => Promise<IDeleteVariablesResult>;
}

function names(list: string[]): string {
  return list.join(', ');
}

function CellRow(props: {
  cell: IRunCell;
  onAccept: () => void;
  onReject: () => void;
}): JSX.Element {
  const { cell } = props;
  const what =
    cell.role === 'code'
      ? 'code'
      : cell.role === 'heading'
        ? 'heading'
        : 'note';
  return (
    <li
      className="jp-GeoAgent-change"
      data-testid="geoagent-change"
      data-cell-id={cell.id}
      data-edited={cell.edited}
      data-accepted={cell.accepted}
    >
      <span className="jp-GeoAgent-change-where">
        {cell.subtaskNumber > 0 ? `Step ${cell.subtaskNumber} · ${what}` : what}
        {cell.edited && (
          <span
            className="jp-GeoAgent-change-edited"
            data-testid="geoagent-change-edited"
          >
            {' '}
            · edited by you
          </span>
        )}
      </span>
      <code className="jp-GeoAgent-change-preview">{cell.preview}</code>
      {cell.accepted ? (
        <span className="jp-GeoAgent-change-accepted">accepted</span>
      ) : (
        <span className="jp-GeoAgent-change-actions">
          <button
            type="button"
            className="jp-Button jp-mod-styled jp-mod-accept"
            data-testid="geoagent-change-accept"
            title="Keep this cell"
            onClick={props.onAccept}
          >
            Accept
          </button>
          <button
            type="button"
            className="jp-Button jp-mod-styled jp-mod-reject"
            data-testid="geoagent-change-reject"
            title="Remove this cell from the notebook (Ctrl+Z there brings it back)"
            onClick={props.onReject}
          >
            Reject
          </button>
        </span>
      )}
    </li>
  );
}

function VariablesCleanup(props: {
  variables: IRunVariables;
  finished: boolean;
  onDelete: () => Promise<IDeleteVariablesResult>;
}): JSX.Element | null {
  const [busy, setBusy] = React.useState(false);
  const [result, setResult] = React.useState<IDeleteVariablesResult | null>(
    null
  );
  const [failure, setFailure] = React.useState<string | null>(null);
  const created = Object.keys(props.variables.created).sort();
  const { changed, deleted } = props.variables;
  if (!created.length && !changed.length && !deleted.length) {
    return null;
  }
  const remove = async () => {
    setBusy(true);
    setFailure(null);
    try {
      setResult(await props.onDelete());
    } catch (error) {
      setFailure((error as Error).message || String(error));
    } finally {
      setBusy(false);
    }
  };
  const kept = result ? Object.entries(result.kept) : [];
  return (
    <div className="jp-GeoAgent-variables" data-testid="geoagent-run-variables">
      <h4 className="jp-GeoAgent-subTitle">In the kernel</h4>
      {created.length > 0 && (
        <p data-testid="geoagent-vars-created">
          Created by the run: <code>{names(created)}</code>
        </p>
      )}
      {changed.length > 0 && (
        <p className="jp-GeoAgent-warn" data-testid="geoagent-vars-changed">
          Changed by the run: <code>{names(changed)}</code>. Their old values
          are gone: undoing the run cannot bring them back (run your own cells
          again to rebuild them).
        </p>
      )}
      {deleted.length > 0 && (
        <p className="jp-GeoAgent-warn" data-testid="geoagent-vars-deleted">
          Deleted by the run: <code>{names(deleted)}</code>. They are gone from
          the kernel.
        </p>
      )}
      {created.length > 0 && !result && (
        <button
          type="button"
          className="jp-Button jp-mod-styled jp-mod-reject"
          data-testid="geoagent-delete-variables"
          disabled={busy || !props.finished}
          title={props.finished ? undefined : 'Once the run has ended'}
          onClick={() => void remove()}
        >
          {busy
            ? 'Deleting…'
            : `Delete the ${created.length} variable${created.length === 1 ? '' : 's'} it created`}
        </button>
      )}
      {result && (
        <p role="status" data-testid="geoagent-vars-result">
          {result.deleted.length
            ? `Deleted from the kernel: ${names(result.deleted)}.`
            : 'Nothing deleted.'}
          {kept.length > 0 &&
            ` Kept: ${kept.map(([n, why]) => `${n} (${why})`).join(', ')}.`}
        </p>
      )}
      {failure && (
        <p
          className="jp-GeoAgent-action-error"
          role="alert"
          data-testid="geoagent-vars-error"
        >
          {failure}
        </p>
      )}
    </div>
  );
}

export function ChangesView(props: IChangesViewProps): JSX.Element {
  const { cells } = props;
  const edited = cells?.filter(c => c.edited).length ?? 0;
  return (
    <details
      className="jp-GeoAgent-changes"
      data-testid="geoagent-changes"
      open
    >
      <summary>Changes in the notebook</summary>
      {cells === null ? (
        <p className="jp-GeoAgent-muted">
          Open {props.notebookPath ?? 'the run’s notebook'} to review the cells
          this run added.
        </p>
      ) : cells.length === 0 ? (
        <p className="jp-GeoAgent-muted" data-testid="geoagent-changes-empty">
          {props.rejectedAll !== null
            ? `Rejected: ${props.rejectedAll} cell${props.rejectedAll === 1 ? '' : 's'} taken out of the notebook (Ctrl+Z there brings them back).`
            : 'No cells in the notebook from this run.'}
        </p>
      ) : (
        <>
          <ul className="jp-GeoAgent-changeList">
            {cells.map(cell => (
              <CellRow
                key={cell.id}
                cell={cell}
                onAccept={() => props.onAccept([cell.id])}
                onReject={() => props.onReject([cell.id])}
              />
            ))}
          </ul>
          <div className="jp-GeoAgent-actions">
            <button
              type="button"
              className="jp-Button jp-mod-styled jp-mod-reject"
              data-testid="geoagent-reject-all"
              disabled={!props.finished}
              title={
                props.finished
                  ? 'Take every cell of this run out of the notebook, in one step Ctrl+Z can undo'
                  : 'Once the run has ended (or cancel it first)'
              }
              onClick={props.onRejectAll}
            >
              Reject all (undo the run)
            </button>
            {edited > 0 && (
              <span className="jp-GeoAgent-warn">
                {edited} of them edited by you: your edits go with them.
              </span>
            )}
          </div>
        </>
      )}
      <VariablesCleanup
        variables={props.variables}
        finished={props.finished}
        onDelete={props.onDeleteVariables}
      />
    </details>
  );
}
