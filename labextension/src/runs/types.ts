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
    | { type: 'planned'; subtasks: ISubtaskSpec[]; libraries: string[] }
    | { type: 'replanned'; reason: string; subtasks: ISubtaskSpec[] }
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
  waiting_for: { kind: 'stuck' | 'approval'; subtask_id: string } | null;
  last_seq: number;
}

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

export type ActionKind = 'edit' | 'hint' | 'skip' | 'approve' | 'reject';

/** `POST /geoagent/runs/<id>/actions` body. */
export interface IAction {
  kind: ActionKind;
  subtask_id: string;
  code?: string;
  text?: string;
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
