/**
 * Where a run starts: the request in plain words, the model, the strategy
 * and approval mode. Ctrl/Cmd+Enter runs. Says why it cannot run (no open
 * notebook) instead of greying out silently.
 */
import * as React from 'react';

import { IModelChoice } from '../runs/types';

export interface IRequestOptions {
  model: string;
  strategy: 'loop' | 'mcts' | 'auto';
  approval: boolean;
}

export interface IRequestBoxProps {
  models: IModelChoice[];
  /** Error text when the models could not be listed. */
  modelsError?: string;
  options: IRequestOptions;
  onOptions: (options: IRequestOptions) => void;
  /** The notebook the run will work in, or null when none is open. */
  notebookPath: string | null;
  /** A run is starting or working on this notebook. */
  busy: boolean;
  onSubmit: (request: string) => void;
}

export function RequestBox(props: IRequestBoxProps): JSX.Element {
  const [text, setText] = React.useState('');
  const { options, onOptions } = props;
  const canRun = !!text.trim() && !!props.notebookPath && !props.busy;

  const submit = () => {
    if (canRun) {
      props.onSubmit(text.trim());
    }
  };

  return (
    <form
      className="jp-GeoAgent-request"
      data-testid="geoagent-request"
      onSubmit={e => {
        e.preventDefault();
        submit();
      }}
    >
      <label
        className="jp-GeoAgent-visuallyHidden"
        htmlFor="geoagent-request-text"
      >
        What should GeoAgent do?
      </label>
      <textarea
        id="geoagent-request-text"
        className="jp-GeoAgent-request-text"
        data-testid="geoagent-request-text"
        rows={3}
        placeholder="e.g. count clinics per district from clinics.geojson and districts.gpkg and map it"
        value={text}
        onChange={e => setText(e.target.value)}
        onKeyDown={e => {
          if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
            e.preventDefault();
            submit();
          }
        }}
      />
      <div className="jp-GeoAgent-request-options">
        <label className="jp-GeoAgent-field">
          <span>Model</span>
          <select
            className="jp-mod-styled"
            data-testid="geoagent-model"
            value={options.model}
            onChange={e => onOptions({ ...options, model: e.target.value })}
          >
            {props.models.length === 0 && (
              <option value="">server default</option>
            )}
            {props.models.map(m => (
              <option
                key={m.id}
                value={m.id}
                disabled={!m.available}
                title={m.detail || undefined}
              >
                {m.default ? `${m.label} · default` : m.label}
                {m.available ? '' : ' (unavailable)'}
              </option>
            ))}
          </select>
        </label>
        <label className="jp-GeoAgent-field">
          <span>Strategy</span>
          <select
            className="jp-mod-styled"
            data-testid="geoagent-strategy"
            value={options.strategy}
            onChange={e =>
              onOptions({
                ...options,
                strategy: e.target.value as 'loop' | 'mcts' | 'auto'
              })
            }
          >
            <option value="loop">step by step</option>
            <option value="mcts">tree search (MCTS)</option>
            <option value="auto">
              step by step, searching where it stalls
            </option>
          </select>
        </label>
        <label className="jp-GeoAgent-check">
          <input
            type="checkbox"
            data-testid="geoagent-approval"
            checked={options.approval}
            onChange={e =>
              onOptions({ ...options, approval: e.target.checked })
            }
          />
          <span>Ask me before each step runs</span>
        </label>
      </div>
      {props.modelsError && (
        <p className="jp-GeoAgent-hint" data-testid="geoagent-models-error">
          Models: {props.modelsError}
        </p>
      )}
      <div className="jp-GeoAgent-request-actions">
        <span
          className="jp-GeoAgent-hint"
          data-testid="geoagent-request-target"
        >
          {props.notebookPath
            ? `Runs in ${props.notebookPath}`
            : 'Open a notebook: GeoAgent runs code in its kernel.'}
        </span>
        <button
          type="submit"
          className="jp-Button jp-mod-styled jp-mod-accept"
          data-testid="geoagent-run"
          disabled={!canRun}
          title="Run (Ctrl+Enter)"
        >
          Run
        </button>
      </div>
    </form>
  );
}
