/* eslint-disable */
/**
 * GENERATED from the pydantic event models (geoagent_ext/agent/events.py): do not edit.
 * Regenerate with `cd labextension && jlpm build:types` (the builds run it when Python
 * with pydantic is at hand); tests/frontend/test_event_types.py fails when this file drifts.
 *
 * schema-sha256: 1763895e4ec78f57da630d457f6bbdae308a8bbb5b2023e508b1b4a9d1dee7f6
 */

export type RunEvent =
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
  | Finished;

export interface RunStarted {
  run_id: string;
  seq: number;
  ts: string;
  type: 'run_started';
  request: string;
  model: string;
  notebook: string | null;
  kernel_id: string | null;
  strategy: string;
  approval_mode: boolean;
}
/**
 * Free-form progress for slow phases (local model thinking, profiling data).
 */
export interface Progress {
  run_id: string;
  seq: number;
  ts: string;
  type: 'progress';
  message: string;
  subtask_id: string | null;
}
/**
 * Something degraded the run without stopping it (e.g. the API docs index is unreachable).
 */
export interface RunWarning {
  run_id: string;
  seq: number;
  ts: string;
  type: 'warning';
  source: 'retrieval';
  message: string;
}
/**
 * The run waits for a model that serves one call at a time (``llm.queue``): ``place`` 1 is
 * next in line; 0 says the wait is over. Sent only when a call had to wait.
 */
export interface ModelWaiting {
  run_id: string;
  seq: number;
  ts: string;
  type: 'model_waiting';
  place: number;
}
/**
 * The CRS advisor's picks for the run's layers, one line each (what the planner and coder read).
 */
export interface CrsAdvised {
  run_id: string;
  seq: number;
  ts: string;
  type: 'crs_advised';
  lines: string[];
}
/**
 * What the deliverable must satisfy, derived from the request before planning.
 */
export interface ContractStated {
  run_id: string;
  seq: number;
  ts: string;
  type: 'contract_stated';
  contract: Contract;
  by: 'request' | 'user';
  awaiting_review: boolean;
  dropped: string[];
}
export interface Contract {
  outputs: OutputSpec[];
  requirements: Requirement[];
}
export interface OutputSpec {
  path: string;
  format: string;
}
export interface Requirement {
  id: string;
  /**
   * the output file (path as the request names it)
   */
  output: string;
  /**
   * one sentence a person reads
   */
  text: string;
  kind:
    | 'antimeridian_cut'
    | 'area_weighted'
    | 'bbox'
    | 'bbox_extent'
    | 'booleans'
    | 'buffer_distance'
    | 'column_stats'
    | 'column_summary'
    | 'column_total'
    | 'columns'
    | 'coordinate_columns'
    | 'count_of_input'
    | 'counted_once'
    | 'counts_within'
    | 'crs_epsg'
    | 'crs_present'
    | 'crs_projected_metres'
    | 'density'
    | 'digit_code'
    | 'distance_cap'
    | 'distinct_count'
    | 'dtype'
    | 'exists'
    | 'geometries_present'
    | 'geometries_unique'
    | 'geometries_valid'
    | 'geometry_column_named'
    | 'geometry_once'
    | 'geometry_types'
    | 'geometry_types_kept'
    | 'geometry_unchanged'
    | 'group_keys'
    | 'group_size_rows'
    | 'input_order'
    | 'integer'
    | 'json_shape'
    | 'kept_of_duplicates'
    | 'labelled_row'
    | 'layer_inventory'
    | 'layers'
    | 'list_value'
    | 'located'
    | 'lonlat'
    | 'lonlat_boxes'
    | 'measure_classes'
    | 'measure_stats'
    | 'measure_totals'
    | 'measure_units'
    | 'min_area'
    | 'names_list'
    | 'nearest_attribute'
    | 'nearest_distance'
    | 'no_new_columns'
    | 'non_empty'
    | 'non_negative'
    | 'note'
    | 'numeric'
    | 'one_value_per_cell'
    | 'pair_distance'
    | 'pattern'
    | 'point_counts'
    | 'points_inside'
    | 'rank_from_one'
    | 'rfc7946_winding'
    | 'rows_as_category'
    | 'rows_as_input'
    | 'rows_in_category'
    | 'rows_of_geometry_type'
    | 'shapes_kept'
    | 'sorted'
    | 'symmetric_difference'
    | 'threshold_rows'
    | 'top_level_member'
    | 'top_rows'
    | 'type_counts'
    | 'unique'
    | 'values_from_input'
    | 'values_in'
    | 'whole_numbers'
    | 'within_box'
    | 'wkt_geometry';
  params: {
    [k: string]: unknown;
  };
  origin: 'request' | 'user' | 'model';
  /**
   * the request's words it is read from (the user's, for their own)
   */
  said: string;
  /**
   * read with certainty; an unsure reading is shown, never gates
   */
  sure: boolean;
}
export interface Planned {
  run_id: string;
  seq: number;
  ts: string;
  type: 'planned';
  subtasks: SubtaskSpec[];
  libraries: string[];
}
/**
 * A plan step: what to do, never how (parameters are bound after looking at data).
 */
