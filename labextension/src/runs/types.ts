/**
 * The runs API's shapes. The events and what they carry come from the pydantic
 * models (`geoagent_ext/agent/events.py`) through `events.generated.ts`
 * (`jlpm build:types`); the names here keep the panel's imports. Written by hand:
 * what `agent/state.py` and `runs/schemas.py` return or accept, and UI-only types.
 */
import type {
  Contract,
  ExecutionSummary,
  Finished,
  Requirement,
  RunEvent,
  RunStats,
  SearchNode,
  SubtaskSpec
} from './events.generated';

export type { RunEvent };

/** `ExecutionSummary`: what running a piece of code gave (outputs as nbformat dicts). */
export type IExecutionSummary = ExecutionSummary;

export type ISubtaskSpec = SubtaskSpec;

/** A requirement's kind (`contract/model.py`); `note` is shown but no code checks it. */
export type RequirementKind = Requirement['kind'];

/** `Requirement`: one thing an output file must satisfy. */
export type IRequirement = Requirement;

/** `Contract`: the run's deliverables and what each must satisfy. */
export type IContract = Contract;

/** `RequirementEdit`: a requirement as the user left it ('' id = new). */
export interface IRequirementEdit {
  id: string;
  output: string;
  text: string;
}

export type SearchNodeStatus = SearchNode['status'];

export type FinishedStatus = Finished['status'];

export type RunEventType = RunEvent['type'];

export type IRunStats = RunStats;

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

/** What a waiting run waits for: a stuck subtask, code to approve, or the contract to review. */
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
  'edit' | 'hint' | 'skip' | 'approve' | 'reject' | 'contract';

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
