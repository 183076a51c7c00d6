/**
 * What the waiting views (approval, fix, contract review) share for sending
 * an action: one at a time, the kind on its way, the server's refusal shown
 * below, and buttons that say what they are doing and wait while one is sent.
 */
import * as React from 'react';

import { ActionKind, IAction } from '../runs/types';

export interface IActionState {
  /** The kind of the action on its way, null when none is. */
  busy: ActionKind | null;
  /** Why the last action was refused, null when it was not (or a new one is on its way). */
  failure: string | null;
  /** Sends the action; never rejects (a refusal lands in `failure`). */
  act: (action: IAction) => Promise<void>;
}

export function useAction(
  onAction: (action: IAction) => Promise<void>
): IActionState {
  const [busy, setBusy] = React.useState<ActionKind | null>(null);
  const [failure, setFailure] = React.useState<string | null>(null);
  const act = async (action: IAction) => {
    setBusy(action.kind);
    setFailure(null);
    try {
      await onAction(action);
    } catch (error) {
      setFailure((error as Error).message || String(error));
    } finally {
      setBusy(null);
    }
  };
  return { busy, failure, act };
}

export interface IActionButtonProps {
  /** The kind this button sends: while it is on its way the button shows `busyLabel`. */
  action: ActionKind;
  /** `useAction`'s busy: the button is disabled while any action is on its way. */
  busy: ActionKind | null;
  label: string;
  busyLabel?: string;
  testid: string;
  tone?: 'accept' | 'reject';
  title?: string;
  /** Disabled for another reason too (e.g. nothing to send yet). */
  disabled?: boolean;
  /** A submit button of its form (which sends the action) instead of `onClick`. */
  submit?: boolean;
  onClick?: () => void;
}

export function ActionButton(props: IActionButtonProps): JSX.Element {
  return (
    <button
      type={props.submit ? 'submit' : 'button'}
      className={`jp-Button jp-mod-styled${props.tone ? ` jp-mod-${props.tone}` : ''}`}
      data-testid={props.testid}
      disabled={props.busy !== null || !!props.disabled}
      title={props.title}
      onClick={props.onClick}
    >
      {props.busy === props.action && props.busyLabel
        ? props.busyLabel
        : props.label}
    </button>
  );
}

/** The server's refusal of the last action, if any, after `prefix`. */
export function ActionFailure(props: {
  failure: string | null;
  prefix?: string;
}): JSX.Element | null {
  if (!props.failure) {
    return null;
  }
  return (
    <p
      className="jp-GeoAgent-action-error"
      role="alert"
      data-testid="geoagent-action-error"
    >
      {props.prefix}
      {props.failure}
    </p>
  );
}
