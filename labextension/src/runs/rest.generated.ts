/* eslint-disable */
/**
 * GENERATED from the REST API's pydantic bodies (geoagent_ext/handlers/openapi.py): do not edit.
 * Regenerate with `cd labextension && jlpm build:types` (the builds run it when Python
 * with pydantic is at hand); tests/frontend/test_rest_types.py fails when this file drifts.
 *
 * schema-sha256: d7f0c450544ba906dc0516b63e30124139f379f59fab6bddfd6bd33cea975b2d
 */
import type {
  ApprovalGiven,
  ApprovalRequested,
  CodeProposed,
  Contract,
  ContractStated,
  CrsAdvised,
  Declined,
  Executed,
  Finished,
  HintGiven,
  HumanEditApplied,
  ModelWaiting,
  NamespaceChanged,
  NeedsHuman,
  Planned,
  Progress,
  Repaired,
  Replanned,
  RequirementChecked,
  RunStarted,
  RunStats,
  RunWarning,
  SearchNode,
  SearchStarted,
  Skipped,
  Solved,
  SubtaskInserted,
  SubtaskStarted
} from './events.generated';

export type RestBody =
  | StartRunRequest
  | ActionRequest
  | DeleteVariablesRequest
  | CompletionRequest
  | Status
  | RunState
  | RunList
  | RunEvents
  | SubtaskOutputs
  | DeleteVariablesResult
  | ModelList;

/**
 * Start a run on the kernel of an open notebook (or a kernel id).
 */
export interface StartRunRequest {
  /**
   * What the user wants, in plain words.
   */
  request: string;
  /**
   * Notebook path relative to the server root; its session's kernel is used.
   */
  notebook_path?: string | null;
  /**
   * A running kernel id (instead of notebook_path).
   */
  kernel_id?: string | null;
  /**
   * provider:model; default: the configured model.
   */
  model?: string | null;
  strategy?: 'loop' | 'mcts' | 'auto';
  /**
   * strategy auto: steps per run the search may take over where the loop stalls.
   */
  search_steps?: number | null;
  approval_mode?: boolean | null;
  max_attempts?: number | null;
}
/**
 * A human decision for a waiting run.
 */
export interface ActionRequest {
  kind: 'edit' | 'hint' | 'skip' | 'approve' | 'reject' | 'contract';
  subtask_id: string;
  code?: string;
  text?: string;
  /**
   * kind 'contract': the deliverable's requirements as the user left them (subtask_id 'contract'); unchanged ones keep their id, new or reworded text is read again by the rules.
   */
  requirements?: RequirementEdit[] | null;
}
/**
 * One requirement as the user left it: an unchanged one keeps its ``id``; new or reworded
 * text (``id`` empty or text changed) is read again by the rules.
 */
export interface RequirementEdit {
  id?: string;
  output: string;
  text: string;
}
/**
 * Undo a run in the kernel: delete variables it created (all of them when ``names`` is omitted).
 */
export interface DeleteVariablesRequest {
  /**
   * Names among those the run created; default: every one. A variable changed since the run set it is kept.
   */
  names?: string[] | null;
}
/**
 * The cell at the cursor and where it lives (notebook path or kernel id).
 */
export interface CompletionRequest {
  /**
   * Cell text before the cursor.
   */
  cell_text_before: string;
  /**
   * Cell text after the cursor.
   */
  cell_text_after?: string;
  /**
   * Sources of the code cells above, oldest first.
   *
   * @maxItems 200
   */
  previous_cells?: string[];
  notebook_path?: string | null;
  kernel_id?: string | null;
  /**
   * provider:model; default: the configured inline_model.
   */
  model?: string | null;
}
/**
 * ``GET /geoagent/status``: what the panel shows first.
 */
export interface Status {
  version: string;
  model: string;
  provider: string;
  inline_model: string;
  index: IndexState;
  approval_mode: boolean;
  kernels: KernelPlacement;
  mcp_url: string | null;
  inline_loaded: boolean;
}
/**
 * The knowledge index (``status.index_state``): a local index is ``ready``, ``missing`` or
 * ``corrupt``; a shared one (a chroma server) ``remote``, ``empty`` or ``unreachable``. The
 * other keys are there only where they say something.
 */