export interface SubtaskSpec {
  id: string;
  description: string;
  artifacts: string[];
  inserted_for: string | null;
  crs_advice: string;
}
export interface Replanned {
  run_id: string;
  seq: number;
  ts: string;
  type: 'replanned';
  reason: string;
  subtasks: SubtaskSpec[];
}
/**
 * One requirement checked on the file read back from disk (after a step, or at the end).
 */
export interface RequirementChecked {
  run_id: string;
  seq: number;
  ts: string;
  type: 'requirement_checked';
  requirement_id: string;
  output: string;
  text: string;
  passed: boolean;
  observed: string;
  subtask_id: string | null;
}
export interface Declined {
  run_id: string;
  seq: number;
  ts: string;
  type: 'declined';
  reason: string;
}
export interface SubtaskStarted {
  run_id: string;
  seq: number;
  ts: string;
  type: 'subtask_started';
  subtask_id: string;
  index: number;
  description: string;
}
export interface CodeProposed {
  run_id: string;
  seq: number;
  ts: string;
  type: 'code_proposed';
  subtask_id: string;
  attempt: number;
  code: string;
  node_id: string | null;
  parent_id: string | null;
}
export interface Executed {
  run_id: string;
  seq: number;
  ts: string;
  type: 'executed';
  subtask_id: string;
  attempt: number;
  code: string;
  result: ExecutionSummary;
  trial: boolean;
  node_id: string | null;
}
/**
 * The part of a kernel ExecutionResult that faces need (outputs as nbformat dicts).
 */
