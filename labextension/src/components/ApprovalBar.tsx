/**
 * Approval mode: a subtask's code waits here before it touches the live kernel.
 * Reject can say why; the agent reads that when it tries again.
 */
import * as React from 'react';

import { IAction } from '../runs/types';
import { ActionButton, ActionFailure, useAction } from './ActionButton';
import { CodeView } from './CodeView';

export interface IApprovalBarProps {
  subtaskId: string;
  code: string;
  /** The heading the subtask's cells get (see `notebook/writer.ts`). */
  heading?: string;
  onAction: (action: IAction) => Promise<void>;
}

export function ApprovalBar(props: IApprovalBarProps): JSX.Element {
  const [feedback, setFeedback] = React.useState('');
  const { busy, failure, act } = useAction(props.onAction);
  const send = (kind: 'approve' | 'reject') =>
    void act({ kind, subtask_id: props.subtaskId, text: feedback.trim() });

  return (
    <div className="jp-GeoAgent-approval" data-testid="geoagent-approval-bar">
      <p className="jp-GeoAgent-warn">
        <span aria-hidden="true">⏸ </span>This code runs in your kernel once you
        approve it.
      </p>
      {props.heading && (
        <p className="jp-GeoAgent-muted" data-testid="geoagent-approval-cells">
          Approving adds two cells to the notebook: the heading{' '}
          <q>{props.heading.replace(/^#+ /, '')}</q> and this code with its
          outputs. You can still reject them under{' '}
          <em>Changes in the notebook</em>.
        </p>
      )}
      <CodeView
        value={props.code}
        ariaLabel="Code waiting for approval"
        testid="geoagent-approval-code"
      />
      <input
        className="jp-mod-styled"
        data-testid="geoagent-approval-feedback"
        aria-label="Why reject (optional)"
        placeholder="Why reject? (optional, the agent reads it)"
        value={feedback}
        onChange={e => setFeedback(e.target.value)}
      />
      <div className="jp-GeoAgent-actions">
        <ActionButton
          action="approve"
          busy={busy}
          label="Approve and run"
          tone="accept"
          testid="geoagent-approve"
          onClick={() => send('approve')}
        />
        <ActionButton
          action="reject"
          busy={busy}
          label="Reject"
          tone="reject"
          testid="geoagent-reject"
          onClick={() => send('reject')}
        />
      </div>
      <ActionFailure failure={failure} />
    </div>
  );
}
