/**
 * Approval mode: a step's code waits here before it touches the live kernel.
 * Reject can say why; the agent reads that when it tries again.
 */
import * as React from 'react';

import { IAction } from '../runs/types';
import { CodeView } from './CodeView';

export interface IApprovalBarProps {
  subtaskId: string;
  code: string;
  onAction: (action: IAction) => Promise<void>;
}

export function ApprovalBar(props: IApprovalBarProps): JSX.Element {
  const [feedback, setFeedback] = React.useState('');
  const [busy, setBusy] = React.useState(false);
  const [failure, setFailure] = React.useState<string | null>(null);

  const act = async (kind: 'approve' | 'reject') => {
    setBusy(true);
    setFailure(null);
    try {
      await props.onAction({ kind, subtask_id: props.subtaskId, text: feedback.trim() });
    } catch (error) {
      setFailure((error as Error).message || String(error));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="jp-GeoAgent-approval" data-testid="geoagent-approval-bar">
      <p className="jp-GeoAgent-warn">
        <span aria-hidden="true">⏸ </span>This code runs in your kernel once you approve it.
      </p>
      <CodeView value={props.code} ariaLabel="Code waiting for approval" testid="geoagent-approval-code" />
      <input
        className="jp-mod-styled"
        data-testid="geoagent-approval-feedback"
        aria-label="Why reject (optional)"
        placeholder="Why reject? (optional, the agent reads it)"
        value={feedback}
        onChange={e => setFeedback(e.target.value)}
      />
      <div className="jp-GeoAgent-actions">
        <button
          type="button"
          className="jp-Button jp-mod-styled jp-mod-accept"
          data-testid="geoagent-approve"
          disabled={busy}
          onClick={() => void act('approve')}
        >
          Approve and run
        </button>
        <button
          type="button"
          className="jp-Button jp-mod-styled jp-mod-reject"
          data-testid="geoagent-reject"
          disabled={busy}
          onClick={() => void act('reject')}
        >
          Reject
        </button>
      </div>
      {failure && (
        <p className="jp-GeoAgent-action-error" role="alert" data-testid="geoagent-action-error">
          {failure}
        </p>
      )}
    </div>
  );
}
