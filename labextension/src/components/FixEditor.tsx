/**
 * A subtask the agent could not solve: its last code in an editor with the
 * shortened error above it. The user runs their fix (executed in the kernel,
 * then kept as context for every later subtask), retries with a hint, or skips.
 */
import * as React from 'react';

import { IAction } from '../runs/types';
import { ActionButton, ActionFailure, useAction } from './ActionButton';
import { CodeView } from './CodeView';

export interface IFixEditorProps {
  subtaskId: string;
  description: string;
  code: string;
  error: string;
  attempts: number;
  /** Sends the action; rejects with a message to show. */
  onAction: (action: IAction) => Promise<void>;
}

export function FixEditor(props: IFixEditorProps): JSX.Element {
  const code = React.useRef(props.code);
  const [hint, setHint] = React.useState('');
  const { busy, failure, act } = useAction(props.onAction);

  // A new failed attempt (e.g. the user's fix failed too) restarts the editor from it.
  React.useEffect(() => {
    code.current = props.code;
  }, [props.code]);

  const runFix = () =>
    void act({ kind: 'edit', subtask_id: props.subtaskId, code: code.current });
  const skip = () => void act({ kind: 'skip', subtask_id: props.subtaskId });

  return (
    <div className="jp-GeoAgent-fix" data-testid="geoagent-fix">
      <div
        className="jp-GeoAgent-error"
        role="alert"
        data-testid="geoagent-fix-error"
      >
        <strong>
          ✗ Stuck after{' '}
          {props.attempts === 1 ? '1 attempt' : `${props.attempts} attempts`}
        </strong>
        <p>{props.error || 'the code did not run'}</p>
      </div>
      <p className="jp-GeoAgent-hint">
        Fix the code and run it: it runs in your kernel, and later steps build
        on it.
      </p>
      <CodeView
        key={props.code}
        value={props.code}
        editable
        onChange={value => (code.current = value)}
        onSubmit={runFix}
        ariaLabel={`Code for step: ${props.description}`}
        testid="geoagent-fix-code"
        className="jp-GeoAgent-fix-code"
      />
      <div className="jp-GeoAgent-actions">
        <ActionButton
          action="edit"
          busy={busy}
          label="Run fix"
          busyLabel="Running…"
          tone="accept"
          testid="geoagent-fix-run"
          title="Run fix (Ctrl+Enter in the editor)"
          onClick={runFix}
        />
        <ActionButton
          action="skip"
          busy={busy}
          label="Skip step"
          tone="reject"
          testid="geoagent-fix-skip"
          onClick={skip}
        />
      </div>
      <form
        className="jp-GeoAgent-hint-form"
        onSubmit={e => {
          e.preventDefault();
          if (hint.trim()) {
            void act({
              kind: 'hint',
              subtask_id: props.subtaskId,
              text: hint.trim()
            });
          }
        }}
      >
        <label
          className="jp-GeoAgent-visuallyHidden"
          htmlFor={`geoagent-hint-${props.subtaskId}`}
        >
          Hint for the agent
        </label>
        <input
          id={`geoagent-hint-${props.subtaskId}`}
          className="jp-mod-styled"
          data-testid="geoagent-fix-hint"
          placeholder="Hint, e.g. the column is called 'district_name'"
          value={hint}
          onChange={e => setHint(e.target.value)}
        />
        <ActionButton
          action="hint"
          busy={busy}
          label="Retry with hint"
          busyLabel="Sending…"
          submit
          testid="geoagent-fix-retry"
          disabled={!hint.trim()}
        />
      </form>
      <ActionFailure failure={failure} />
    </div>
  );
}
