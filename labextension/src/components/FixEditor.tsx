/**
 * A step the agent could not solve: its last code in an editor with the
 * shortened error above it. The user runs their fix (executed in the kernel,
 * then kept as context for every later step), retries with a hint, or skips.
 */
import * as React from 'react';

import { IAction } from '../runs/types';
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
  const [busy, setBusy] = React.useState<string | null>(null);
  const [failure, setFailure] = React.useState<string | null>(null);

  // A new failed attempt (e.g. the user's fix failed too) restarts the editor from it.
  React.useEffect(() => {
    code.current = props.code;
  }, [props.code]);

  const act = async (action: IAction) => {
    setBusy(action.kind);
    setFailure(null);
    try {
      await props.onAction(action);
    } catch (error) {
      setFailure((error as Error).message || String(error));
    } finally {
      setBusy(null);
    }
  };
  const runFix = () =>
    void act({ kind: 'edit', subtask_id: props.subtaskId, code: code.current });

  return (
    <div className="jp-GeoAgent-fix" data-testid="geoagent-fix">
      <div className="jp-GeoAgent-error" role="alert" data-testid="geoagent-fix-error">
        <strong>
          ✗ Stuck after {props.attempts === 1 ? '1 attempt' : `${props.attempts} attempts`}
        </strong>
        <p>{props.error || 'the code did not run'}</p>
      </div>
      <p className="jp-GeoAgent-hint">
        Fix the code and run it: it runs in your kernel, and later steps build on it.
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
        <button
          type="button"
          className="jp-Button jp-mod-styled jp-mod-accept"
          data-testid="geoagent-fix-run"
          disabled={busy !== null}
          title="Run fix (Ctrl+Enter in the editor)"
          onClick={runFix}
        >
          {busy === 'edit' ? 'Running…' : 'Run fix'}
        </button>
        <button
          type="button"
          className="jp-Button jp-mod-styled jp-mod-reject"
          data-testid="geoagent-fix-skip"
          disabled={busy !== null}
          onClick={() => void act({ kind: 'skip', subtask_id: props.subtaskId })}
        >
          Skip step
        </button>
      </div>
      <form
        className="jp-GeoAgent-hint-form"
        onSubmit={e => {
          e.preventDefault();
          if (hint.trim()) {
            void act({ kind: 'hint', subtask_id: props.subtaskId, text: hint.trim() });
          }
        }}
      >
        <label className="jp-GeoAgent-visuallyHidden" htmlFor={`geoagent-hint-${props.subtaskId}`}>
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
        <button
          type="submit"
          className="jp-Button jp-mod-styled"
          data-testid="geoagent-fix-retry"
          disabled={busy !== null || !hint.trim()}
        >
          {busy === 'hint' ? 'Sending…' : 'Retry with hint'}
        </button>
      </form>
      {failure && (
        <p className="jp-GeoAgent-action-error" role="alert" data-testid="geoagent-action-error">
          {failure}
        </p>
      )}
    </div>
  );
}