export interface IndexState {
  state: 'ready' | 'missing' | 'corrupt' | 'remote' | 'empty' | 'unreachable';
  location: string;
  records?: number;
  libraries?: {
    [k: string]: string;
  };
  hint?: string;
  error?: string;
}
/**
 * Where the runs' kernels live (``runs.placement``): this server, or a Kernel Gateway.
 */
export interface KernelPlacement {
  where: 'local' | 'gateway';
  gateway?: string;
  trials: string;
  notes: string[];
}
/**
 * ``GET /geoagent/runs/{run_id}``: a run folded from its events (``agent.state.fold``).
 */
export interface RunState {
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
  subtasks: SubtaskState[];
  stats: RunStats | null;
  waiting_for: WaitingFor | null;
  last_seq: number;
  contract: Contract | null;
  requirements: {
    [k: string]: RequirementState;
  };
  unmet: string[];
  not_verified: string[];
  crs_advice: string[];
  variables: RunVariables;
  warnings: RunStateWarning[];
  model_waiting: number | null;
}
/**
 * One subtask of the plan as the run left it: its last code and error.
 */
export interface SubtaskState {
  id: string;
  description: string;
  status: string;
  attempts: number;
  code: string;
  error: string;
  by: ('agent' | 'human') | null;
  inserted_for: string | null;
}
/**
 * What a waiting run waits for: a stuck subtask, code to approve, or the contract to review.
 */
export interface WaitingFor {
  kind: 'stuck' | 'approval' | 'contract';
  subtask_id: string;
}
/**
 * The latest check of one requirement; ``subtask_id`` None: the final check.
 */
export interface RequirementState {
  passed: boolean;
  observed: string;
  subtask_id: string | null;
}
/**
 * The run's effect on the kernel's variables, folded from its ``namespace_changed`` events.
 */
export interface RunVariables {
  created: {
    [k: string]: string;
  };
  changed: string[];
  deleted: string[];
}
export interface RunStateWarning {
  source: string;
  message: string;
}
/**
 * ``GET /geoagent/runs``: the newest first.
 */
export interface RunList {
  runs: RunState[];
}
/**
 * ``GET /geoagent/runs/{run_id}/events``: the run's events after ``after``, in order.
 */
export interface RunEvents {
  events: (
    | RunStarted
    | Progress
    | RunWarning
    | ModelWaiting
    | CrsAdvised
    | ContractStated
    | Planned
    | Replanned
    | RequirementChecked
    | Declined
    | SubtaskStarted
    | CodeProposed
    | Executed
    | Repaired
    | SubtaskInserted
    | ApprovalRequested
    | ApprovalGiven
    | Solved
    | NamespaceChanged
    | NeedsHuman
    | HumanEditApplied
    | HintGiven
    | Skipped
    | SearchNode
    | SearchStarted
    | Finished
  )[];
}
/**
 * ``GET /geoagent/runs/{run_id}/outputs/{subtask_id}``: an accepted subtask's whole outputs
 * (nbformat dicts; its events carry them cut to their limits).
 */
export interface SubtaskOutputs {
  run_id: string;
  subtask_id: string;
  outputs: {
    [k: string]: unknown;
  }[];
}
/**
 * ``POST /geoagent/runs/{run_id}/variables/delete``.
 */
export interface DeleteVariablesResult {
  run_id: string;
  deleted: string[];
  kept: {
    [k: string]: string;
  };
  changed: string[];
  deleted_by_run: string[];
}
/**
 * ``GET /geoagent/models``: the configured default first.
 */
export interface ModelList {
  default: string;
  models: ModelChoice[];
}
/**
 * One choice of the panel's model picker.
 */
export interface ModelChoice {
  id: string;
  label: string;
  provider: string;
  available: boolean;
  detail: string;
  default: boolean;
}
