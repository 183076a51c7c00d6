/**
 * The runs API's shapes, as `geoagent_ext/agent/events.py`, `agent/state.py`
 * and `runs/schemas.py` define them. Only the fields the panel reads are typed.
 */
import type * as nbformat from '@jupyterlab/nbformat';

/** `ExecutionSummary`: what running a piece of code gave. */
export interface IExecutionSummary {
  status: string;
  stdout: string;
  stderr: string;
  outputs: nbformat.IOutput[];
  /** Shortened, ANSI-free message. */
  error: string | null;
  ename: string | null;
  duration_s: number;
  warnings: string[];
}

export interface ISubtaskSpec {
  id: string;
  description: string;
  inserted_for?: string | null;
}

/** A requirement's kind (`contract/model.py`); `note` is shown but no code checks it. */
export type RequirementKind =
  | 'exists'
  | 'columns'
  | 'layers'
  | 'crs_epsg'
  | 'crs_projected_metres'
  | 'geometry_types'
  | 'lonlat'
  | 'bbox'
  | 'integer'
  | 'non_negative'
  | 'non_empty'
  | 'unique'
  | 'sorted'
  | 'rows_as_input'
  | 'values_from_input'
  | 'values_in'
  | 'note';

/** `Requirement`: one thing an output file must satisfy. */
export interface IRequirement {
  id: string;
  /** The output file, as the request names it. */
  output: string;
  /** One sentence a person reads. */
  text: string;
  kind: RequirementKind;
  params: Record<string, unknown>;
  /** 'user': added or reworded by the user when reviewing the contract. */
  origin: 'request' | 'user';
}

/** `Contract`: the run's deliverables and what each must satisfy. */
export interface IContract {
  outputs: Array<{ path: string; format: string }>;
  requirements: IRequirement[];
}

/** `RequirementEdit`: a requirement as the user left it ('' id = new). */
export interface IRequirementEdit {
  id: string;
  output: string;
  text: string;
}

interface IEventBase {
  run_id: string;
  seq: number;
  ts: string;
}

export type SearchNodeStatus =
  | 'new'
  | 'running'
  | 'ok'
  | 'failed'
  | 'chosen'
  | 'pruned';

export type FinishedStatus =
  | 'succeeded'
  | 'partial'
  | 'failed'
  | 'cancelled'
  | 'declined'
  | 'interrupted';

/** Every event type the server emits (a discriminated union on `type`). */
export type RunEvent = IEventBase &
  (
    | {
        type: 'run_started';
        request: string;
        model: string;
        notebook: string | null;
        kernel_id: string | null;
        strategy: string;
        approval_mode: boolean;
      }
    | { type: 'progress'; message: string; subtask_id: string | null }
    | {
        /** Something degraded the run without stopping it (once per source). */
        type: 'warning';
        source: string;
        message: string;
      }
    | {
        /** Place in a serial model's line: 1 = next; 0 = the wait is over. */
        type: 'model_waiting';
        place: number;
      }
    | { type: 'planned'; subtasks: ISubtaskSpec[]; libraries: string[] }
    | { type: 'replanned'; reason: string; subtasks: ISubtaskSpec[] }
    | {
        /** The CRS advisor's picks for the run's layers, one line each. */
        type: 'crs_advised';
        lines: string[];
      }
    | {
        type: 'contract_stated';
        contract: IContract;
        /** 'user': as the user left it after review. */
        by: 'request' | 'user';
        /** Approval mode: the run waits for the user to confirm or edit it. */
        awaiting_review: boolean;
      }
    | {
        type: 'requirement_checked';
        requirement_id: string;
        output: string;
        text: string;
        passed: boolean;
        observed: string;
        /** null: the final check, after the last step. */
        subtask_id: string | null;
      }
    | { type: 'declined'; reason: string }
    | {
        type: 'subtask_started';
        subtask_id: string;
        index: number;
        description: string;
      }
    | {
        type: 'code_proposed';
        subtask_id: string;
        attempt: number;
        code: string;
        node_id: string | null;
        parent_id: string | null;
      }
    | {
        type: 'executed';
        subtask_id: string;
        attempt: number;
        code: string;
        result: IExecutionSummary;
        trial: boolean;
        node_id: string | null;
      }
    | {
        type: 'repaired';
        subtask_id: string;
        attempt: number;
        strategy: string;
        diagnosis: string;
        diff: string;
      }
    | {
        type: 'subtask_inserted';
        subtask: ISubtaskSpec;
        before: string;
        reason: string;
      }
    | { type: 'approval_requested'; subtask_id: string; code: string }
    | {
        type: 'approval_given';
        subtask_id: string;
        approved: boolean;
        feedback: string;
      }
    | {
        type: 'solved';
        subtask_id: string;
        code: string;
        attempts: number;
        result: IExecutionSummary;
        by: 'agent' | 'human';
      }
    | {
        /** What one commit did to the user's variables (modules left out). */
        type: 'namespace_changed';
        subtask_id: string;
        created: string[];
        changed: string[];
        deleted: string[];
        /** Fingerprints right after the commit, of the created and changed names. */
        fingerprints: Record<string, string>;
      }
    | {
        type: 'needs_human';
        subtask_id: string;
        code: string;
        error: string;
        attempts: number;
      }
    | {
        type: 'human_edit_applied';
        subtask_id: string;
        code: string;
        result: IExecutionSummary;
        accepted: boolean;
      }
    | { type: 'hint_given'; subtask_id: string; hint: string }
    | { type: 'skipped'; subtask_id: string; reason: string }
    | {
        type: 'search_node';
        subtask_id: string;
        node_id: string;
        parent_id: string | null;
        code: string;
        visits: number;
        q: number;
        prior: number;
        reward: number | null;
        status: SearchNodeStatus;
        error: string | null;
      }
    | {
        type: 'finished';
        status: FinishedStatus;
        message: string;
        stats: IRunStats;
        /** "requirement — observed" for each that failed at the end. */
        unmet?: string[];
        /** Requirements no code can check. */
        not_verified?: string[];
      }
  );

