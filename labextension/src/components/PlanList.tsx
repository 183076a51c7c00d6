/**
 * The live plan: one row per step with its status, attempts and time. Rows
 * are buttons (keyboard: Tab + Enter) that open the step's details.
 */
import * as React from 'react';

import { formatSeconds, IStepView, stepSeconds } from '../runs/model';
import { StatusBadge } from './StatusBadge';

export interface IPlanListProps {
  steps: IStepView[];
  selected: string | null;
  onSelect: (subtaskId: string) => void;
  /** Now, in ms (the panel ticks it while a step runs). */
  now: number;
  /** What to say while there is no plan yet (default: planning). */
  emptyText?: string;
}

export function PlanList(props: IPlanListProps): JSX.Element {
  if (props.steps.length === 0) {
    return (
      <p className="jp-GeoAgent-hint" data-testid="geoagent-plan-empty">
        {props.emptyText ?? 'Planning…'}
      </p>
    );
  }
  return (
    <ol className="jp-GeoAgent-plan" data-testid="geoagent-plan">
      {props.steps.map((step, i) => {
        const seconds = stepSeconds(step, props.now);
        const attempts = step.attempts.length;
        return (
          <li key={step.id}>
            <button
              type="button"
              className={`jp-GeoAgent-step${
                props.selected === step.id ? ' jp-mod-selected' : ''
              }`}
              data-testid="geoagent-step"
              data-subtask={step.id}
              data-status={step.status}
              aria-pressed={props.selected === step.id}
              onClick={() => props.onSelect(step.id)}
            >
              <StatusBadge status={step.status} compact testid="geoagent-step-status" />
              <span className="jp-GeoAgent-step-index">{i + 1}.</span>
              <span className="jp-GeoAgent-step-text">
                <span className="jp-GeoAgent-step-description">{step.description}</span>
                {step.crsAdvice && (
                  <span className="jp-GeoAgent-step-crs" data-testid="geoagent-step-crs">
                    {step.crsAdvice}
                  </span>
                )}
                <span className="jp-GeoAgent-step-meta">
                  <span data-testid="geoagent-step-label">{stepLabel(step)}</span>
                  {attempts > 0 && (
                    <span data-testid="geoagent-step-attempts">
                      {attempts === 1 ? '1 attempt' : `${attempts} attempts`}
                    </span>
                  )}
                  {seconds !== null && (
                    <span data-testid="geoagent-step-time">{formatSeconds(seconds)}</span>
                  )}
                  {step.insertedFor && <span>added to define a name</span>}
                </span>
              </span>
            </button>
          </li>
        );
      })}
    </ol>
  );
}

/** The word for a step's state, with who solved it. */
export function stepLabel(step: IStepView): string {
  switch (step.status) {
    case 'solved':
      return step.by === 'human' ? 'done (your fix)' : 'done';
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
