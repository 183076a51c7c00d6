/**
 * The live plan: one row per subtask with its status, attempts and time. Rows
 * are buttons (keyboard: Tab + Enter) that open the subtask's details.
 */
import * as React from 'react';

import { formatSeconds, ISubtaskView, subtaskSeconds } from '../runs/model';
import { StatusBadge } from './StatusBadge';

export interface IPlanListProps {
  subtasks: ISubtaskView[];
  selected: string | null;
  onSelect: (subtaskId: string) => void;
  /** Now, in ms (the panel ticks it while a subtask runs). */
  now: number;
  /** What to say while there is no plan yet (default: planning). */
  emptyText?: string;
}

export function PlanList(props: IPlanListProps): JSX.Element {
  if (props.subtasks.length === 0) {
    return (
      <p className="jp-GeoAgent-hint" data-testid="geoagent-plan-empty">
        {props.emptyText ?? 'Planning…'}
      </p>
    );
  }
  return (
    <ol className="jp-GeoAgent-plan" data-testid="geoagent-plan">
      {props.subtasks.map((subtask, i) => {
        const seconds = subtaskSeconds(subtask, props.now);
        const attempts = subtask.attempts.length;
        return (
          <li key={subtask.id}>
            <button
              type="button"
              className={`jp-GeoAgent-subtask${
                props.selected === subtask.id ? ' jp-mod-selected' : ''
              }`}
              data-testid="geoagent-subtask"
              data-subtask={subtask.id}
              data-status={subtask.status}
              aria-pressed={props.selected === subtask.id}
              onClick={() => props.onSelect(subtask.id)}
            >
              <StatusBadge
                status={subtask.status}
                compact
                testid="geoagent-subtask-status"
              />
              <span className="jp-GeoAgent-subtask-index">{i + 1}.</span>
              <span className="jp-GeoAgent-subtask-text">
                <span className="jp-GeoAgent-subtask-description">
                  {subtask.description}
                </span>
                {subtask.crsAdvice && (
                  <span
                    className="jp-GeoAgent-subtask-crs"
                    data-testid="geoagent-subtask-crs"
                  >
                    {subtask.crsAdvice}
                  </span>
                )}
                <span className="jp-GeoAgent-subtask-meta">
                  <span data-testid="geoagent-subtask-label">
                    {subtaskLabel(subtask)}
                  </span>
                  {attempts > 0 && (
                    <span data-testid="geoagent-subtask-attempts">
                      {attempts === 1 ? '1 attempt' : `${attempts} attempts`}
                    </span>
                  )}
                  {seconds !== null && (
                    <span data-testid="geoagent-subtask-time">
                      {formatSeconds(seconds)}
                    </span>
                  )}
                  {subtask.insertedFor && <span>added to define a name</span>}
                </span>
              </span>
            </button>
          </li>
        );
      })}
    </ol>
  );
}

/** The word for a subtask's state, with who solved it. */
export function subtaskLabel(subtask: ISubtaskView): string {
  switch (subtask.status) {
    case 'solved':
      return subtask.by === 'human' ? 'done (your fix)' : 'done';
    case 'needs_human':
      return 'needs you';
    case 'awaiting_approval':
      return 'needs approval';
    case 'running':
      return 'working';
    case 'skipped':
      return 'skipped';
    default:
      return 'waiting';
  }
}
