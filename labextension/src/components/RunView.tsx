/**
 * A run: its request and status, cancel, the deliverable contract, the live
 * plan and the selected subtask's details. Pure: the panel owns the run state
 * and the connection.
 */
import * as React from 'react';

import {
  formatSeconds,
  isFinished,
  IRunView,
  ISubtaskView,
  placeText
} from '../runs/model';
import { StreamState } from '../runs/client';
import { IAction } from '../runs/types';
import { ChangesView, IChangesViewProps } from './ChangesView';
import { ContractView } from './ContractView';
import { PlanList } from './PlanList';
import { StatusBadge } from './StatusBadge';
import { SubtaskDetail } from './SubtaskDetail';

export interface IRunViewProps {
  run: IRunView;
  /** The subtask the user picked; null follows the run. */
  selected: string | null;
  onSelect: (subtaskId: string) => void;
  onAction: (action: IAction) => Promise<void>;
  onCancel: () => void;
  connection: StreamState | null;
  /** Cells the run has put into the notebook. */
  cellsWritten: number;
  now: number;
  /** The review of the run's cells and variables; absent without notebook access. */
  changes?: IChangesViewProps;
}

/** The subtask to show when the user has not picked one: what needs them, else what runs. */
export function focusSubtask(run: IRunView): ISubtaskView | undefined {
  const by = (id: string | undefined) => run.subtasks.find(s => s.id === id);
  return (
    by(run.waitingFor?.subtaskId) ??
    run.subtasks.find(s => s.status === 'running') ??
    [...run.subtasks].reverse().find(s => s.status !== 'pending') ??
    run.subtasks[0]
  );
}

export function RunView(props: IRunViewProps): JSX.Element {
  const { run } = props;
  const finished = isFinished(run.status);
  const subtask =
    (props.selected && run.subtasks.find(s => s.id === props.selected)) ||
    focusSubtask(run);
  const index = subtask ? run.subtasks.indexOf(subtask) : -1;
  const elapsed =
    run.startedAt !== undefined
      ? ((run.finishedAt ?? props.now) - run.startedAt) / 1000
      : null;
  const solved = run.subtasks.filter(s => s.status === 'solved').length;

  return (
    <div
      className="jp-GeoAgent-run"
      data-testid="geoagent-run-view"
      data-status={run.status}
      data-run-id={run.runId}
    >
      <div className="jp-GeoAgent-run-header">
        <StatusBadge status={run.status} testid="geoagent-run-status" />
        <span className="jp-GeoAgent-run-meta">
          {run.subtasks.length > 0 && `${solved}/${run.subtasks.length} steps`}
          {elapsed !== null && ` · ${formatSeconds(elapsed)}`}
        </span>
        {!finished && (
          <button
            type="button"
            className="jp-Button jp-mod-styled jp-mod-reject jp-GeoAgent-cancel"
            data-testid="geoagent-cancel"
            onClick={props.onCancel}
          >
            Cancel
          </button>
        )}
      </div>
      <p
        className="jp-GeoAgent-run-request"
        data-testid="geoagent-run-request"
        title={run.model}
      >
        {run.request}
      </p>
      {props.connection === 'reconnecting' && (
        <p className="jp-GeoAgent-warn" role="status">
          Connection lost, reconnecting…
        </p>
      )}
      {props.connection === 'lost' && (
        <p className="jp-GeoAgent-error" role="alert">
          Lost the connection to this run. It goes on on the server: reopen the
          panel to follow it.
        </p>
      )}
      {!finished && run.modelWaiting !== null && (
        <p
          className="jp-GeoAgent-progress"
          role="status"
          data-testid="geoagent-model-waiting"
        >
          {placeText(run.modelWaiting)}…
        </p>
      )}
      {!finished && run.progress && (
        <p
          className="jp-GeoAgent-progress"
          role="status"
          data-testid="geoagent-progress"
        >
          {run.progress}…
        </p>
      )}
      {run.warnings.map(warning => (
        <p
          key={warning}
          className="jp-GeoAgent-warn"
          data-testid="geoagent-warning"
        >
          {warning}
        </p>
      ))}
      {finished && (
        <p
          className={`jp-GeoAgent-run-message jp-GeoAgent-tone-${
            run.status === 'succeeded'
              ? 'ok'
              : run.status === 'cancelled'
                ? 'idle'
                : 'warn'
          }`}
          data-testid="geoagent-run-message"
          role="status"
        >
          {run.message || run.status}
          {run.stats &&
            ` · ${run.stats.llm_calls} model calls, ${run.stats.attempts} attempts`}
          {props.cellsWritten > 0 &&
            ` · ${props.cellsWritten} cells added to the notebook`}
        </p>
      )}
      {run.crsAdvice.length > 0 && (
        <details className="jp-GeoAgent-crsAdvice">
          <summary>CRS advice for this data</summary>
          <ul>
            {run.crsAdvice.map(line => (
              <li key={line}>{line.replace(/^- /, '')}</li>
            ))}
          </ul>
        </details>
      )}
      {run.contract && (
        <ContractView
          contract={run.contract}
          checks={run.checks}
          by={run.contractBy}
          subtasks={run.subtasks}
          finished={finished}
          unmet={run.unmet}
          notVerified={run.notVerified}
          reviewing={run.waitingFor?.kind === 'contract'}
          onAction={props.onAction}
        />
      )}
      <PlanList
        subtasks={run.subtasks}
        emptyText={
          !finished && run.waitingFor?.kind === 'contract'
            ? 'The agent plans once you have reviewed the requirements.'
            : undefined
        }
        selected={subtask?.id ?? null}
        onSelect={props.onSelect}
        now={props.now}
      />
      {subtask && (
        <SubtaskDetail
          key={subtask.id}
          subtask={subtask}
          index={index}
          waiting={
            !finished &&
            run.waitingFor &&
            run.waitingFor.kind !== 'contract' &&
            run.waitingFor.subtaskId === subtask.id
              ? run.waitingFor.kind
              : null
          }
          onAction={props.onAction}
        />
      )}
      {props.changes && <ChangesView {...props.changes} />}
    </div>
  );
}
