/**
 * Pure view of the server status: no fetching here, so tests and later
 * panel sections can render any state directly.
 */
import * as React from 'react';

import { IIndexState, IStatus } from '../api';

/** What the panel knows about `/geoagent/status` right now. */
export type StatusState =
  | { kind: 'loading' }
  | { kind: 'ready'; status: IStatus }
  | { kind: 'error'; message: string };

export interface IStatusViewProps {
  state: StatusState;
}

function records(index: IIndexState): string {
  return `${(index.records ?? 0).toLocaleString('en-US')} records`;
}

/** One line of text for the index state, e.g. "ready, 1,204 records". */
export function describeIndex(index: IIndexState): string {
  const server = index.location ?? 'chroma server';
  switch (index.state) {
    case 'ready':
      return `ready, ${records(index)}`;
    case 'remote':
      return `remote (${server}), ${records(index)}`;
    case 'empty':
      return `empty (${server}): no index built there`;
    case 'unreachable':
      return `unreachable (${server})`;
    default:
      return index.state;
  }
}

/**
 * Server hints quote commands in backticks (`jupyter geoagent index build`); show
 * those parts as code. The text content stays the hint minus the backticks.
 */
export function InlineCode({ text }: { text: string }): JSX.Element {
  const parts = text.split('`');
  return (
    <>
      {parts.map((part, i) =>
        i % 2 === 1 ? <code key={i}>{part}</code> : part
      )}
    </>
  );
}

function Row(props: {
  label: string;
  testid: string;
  children: React.ReactNode;
}): JSX.Element {
  return (
    <div className="jp-GeoAgent-statusRow">
      <dt>{props.label}</dt>
      <dd data-testid={props.testid}>{props.children}</dd>
    </div>
  );
}

export function StatusView({ state }: IStatusViewProps): JSX.Element {
  if (state.kind === 'loading') {
    return (
      <div
        className="jp-GeoAgent-status"
        data-testid="geoagent-status"
        data-state="loading"
      >
        <p data-testid="geoagent-status-loading">
          Checking the GeoAgent server…
        </p>
      </div>
    );
  }
  if (state.kind === 'error') {
    return (
      <div
        className="jp-GeoAgent-status"
        data-testid="geoagent-status"
        data-state="error"
      >
        <div
          className="jp-GeoAgent-error"
          role="alert"
          data-testid="geoagent-status-error"
        >
          <strong>GeoAgent server is not answering</strong>
          <p data-testid="geoagent-status-error-message">{state.message}</p>
          <p className="jp-GeoAgent-hint">
            Check that <code>jupyter server extension list</code> shows{' '}
            <code>geoagent_ext</code> enabled, then refresh.
          </p>
        </div>
      </div>
    );
  }
  const { status } = state;
  const index = status.index;
  const libraries = Object.entries(index.libraries ?? {})
    .map(([name, version]) => `${name} ${version}`)
    .join(', ');
  return (
    <div
      className="jp-GeoAgent-status"
      data-testid="geoagent-status"
      data-state="ready"
    >
      <dl className="jp-GeoAgent-statusList">
        <Row label="Version" testid="geoagent-status-version">
          {status.version}
        </Row>
        <Row label="Model" testid="geoagent-status-model">
          {status.model}
        </Row>
        <Row label="Provider" testid="geoagent-status-provider">
          {status.provider}
        </Row>
        <Row label="Index" testid="geoagent-status-index">
          <span
            className={`jp-GeoAgent-badge jp-GeoAgent-badge-${index.state}`}
            data-testid="geoagent-status-index-state"
          >
            {describeIndex(index)}
          </span>
          {libraries && <div className="jp-GeoAgent-detail">{libraries}</div>}
          {index.hint && (
            <div
              className="jp-GeoAgent-detail"
              data-testid="geoagent-status-index-hint"
            >
              <InlineCode text={index.hint} />
            </div>
          )}
          {index.error && (
            <div className="jp-GeoAgent-detail">{index.error}</div>
          )}
        </Row>
        <Row label="Approval" testid="geoagent-status-approval">
          {status.approval_mode ? 'each step waits for you' : 'off'}
        </Row>
      </dl>
    </div>
  );
}
