/**
 * The runs API's shapes, all generated from the server's pydantic models by
 * `jlpm build:types`: the events and what they carry through `events.generated.ts`
 * (`geoagent_ext/agent/events.py`), the REST bodies through `rest.generated.ts`
 * (`geoagent_ext/handlers/openapi.py`, as in openapi.json). The names here keep
 * the panel's imports.
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
import type {
  ActionRequest,
  DeleteVariablesResult,
  ModelChoice,
  ModelList,
  RequirementEdit,
  RunEvents,
  RunList,
  RunState,
  RunVariables,
  StartRunRequest,
  SubtaskOutputs,
  WaitingFor
} from './rest.generated';

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

export type SearchNodeStatus = SearchNode['status'];

export type FinishedStatus = Finished['status'];

export type RunEventType = RunEvent['type'];

export type IRunStats = RunStats;

/** The `subtask_id` of actions on the contract under review. */
export const CONTRACT_SUBTASK = 'contract';

/** `POST /geoagent/runs` body. */
export type IStartRunRequest = StartRunRequest;

/** `POST /geoagent/runs/<id>/actions` body. */
export type IAction = ActionRequest;

export type ActionKind = ActionRequest['kind'];

/** A requirement as the user left it (no id: new). */
export type IRequirementEdit = RequirementEdit;

/** The server's folded state of a run (`agent/state.py`), as REST returns it. */
export type IRunState = RunState;

export type IRunList = RunList;

/** `GET /geoagent/runs/<id>/events` answer. */
export type IRunEvents = RunEvents;

/** `GET /geoagent/runs/<id>/outputs/<subtask_id>` answer. */
export type ISubtaskOutputs = SubtaskOutputs;

/** The run's effect on the kernel's variables, folded from its `namespace_changed` events. */
export type IRunVariables = RunVariables;

/** What a waiting run waits for: a stuck subtask, code to approve, or the contract to review. */
export type WaitingKind = WaitingFor['kind'];

/** `POST /geoagent/runs/<id>/variables/delete` answer. */
export type IDeleteVariablesResult = DeleteVariablesResult;

/** One choice of `GET /geoagent/models`. */
export type IModelChoice = ModelChoice;

export type IModelList = ModelList;
