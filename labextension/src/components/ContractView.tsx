/**
 * The deliverable contract: what each output file must satisfy, one row per
 * requirement grouped by file, with its latest check (holds, fails with what
 * was seen, not checked yet, or not verifiable for notes no code can check).
 * While the run waits for the user to review it, the rows are an editor.
 * After the run: the unmet and not-verified requirements as `finished` says.
 */
import * as React from 'react';

import { IRequirementCheck, ISubtaskView } from '../runs/model';
import { IAction, IContract, IRequirement } from '../runs/types';
import {
  ContractEditor,
  ContractOutputGroup,
  groupByOutput,
  OriginTag
} from './ContractEditor';
import { StatusBadge, statusLook } from './StatusBadge';

export type RequirementStatus =
  'held' | 'unmet' | 'unchecked' | 'not_verifiable';

export interface IContractViewProps {
  contract: IContract;
  checks: Record<string, IRequirementCheck>;
  /** 'user': the contract as the user left it after review. */
  by: 'request' | 'user';
  /** The plan, to say after which subtask a requirement was checked. */
  subtasks: Array<Pick<ISubtaskView, 'id'>>;
  finished: boolean;
  unmet: string[];
  notVerified: string[];
  /** The run waits for the user to confirm or edit the contract. */
  reviewing: boolean;
  onAction: (action: IAction) => Promise<void>;
}

/** Whether a run's `succeeded` waits on it (`Requirement.checkable` in Python): a kind code checks,
 * read from the request with certainty. An unsure reading is shown like a note. */
export function gates(requirement: IRequirement): boolean {
  return requirement.kind !== 'note' && requirement.sure !== false;
}

export function requirementStatus(
  requirement: IRequirement,
  checks: Record<string, IRequirementCheck>
): RequirementStatus {
  if (!gates(requirement)) {
    return 'not_verifiable';
  }
  const check = checks[requirement.id];
  if (!check) {
    return 'unchecked';
  }
  return check.passed ? 'held' : 'unmet';
}

export function ContractView(props: IContractViewProps): JSX.Element {
  const { contract, checks } = props;
  if (props.reviewing && !props.finished) {
    return (
      <section
        className="jp-GeoAgent-contract"
        data-testid="geoagent-contract"
        aria-label="Requirements of the output, to review"
      >
        <h4 className="jp-GeoAgent-contract-title">
          What the output must satisfy
        </h4>
        <ContractEditor
          key={contract.requirements
            .map(r => `${r.id}\u0000${r.text}`)
            .join('\u0001')}
          contract={contract}
          onAction={props.onAction}
        />
      </section>
    );
  }
  const checkable = contract.requirements.filter(gates);
  const held = checkable.filter(
    r => requirementStatus(r, checks) === 'held'
  ).length;
  const checkedWhen = (check: IRequirementCheck | undefined): string => {
    if (!check) {
      return '';
    }
    if (check.subtaskId === null) {
      return 'final check';
    }
    const index = props.subtasks.findIndex(s => s.id === check.subtaskId);
    return index >= 0 ? `after step ${index + 1}` : '';
  };

  return (
    <section
      className="jp-GeoAgent-contract"
      data-testid="geoagent-contract"
      aria-label="Requirements of the output"
    >
      <h4 className="jp-GeoAgent-contract-title">
        What the output must satisfy
        <span
          className="jp-GeoAgent-contract-meta"
          data-testid="geoagent-contract-summary"
        >
          {checkable.length > 0 && `${held}/${checkable.length} hold`}
          {props.by === 'user' && ' · as you reviewed it'}
        </span>
      </h4>
      {groupByOutput(contract.outputs, contract.requirements).map(group => (
        <ContractOutputGroup key={group.path} group={group}>
          {group.items.map(requirement => {
            const status = requirementStatus(requirement, checks);
            const check = checks[requirement.id];
            const when = checkedWhen(check);
            const label =
              status === 'unchecked' && props.finished
                ? 'not checked'
                : statusLook(status).label;
            return (
              <li
                key={requirement.id}
                className="jp-GeoAgent-requirement"
                data-testid="geoagent-requirement"
                data-requirement={requirement.id}
                data-status={status}
              >
                <StatusBadge
                  status={status}
                  compact
                  testid="geoagent-requirement-status"
                />
                <span className="jp-GeoAgent-requirement-body">
                  <span
                    data-testid="geoagent-requirement-text"
                    title={
                      requirement.said
                        ? `From the request: “${requirement.said}”`
                        : undefined
                    }
                  >
                    {requirement.text}
                  </span>
                  <span className="jp-GeoAgent-requirement-meta">
                    <span data-testid="geoagent-requirement-label">
                      {label}
                    </span>
                    {when && (
                      <span data-testid="geoagent-requirement-when">
                        {when}
                      </span>
                    )}
                    {requirement.origin !== 'request' && (
                      <OriginTag origin={requirement.origin} />
                    )}
                    {requirement.kind !== 'note' &&
                      requirement.sure === false && (
                        <span data-testid="geoagent-requirement-unsure">
                          unsure reading: shown, not gating
                        </span>
                      )}
                  </span>
                  {status === 'unmet' && check?.observed && (
                    <span
                      className="jp-GeoAgent-requirement-observed"
                      data-testid="geoagent-requirement-observed"
                    >
                      seen: {check.observed}
                    </span>
                  )}
                </span>
              </li>
            );
          })}
        </ContractOutputGroup>
      ))}
      {props.finished && props.unmet.length > 0 && (
        <div
          className="jp-GeoAgent-contract-end jp-GeoAgent-tone-bad"
          data-testid="geoagent-contract-unmet"
        >
          <strong>Not met</strong>
          <ul>
            {props.unmet.map((line, i) => (
              <li key={i}>{line}</li>
            ))}
          </ul>
        </div>
      )}
      {props.finished && props.notVerified.length > 0 && (
        <div
          className="jp-GeoAgent-contract-end"
          data-testid="geoagent-contract-not-verified"
        >
          <strong>Not verified</strong> (no code can check these; look at the
          file yourself)
          <ul>
            {props.notVerified.map((line, i) => (
              <li key={i}>{line}</li>
            ))}
          </ul>
        </div>
      )}
    </section>
  );
}
