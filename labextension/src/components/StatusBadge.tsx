/**
 * Status shown as icon + word + colour, never colour alone (readable for
 * colour-blind users and in high-contrast themes). One table for subtasks,
 * runs, search nodes and requirements, so the same state always looks the same.
 */
import * as React from 'react';

export interface IStatusLook {
  icon: string;
  label: string;
  /** CSS modifier: ok | bad | warn | busy | idle */
  tone: 'ok' | 'bad' | 'warn' | 'busy' | 'idle';
}

const LOOKS: Record<string, IStatusLook> = {
  // subtasks
  pending: { icon: '○', label: 'waiting', tone: 'idle' },
  running: { icon: '◔', label: 'working', tone: 'busy' },
  awaiting_approval: { icon: '⏸', label: 'needs approval', tone: 'warn' },
  solved: { icon: '✓', label: 'done', tone: 'ok' },
  needs_human: { icon: '✗', label: 'needs you', tone: 'bad' },
  skipped: { icon: '↷', label: 'skipped', tone: 'idle' },
  // runs
  starting: { icon: '◔', label: 'starting', tone: 'busy' },
  succeeded: { icon: '✓', label: 'succeeded', tone: 'ok' },
  partial: { icon: '◐', label: 'partly done', tone: 'warn' },
  failed: { icon: '✗', label: 'failed', tone: 'bad' },
  cancelled: { icon: '■', label: 'cancelled', tone: 'idle' },
  declined: { icon: '⊘', label: 'declined', tone: 'warn' },
  interrupted: { icon: '■', label: 'interrupted', tone: 'warn' },
  // search nodes
  new: { icon: '○', label: 'not tried', tone: 'idle' },
  ok: { icon: '✓', label: 'runs', tone: 'ok' },
  chosen: { icon: '★', label: 'chosen', tone: 'ok' },
  pruned: { icon: '–', label: 'pruned', tone: 'idle' },
  // runs waiting for the contract's review
  awaiting_contract: { icon: '⏸', label: 'needs review', tone: 'warn' },
  // deliverable requirements
  held: { icon: '✓', label: 'holds', tone: 'ok' },
  unmet: { icon: '✗', label: 'fails', tone: 'bad' },
  unchecked: { icon: '○', label: 'not checked yet', tone: 'idle' },
  not_verifiable: { icon: '–', label: 'not verifiable', tone: 'idle' }
};

export function statusLook(status: string): IStatusLook {
  return LOOKS[status] ?? { icon: '•', label: status, tone: 'idle' };
}

export function StatusBadge(props: {
  status: string;
  testid?: string;
  compact?: boolean;
}): JSX.Element {
  const look = statusLook(props.status);
  return (
    <span
      className={`jp-GeoAgent-status-badge jp-GeoAgent-tone-${look.tone}`}
      data-status={props.status}
      data-testid={props.testid}
      title={look.label}
    >
      <span
        className={`jp-GeoAgent-status-icon${
          look.tone === 'busy' ? ' jp-GeoAgent-spin' : ''
        }`}
        aria-hidden="true"
      >
        {look.icon}
      </span>
      {/* Compact badges sit next to visible text that says the same. */}
      {!props.compact && (
        <span className="jp-GeoAgent-status-label">{look.label}</span>
      )}
    </span>
  );
}
