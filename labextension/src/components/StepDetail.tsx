/**
 * One step in detail: what waits for the user (fix or approval) on top, then
 * tabs for its code, the changes between attempts and the search tree.
 */
import * as React from 'react';

import { IStepView } from '../runs/model';
import { IAction } from '../runs/types';
import { headingSource } from '../notebook/writer';
import { ApprovalBar } from './ApprovalBar';
import { AttemptDiff } from './AttemptDiff';
import { CodeView } from './CodeView';
import { FixEditor } from './FixEditor';
import { SearchTree } from './SearchTree';
import { StatusBadge } from './StatusBadge';

export type DetailTab = 'code' | 'changes' | 'tree';

export interface IStepDetailProps {
  step: IStepView;
  index: number;
  /** The run waits on this step for this. */
  waiting: 'stuck' | 'approval' | null;
  onAction: (action: IAction) => Promise<void>;
}

export function defaultTab(step: IStepView): DetailTab {
  if (step.nodeOrder.length > 0) {
    return 'tree';
  }
  return step.attempts.length > 1 ? 'changes' : 'code';
}

export function StepDetail(props: IStepDetailProps): JSX.Element {
  const { step } = props;
  const [tab, setTab] = React.useState<DetailTab | null>(null);
  const [diffAt, setDiffAt] = React.useState<number | undefined>(undefined);
  const [node, setNode] = React.useState<string | null>(null);
  const current = tab ?? defaultTab(step);
  const changes = Math.max(0, step.attempts.length - 1);

  const tabs: Array<{ id: DetailTab; label: string; show: boolean }> = [
    { id: 'code', label: 'Code', show: true },
    { id: 'changes', label: `Changes (${changes})`, show: changes > 0 },
    { id: 'tree', label: `Search tree (${step.nodeOrder.length})`, show: step.nodeOrder.length > 0 }
  ];
  const result = step.solved?.result;

  return (
    <section
      className="jp-GeoAgent-detail-panel"
      data-testid="geoagent-step-detail"
      data-subtask={step.id}
      aria-label={`Step ${props.index + 1} details`}
    >
      <h4 className="jp-GeoAgent-detail-title">
        <StatusBadge status={step.status} />
        <span>
          Step {props.index + 1}: {step.description}
        </span>
      </h4>
      {props.waiting === 'stuck' && (
        <FixEditor
          subtaskId={step.id}
          description={step.description}
          code={step.code}
          error={step.error}
          attempts={step.attempts.filter(a => a.by === 'agent').length}
          onAction={props.onAction}
        />
      )}
      {props.waiting === 'approval' && (
        <ApprovalBar subtaskId={step.id} code={step.code} heading={headingSource(step, props.index)}
          onAction={props.onAction} />
      )}
      {step.hints.length > 0 && (
        <p className="jp-GeoAgent-hint">Your hints: {step.hints.join(' · ')}</p>
      )}
      <div className="jp-GeoAgent-tabs" role="tablist" aria-label="Step views">
        {tabs
          .filter(t => t.show)
          .map(t => (
            <button
              key={t.id}
              type="button"
              role="tab"
              aria-selected={current === t.id}
              className={`jp-GeoAgent-tab${current === t.id ? ' jp-mod-active' : ''}`}
              data-testid={`geoagent-tab-${t.id}`}
              onClick={() => setTab(t.id)}
            >
              {t.label}
            </button>
          ))}
      </div>
      <div role="tabpanel" className="jp-GeoAgent-tabpanel">
        {current === 'code' &&
          (step.code ? (
            <>
              <CodeView value={step.code} ariaLabel="Step code" testid="geoagent-step-code" />
              {result && (
                <p className="jp-GeoAgent-hint" data-testid="geoagent-step-result">
                  {step.solved?.by === 'human' ? 'Your fix ran' : 'Ran'} in{' '}
                  {result.duration_s.toFixed(1)} s
                  {result.outputs.length > 0 ? `, ${result.outputs.length} output(s) in the notebook` : ''}
                  {result.warnings.length > 0 ? `. Check: ${result.warnings.join('; ')}` : ''}
                </p>
              )}
            </>
          ) : (
            <p className="jp-GeoAgent-hint">No code yet.</p>
          ))}
        {current === 'changes' && (
          <AttemptDiff attempts={step.attempts} selected={diffAt} onSelect={setDiffAt} />
        )}
        {current === 'tree' && (
          <>
            <SearchTree
              nodes={step.nodes}
              order={step.nodeOrder}
              selected={node}
              onSelect={id => {
                setNode(id);
                const attempt = step.attempts.find(a => a.nodeId === id);
                if (attempt && attempt.parentId && step.nodes[attempt.parentId]?.code) {
                  // A repaired node: show what the repair changed.
                  setDiffAt(attempt.n);
                  setTab('changes');
                }
              }}
            />
            {node && step.nodes[node] && (
              <div className="jp-GeoAgent-node" data-testid="geoagent-node-detail">
                {step.nodes[node].error && (
                  <p className="jp-GeoAgent-diff-why">
                    <strong>Failed:</strong> {step.nodes[node].error}
                  </p>
                )}
                <CodeView value={step.nodes[node].code} ariaLabel="Node code" />
              </div>
            )}
          </>
        )}
      </div>
    </section>
  );
}
