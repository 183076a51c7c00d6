/**
 * The run's effect on the kernel's variables, as `agent/state.py`'s
 * `add_namespace_change` folds it: what undoing the run can delete (what it
 * created) and what it can only name (what it changed or deleted).
 */
import { IRunVariables, RunEvent } from './types';

type NamespaceChanged = Extract<RunEvent, { type: 'namespace_changed' }>;

export function emptyVariables(): IRunVariables {
  return { created: {}, changed: [], deleted: [] };
}

/** A new record with one commit's changes folded in. */
export function addNamespaceChange(
  variables: IRunVariables,
  event: NamespaceChanged
): IRunVariables {
  const created = { ...variables.created };
  const changed = [...variables.changed];
  const deleted = [...variables.deleted];
  const fingerprint = (name: string) => event.fingerprints[name] ?? '';
  for (const name of event.created) {
    if (deleted.includes(name)) {
      // The user's variable, deleted and set again: its old value is gone.
      deleted.splice(deleted.indexOf(name), 1);
      changed.push(name);
    } else if (!changed.includes(name)) {
      created[name] = fingerprint(name);
    }
  }
  for (const name of event.changed) {
    if (name in created) {
      created[name] = fingerprint(name);
    } else if (!changed.includes(name)) {
      changed.push(name);
    }
  }
  for (const name of event.deleted) {
    if (name in created) {
      delete created[name];
      continue;
    }
    if (changed.includes(name)) {
      changed.splice(changed.indexOf(name), 1);
    }
    if (!deleted.includes(name)) {
      deleted.push(name);
    }
  }
  return { created, changed, deleted };
}
