/**
 * One subtask in detail: what waits for the user (fix or approval) on top, then
 * tabs for its code, the changes between attempts and the search tree.
 */
import * as React from 'react';

import { ISubtaskView } from '../runs/model';
import { IAction } from '../runs/types';
import { headingSource } from '../notebook/writer';
import { ApprovalBar } from './ApprovalBar';
import { AttemptDiff } from './AttemptDiff';
import { CodeView } from './CodeView';
import { FixEditor } from './FixEditor';
import { SearchTree } from './SearchTree';
import { StatusBadge } from './StatusBadge';

export type DetailTab = 'code' | 'changes' | 'tree';

export interface ISubtaskDetailProps {
  subtask: ISubtaskView;
  index: number;
  /** The run waits on this subtask for this. */
  waiting: 'stuck' | 'approval' | null;
  onAction: (action: IAction) => Promise<void>;
}

export function defaultTab(subtask: ISubtaskView): DetailTab {
  if (subtask.nodeOrder.length > 0) {
    return 'tree';
  }
  return subtask.attempts.length > 1 ? 'changes' : 'code';
}

export function SubtaskDetail(props: ISubtaskDetailProps): JSX.Element {
  const { subtask } = props;
  const [tab, setTab] = React.useState<DetailTab | null>(null);
  const [diffAt, setDiffAt] = React.useState<number | undefined>(undefined);
  const [node, setNode] = React.useState<string | null>(null);
  const current = tab ?? defaultTab(subtask);
  const changes = Math.max(0, subtask.attempts.length - 1);

  const tabs: Array<{ id: DetailTab; label: string; show: boolean }> = [
    { id: 'code', label: 'Code', show: true },
    { id: 'changes', label: `Changes (${changes})`, show: changes > 0 },
    {
      id: 'tree',
      label: `Search tree (${subtask.nodeOrder.length})`,
      show: subtask.nodeOrder.length > 0
    }
  ];
  const result = subtask.solved?.result;

  return (
    <section
      className="jp-GeoAgent-detail-panel"
      data-testid="geoagent-subtask-detail"
      data-subtask={subtask.id}
      aria-label={`Step ${props.index + 1} details`}
    >
      <h4 className="jp-GeoAgent-detail-title">
        <StatusBadge status={subtask.status} />
        <span>
          Step {props.index + 1}: {subtask.description}
        </span>
      </h4>
      {props.waiting === 'stuck' && (
        <FixEditor
          subtaskId={subtask.id}
          description={subtask.description}
          code={subtask.code}
          error={subtask.error}
          attempts={subtask.attempts.filter(a => a.by === 'agent').length}
          onAction={props.onAction}
        />
      )}
      {props.waiting === 'approval' && (
        <ApprovalBar
          subtaskId={subtask.id}
          code={subtask.code}
          heading={headingSource(subtask, props.index)}
          onAction={props.onAction}
        />
      )}
      {subtask.hints.length > 0 && (
        <p className="jp-GeoAgent-hint">
          Your hints: {subtask.hints.join(' · ')}
        </p>
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
          (subtask.code ? (
            <>
              <CodeView
                value={subtask.code}
                ariaLabel="Step code"
                testid="geoagent-subtask-code"
              />
              {result && (
                <p
                  className="jp-GeoAgent-hint"
                  data-testid="geoagent-subtask-result"
                >
                  {subtask.solved?.by === 'human' ? 'Your fix ran' : 'Ran'} in{' '}
                  {result.duration_s.toFixed(1)} s
                  {result.outputs.length > 0
                    ? `, ${result.outputs.length} output(s) in the notebook`
                    : ''}
                  {result.warnings.length > 0
                    ? `. Check: ${result.warnings.join('; ')}`
                    : ''}
                </p>
              )}
            </>
          ) : (
            <p className="jp-GeoAgent-hint">No code yet.</p>
          ))}
        {current === 'changes' && (
          <AttemptDiff
            attempts={subtask.attempts}
            selected={diffAt}
            onSelect={setDiffAt}
          />
        )}
        {current === 'tree' && (
          <>
            {subtask.searchReason && (
              <p
                className="jp-GeoAgent-hint"
                data-testid="geoagent-search-reason"
              >
                Search took this step over from the loop: {subtask.searchReason}
              </p>
            )}
            <SearchTree
              nodes={subtask.nodes}
              order={subtask.nodeOrder}
              selected={node}
              onSelect={id => {
                setNode(id);
                const attempt = subtask.attempts.find(a => a.nodeId === id);
                if (
                  attempt &&
                  attempt.parentId &&
                  subtask.nodes[attempt.parentId]?.code
                ) {
                  // A repaired node: show what the repair changed.
                  setDiffAt(attempt.n);
                  setTab('changes');
                }
              }}
            />
            {node && subtask.nodes[node] && (
              <div
                className="jp-GeoAgent-node"
                data-testid="geoagent-node-detail"
              >
                {subtask.nodes[node].error && (
                  <p className="jp-GeoAgent-diff-why">
                    <strong>Failed:</strong> {subtask.nodes[node].error}
                  </p>
                )}
                <CodeView
                  value={subtask.nodes[node].code}
                  ariaLabel="Node code"
                />
              </div>
            )}
          </>
        )}
      </div>
    </section>
  );
}