export interface ExecutionSummary {
  status: string;
  stdout: string;
  stderr: string;
  outputs: {
    [k: string]: unknown;
  }[];
  error: string | null;
  ename: string | null;
  duration_s: number;
  warnings: string[];
  truncated: boolean;
}
export interface Repaired {
  run_id: string;
  seq: number;
  ts: string;
  type: 'repaired';
  subtask_id: string;
  attempt: number;
  strategy:
    | 'mend'
    | 'drop_mended_column'
    | 'keep_frame'
    | 'make_valid'
    | 'keep_one'
    | 'kept_copy'
    | 'nearest_uncapped'
    | 'own_column'
    | 'one_value'
    | 'records_again'
    | 'rename_onto'
    | 'keep_geometry'
    | 'set_geometry'
    | 'vector_write'
    | 'extra_geometries'
    | 'rename_local'
    | 'fix_call'
    | 'property_called'
    | 'nearest_distance'
    | 'not_geometry'
    | 'add_import'
    | 'start_list'
    | 'frame_meant'
    | 'named_crs'
    | 'metric_crs'
    | 'drop_keyword'
    | 'index_twice'
    | 'drop_import'
    | 'output_path'
    | 'write_frame'
    | 'text_not_frame'
    | 'layer_box'
    | 'move_import'
    | 'measure_column'
    | 'lost_geometry'
    | 'series_frame'
    | 'drop_print'
    | 'insert_subtask'
    | 'example_name'
    | 'members'
    | 'data_profile'
    | 'analyse'
    | 'no_code'
    | 'semantic'
    | 'hint'
    | 'escalate'
    | 'rewrite';
  diagnosis: string;
  diff: string;
}
export interface SubtaskInserted {
  run_id: string;
  seq: number;
  ts: string;
  type: 'subtask_inserted';
  subtask: SubtaskSpec;
  before: string;
  reason: string;
}
export interface ApprovalRequested {
  run_id: string;
  seq: number;
  ts: string;
  type: 'approval_requested';
  subtask_id: string;
  code: string;
}
export interface ApprovalGiven {
  run_id: string;
  seq: number;
  ts: string;
  type: 'approval_given';
  subtask_id: string;
  approved: boolean;
  feedback: string;
}
export interface Solved {
  run_id: string;
  seq: number;
  ts: string;
  type: 'solved';
  subtask_id: string;
  code: string;
  attempts: number;
  result: ExecutionSummary;
  by: 'agent' | 'human';
}
/**
 * What one commit to the live kernel did to the user's variables (modules left out), so a
 * run can be undone: names it created, changed (their old values are gone) or deleted, and
 * the fingerprints of the created and changed ones right after (a cleanup deletes only a
 * variable still as the run left it).
 */
export interface NamespaceChanged {
  run_id: string;
  seq: number;
  ts: string;
  type: 'namespace_changed';
  subtask_id: string;
  created: string[];
  changed: string[];
  deleted: string[];
  fingerprints: {
    [k: string]: string;
  };
}
export interface NeedsHuman {
  run_id: string;
  seq: number;
  ts: string;
  type: 'needs_human';
  subtask_id: string;
  code: string;
  error: string;
  attempts: number;
  unmet: string[];
}
export interface HumanEditApplied {
  run_id: string;
  seq: number;
  ts: string;
  type: 'human_edit_applied';
  subtask_id: string;
  code: string;
  result: ExecutionSummary;
  accepted: boolean;
}
export interface HintGiven {
  run_id: string;
  seq: number;
  ts: string;
  type: 'hint_given';
  subtask_id: string;
  hint: string;
}
export interface Skipped {
  run_id: string;
  seq: number;
  ts: string;
  type: 'skipped';
  subtask_id: string;
  reason: string;
}
/**
 * One node of the MCTS tree (emitted on creation and on every update).
 */
export interface SearchNode {
  run_id: string;
  seq: number;
  ts: string;
  type: 'search_node';
  subtask_id: string;
  node_id: string;
  parent_id: string | null;
  code: string;
  visits: number;
  q: number;
  prior: number;
  reward: number | null;
  status: 'new' | 'running' | 'ok' | 'failed' | 'chosen' | 'pruned';
  error: string | null;
  met: string[];
  unmet: string[];
}
/**
 * The loop stalled on a step (the same error or unmet requirement twice) and the tree search
 * takes the step over, within its budget (strategy ``auto``).
 */
export interface SearchStarted {
  run_id: string;
  seq: number;
  ts: string;
  type: 'search_started';
  subtask_id: string;
  reason: string;
  max_nodes: number;
  max_llm_calls: number;
  max_seconds: number;
}
export interface Finished {
  run_id: string;
  seq: number;
  ts: string;
  type: 'finished';
  status: 'succeeded' | 'partial' | 'failed' | 'cancelled' | 'declined' | 'interrupted';
  message: string;
  stats: RunStats;
  unmet: string[];
  not_verified: string[];
}
export interface RunStats {
  subtasks: number;
  solved: number;
  attempts: number;
  llm_calls: number;
  tokens_in: number;
  tokens_out: number;
  llm_seconds: number;
  seconds: number;
}