export type RunEventType = RunEvent['type'];

export interface IRunStats {
  subtasks: number;
  solved: number;
  attempts: number;
  llm_calls: number;
  tokens_in: number;
  tokens_out: number;
  llm_seconds: number;
  seconds: number;
}

/** The server's folded state of a run (`agent/state.py`), as REST returns it. */
export interface IRunState {
  run_id: string;
  request: string;
  model: string;
  notebook: string | null;
  kernel_id: string | null;
  strategy: string;
  status: string;
  message: string;
  started: string | null;
  updated: string | null;
  subtasks: Array<{
    id: string;
    description: string;
    status: string;
    attempts: number;
    code: string;
    error: string;
    by: string | null;
  }>;
  stats: IRunStats | null;
  waiting_for: { kind: WaitingKind; subtask_id: string } | null;
  last_seq: number;
  contract: IContract | null;
  /** The latest check of each requirement, by id. */
  requirements: Record<
    string,
    { passed: boolean; observed: string; subtask_id: string | null }
  >;
  unmet: string[];
  not_verified: string[];
  variables?: IRunVariables;
}

/** The run's effect on the kernel's variables, folded from its `namespace_changed` events. */
export interface IRunVariables {
  /** Did not exist before the run: {name: fingerprint as the run left it}. */
  created: Record<string, string>;
  /** The user's variables whose old values the run replaced. */
  changed: string[];
  /** The user's variables the run deleted. */
  deleted: string[];
}

/** `POST /geoagent/runs/<id>/variables/delete` answer. */
export interface IDeleteVariablesResult {
  run_id: string;
  deleted: string[];
  /** Names kept, with why (changed since the run, gone already). */
  kept: Record<string, string>;
  changed: string[];
  deleted_by_run: string[];
}

/** What a waiting run waits for: a stuck step, code to approve, or the contract to review. */
export type WaitingKind = 'stuck' | 'approval' | 'contract';

/** The `subtask_id` of actions on the contract under review. */
export const CONTRACT_SUBTASK = 'contract';

/** `POST /geoagent/runs` body. */
export interface IStartRunRequest {
  request: string;
  notebook_path?: string;
  kernel_id?: string;
  model?: string;
  strategy?: 'loop' | 'mcts';
  approval_mode?: boolean;
  max_attempts?: number;
}

export type ActionKind =
  | 'edit'
  | 'hint'
  | 'skip'
  | 'approve'
  | 'reject'
  | 'contract';

/** `POST /geoagent/runs/<id>/actions` body. */
export interface IAction {
  kind: ActionKind;
  subtask_id: string;
  code?: string;
  text?: string;
  /** kind 'contract': every requirement as the user left it (deleted ones omitted). */
  requirements?: IRequirementEdit[];
}

/** One choice of `GET /geoagent/models`. */
export interface IModelChoice {
  id: string;
  label: string;
  provider: string;
  available: boolean;
  detail: string;
  default: boolean;
}

export interface IModelList {
  default: string;
  models: IModelChoice[];
}
