/**
 * Approval mode, before planning: the user reviews the deliverable contract.
 * Every requirement is a text field (reword it), has a delete button, and a
 * new one can be added for any output. "Use these requirements" sends the
 * list as the user left it (unchanged ones keep their id and text, deleted
 * ones are left out, new ones have no id); "Accept as proposed" approves the
 * contract as the request stated it. Nothing typed is lost when the server
 * refuses: the rows stay as they were and its message shows below.
 */
import { addIcon, deleteIcon } from '@jupyterlab/ui-components';
import * as React from 'react';

import {
  CONTRACT_SUBTASK,
  IAction,
  IContract,
  IRequirementEdit,
  RequirementKind
} from '../runs/types';
import { ActionButton, ActionFailure, useAction } from './ActionButton';

export interface IContractEditorProps {
  contract: IContract;
  /** Sends the action; rejects with a message to show. */
  onAction: (action: IAction) => Promise<void>;
}

/** One requirement being edited; `id` '' = added here. */
interface IRow {
  key: string;
  id: string;
  output: string;
  text: string;
  /** The text as stated (empty for new rows): unchanged rows are sent as they came. */
  original: string;
  kind: RequirementKind | null;
  origin: IContract['requirements'][number]['origin'];
}

/** The outputs in the contract's order, then any file only a requirement names. */
export function groupByOutput<T extends { output: string }>(
  outputs: IContract['outputs'],
  items: T[]
): Array<{ path: string; format: string; items: T[] }> {
  const groups = outputs.map(o => ({
    path: o.path,
    format: o.format,
    items: [] as T[]
  }));
  for (const item of items) {
    let group = groups.find(g => g.path === item.output);
    if (!group) {
      group = { path: item.output, format: '', items: [] };
      groups.push(group);
    }
    group.items.push(item);
  }
  return groups;
}

/** One output file of the contract: its path and format, then its requirements (`children`: an `li` each). */
export function ContractOutputGroup(props: {
  group: { path: string; format: string; items: unknown[] };
  children: React.ReactNode;
}): JSX.Element {
  const { group } = props;
  return (
    <div
      className="jp-GeoAgent-contract-output"
      data-testid="geoagent-contract-output"
      data-output={group.path}
    >
      <div className="jp-GeoAgent-contract-file">
        <code>{group.path}</code>
        {group.format && (
          <span className="jp-GeoAgent-contract-format">{group.format}</span>
        )}
      </div>
      {group.items.length === 0 ? (
        <p className="jp-GeoAgent-hint">No requirements.</p>
      ) : (
        <ul className="jp-GeoAgent-requirements">{props.children}</ul>
      )}
    </div>
  );
}

const ORIGIN_TAGS = {
  user: {
    label: 'you',
    title: 'You added or reworded this requirement',
    testid: 'geoagent-requirement-you'
  },
  model: {
    label: 'proposed',
    title:
      'Proposed by the model from your request; kept because it names only what the request says and can be checked',
    testid: 'geoagent-requirement-model'
  }
};

/** Marks a requirement the user added or reworded ('user') or the model read in the request ('model'). */
export function OriginTag(props: {
  origin: keyof typeof ORIGIN_TAGS;
}): JSX.Element {
  const tag = ORIGIN_TAGS[props.origin];
  return (
    <span
      className="jp-GeoAgent-tag"
      data-testid={tag.testid}
      title={tag.title}
    >
      {tag.label}
    </span>
  );
}

/**
 * The action body for the rows as the user left them: unchanged ones keep id
 * and text exactly, reworded ones keep their id with the new text, new ones
 * have id ''. Order: the contract's, then the added ones.
 */
export function contractEdits(
  rows: Array<Pick<IRow, 'id' | 'output' | 'text' | 'original'>>
): IRequirementEdit[] {
  return rows.map(row => {
    const text = row.text.trim();
    if (row.id && text === row.original.trim()) {
      return { id: row.id, output: row.output, text: row.original };
    }
    return { id: row.id, output: row.output, text };
  });
}

export function ContractEditor(props: IContractEditorProps): JSX.Element {
  const { contract } = props;
  const [rows, setRows] = React.useState<IRow[]>(() =>
    contract.requirements.map(r => ({
      key: `r:${r.id}`,
      id: r.id,
      output: r.output,
      text: r.text,
      original: r.text,
      kind: r.kind,
      origin: r.origin
    }))
  );
  // New requirements only for the run's outputs (the server refuses any other file).
  const outputs = contract.outputs.map(o => o.path);
  const [newOutput, setNewOutput] = React.useState(outputs[0] ?? '');
  const [newText, setNewText] = React.useState('');
  const { busy, failure, act } = useAction(props.onAction);
  const added = React.useRef(0);
  // Keyboard users keep their place: after a delete, focus moves to the next field.
  const inputs = React.useRef(new Map<string, HTMLInputElement>());
  const newInput = React.useRef<HTMLInputElement>(null);
  const [focusAfterDelete, setFocusAfterDelete] = React.useState<string | null>(
    null
  );
  React.useEffect(() => {
    if (focusAfterDelete !== null) {
      (inputs.current.get(focusAfterDelete) ?? newInput.current)?.focus();
      setFocusAfterDelete(null);
    }
  }, [focusAfterDelete]);

  const edit = (key: string, text: string) =>
    setRows(current => current.map(r => (r.key === key ? { ...r, text } : r)));
  const remove = (key: string) => {
    const shown = ([] as IRow[]).concat(
      ...groupByOutput(contract.outputs, rows).map(g => g.items)
    );
    const at = shown.findIndex(r => r.key === key);
    setFocusAfterDelete((shown[at + 1] ?? shown[at - 1])?.key ?? '');
    setRows(current => current.filter(r => r.key !== key));
  };
  const add = () => {
    const text = newText.trim();
    if (!text || !newOutput) {
      return;
    }
    added.current += 1;
    setRows(current => [
      ...current,
      {
        key: `new:${added.current}`,
        id: '',
        output: newOutput,
        text,
        original: '',
        kind: null,
        origin: 'user'
      }
    ]);
    setNewText('');
  };

  // A new requirement typed but not added yet is part of what the user means.
  const pending =
    newText.trim() && newOutput
      ? [{ id: '', output: newOutput, text: newText, original: '' }]
      : [];
  const empty = rows.filter(r => !r.text.trim()).length;
  const send = () =>
    void act({
      kind: 'contract',
      subtask_id: CONTRACT_SUBTASK,
      requirements: contractEdits([...rows, ...pending])
    });

  return (
    <div
      className="jp-GeoAgent-contract-editor"
      data-testid="geoagent-contract-editor"
    >
      <p className="jp-GeoAgent-warn">
        <span aria-hidden="true">⏸ </span>Check what the output must satisfy
        before the agent plans: reword, delete or add requirements.
      </p>
      <fieldset className="jp-GeoAgent-fieldset" disabled={busy !== null}>
        {groupByOutput(contract.outputs, rows).map(group => (
          <ContractOutputGroup key={group.path} group={group}>
            {group.items.map(row => {
              const changed =
                !row.id || row.text.trim() !== row.original.trim();
              return (
                <li
                  key={row.key}
                  className="jp-GeoAgent-requirement jp-GeoAgent-requirement-editing"
                  data-testid="geoagent-requirement-edit-row"
                  data-requirement={row.id}
                >
                  <input
                    className="jp-mod-styled"
                    data-testid="geoagent-requirement-input"
                    aria-label={`Requirement for ${row.output}`}
                    aria-invalid={!row.text.trim()}
                    value={row.text}
                    ref={el => {
                      if (el) {
                        inputs.current.set(row.key, el);
                      } else {
                        inputs.current.delete(row.key);
                      }
                    }}
                    onChange={e => edit(row.key, e.target.value)}
                  />
                  {row.kind === 'note' && !changed && (
                    <span
                      className="jp-GeoAgent-requirement-meta"
                      title="No code can check this"
                    >
                      not verifiable
                    </span>
                  )}
                  {(row.origin === 'user' || changed) && (
                    <OriginTag origin="user" />
                  )}
                  {row.origin === 'model' && !changed && (
                    <OriginTag origin="model" />
                  )}
                  <button
                    type="button"
                    className="jp-Button jp-mod-minimal jp-GeoAgent-icon-button"
                    data-testid="geoagent-requirement-delete"
                    aria-label={`Delete requirement: ${row.text.trim() || row.original || 'empty'}`}
                    title="Delete this requirement"
                    onClick={() => remove(row.key)}
                  >
                    <deleteIcon.react tag="span" />
                  </button>
                </li>
              );
            })}
          </ContractOutputGroup>
        ))}
        {outputs.length > 0 && (
          <form
            className="jp-GeoAgent-requirement-add"
            data-testid="geoagent-requirement-add-row"
            onSubmit={e => {
              e.preventDefault();
              add();
            }}
          >
            {outputs.length > 1 && (
              <select
                className="jp-mod-styled"
                data-testid="geoagent-requirement-new-output"
                aria-label="Output file of the new requirement"
                value={newOutput}
                onChange={e => setNewOutput(e.target.value)}
              >
                {outputs.map(path => (
                  <option key={path} value={path}>
                    {path}
                  </option>
                ))}
              </select>
            )}
            <input
              className="jp-mod-styled"
              data-testid="geoagent-requirement-new"
              ref={newInput}
              aria-label={
                outputs.length > 1
                  ? 'New requirement'
                  : `New requirement for ${outputs[0]}`
              }
              placeholder="e.g. column 'name' has no empty values"
              value={newText}
              onChange={e => setNewText(e.target.value)}
            />
            <button
              type="submit"
              className="jp-Button jp-mod-styled"
              data-testid="geoagent-requirement-add"
              disabled={!newText.trim()}
            >
              <addIcon.react tag="span" className="jp-GeoAgent-inline-icon" />
              Add requirement
            </button>
          </form>
        )}
      </fieldset>
      {empty > 0 && (
        <p
          className="jp-GeoAgent-action-error"
          data-testid="geoagent-contract-empty"
        >
          {empty === 1
            ? 'A requirement is empty'
            : `${empty} requirements are empty`}
          : write it or delete it.
        </p>
      )}
      <div className="jp-GeoAgent-actions">
        <ActionButton
          action="contract"
          busy={busy}
          label="Use these requirements"
          busyLabel="Sending…"
          tone="accept"
          testid="geoagent-contract-use"
          disabled={empty > 0}
          onClick={send}
        />
        <ActionButton
          action="approve"
          busy={busy}
          label="Accept as proposed"
          busyLabel="Sending…"
          testid="geoagent-contract-accept"
          title="Plan with the requirements as the request stated them (your edits are dropped)"
          onClick={() =>
            void act({ kind: 'approve', subtask_id: CONTRACT_SUBTASK })
          }
        />
      </div>
      <ActionFailure failure={failure} prefix="Not sent: " />
    </div>
  );
}
