/**
 * Fold a run's events into what the panel shows: the plan with each subtask's
 * status, attempts (for diffs), time and search tree, and the deliverable
 * contract with each requirement's latest check.
 *
 * Richer than the server's `fold` (agent/state.py), which keeps only the last
 * code and error per subtask: diffs need every attempt and the tree every node.
 * A pure function, so a reconnect that replays events, a reopened panel and
 * the tests all get the same picture. Returns a new object per event (React
 * compares by identity) but shares untouched subtasks.
 *
 * A plan unit is a "subtask" in code, as in the server's events; what the panel
 * and the notebook show the user calls it a "step".
 */
import {
  CONTRACT_SUBTASK,
  FinishedStatus,
  IContract,
  IExecutionSummary,
  IRunStats,
  IRunVariables,
  ISubtaskSpec,
  RunEvent,
  SearchNodeStatus,
  WaitingKind
} from './types';
import { addNamespaceChange, emptyVariables } from './variables';

export type SubtaskStatus =
  | 'pending'
  | 'running'
  | 'awaiting_approval'
  | 'solved'
  | 'needs_human'
  | 'skipped';

export type RunStatus =
  | 'starting'
  | 'running'
  | 'needs_human'
  | 'awaiting_approval'
  | 'awaiting_contract'
  | FinishedStatus;

/** One piece of code tried for a subtask: an agent attempt or a human edit. */
export interface IAttempt {
  /** Position in the subtask's list, from 1. */
  n: number;
  code: string;
  by: 'agent' | 'human';
  /** Search node id (MCTS) when the attempt is a node. */
  nodeId?: string;
  parentId?: string | null;
  /** Sandbox run, then the live run (either may be missing). */
  trial?: IExecutionSummary;
  result?: IExecutionSummary;
  /** Short error when the attempt failed. */
  error?: string;
  /** How the agent repaired the attempt before this one into this one. */
  repair?: { strategy: string; diagnosis: string };
}

export interface ISearchNode {
  id: string;
  parentId: string | null;
  code: string;
  visits: number;
  q: number;
  prior: number;
  reward: number | null;
  status: SearchNodeStatus;
  error: string | null;
  /** Ids of the requirements its reward's trial found met, and not met. */
  met?: string[];
  unmet?: string[];
}

export interface ISubtaskView {
  id: string;
  description: string;
  status: SubtaskStatus;
  attempts: IAttempt[];
  /** Milliseconds since the epoch (event timestamps). */
  startedAt?: number;
  endedAt?: number;
  by?: 'agent' | 'human';
  /** The latest code: proposed, waiting for approval, or accepted. */
  code: string;
  error: string;
  insertedFor?: string | null;
  /** The CRS advisor's choice for what the subtask does ("areas in EPSG:3035 (…)"), or ''. */
  crsAdvice: string;
  /** The accepted code and its outputs (what goes into the notebook). */
  solved?: { code: string; result: IExecutionSummary; by: 'agent' | 'human' };
  nodes: Record<string, ISearchNode>;
  /** Node ids in creation order. */
  nodeOrder: string[];
  /** Why the tree search took this step over from the loop (strategy auto), or ''. */
  searchReason?: string;
  hints: string[];
}

/** The latest check of one requirement on the file read back from disk. */
export interface IRequirementCheck {
  passed: boolean;
  /** What the check saw (why it failed, or what held). */
  observed: string;
  /** The subtask after which it was checked; null: the final check. */
  subtaskId: string | null;
}

export interface IRunView {
  runId: string;
  request: string;
  model: string;
  notebook: string | null;
  strategy: string;
  approvalMode: boolean;
  status: RunStatus;
  message: string;
  progress: string;
  subtasks: ISubtaskView[];
  waitingFor: { kind: WaitingKind; subtaskId: string } | null;
  lastSeq: number;
  /** What the deliverables must satisfy; null until stated (or for runs without outputs). */
  contract: IContract | null;
  /** Who stated the contract last: derived from the request, or as the user left it. */
  contractBy: 'request' | 'user';
  /** The latest check of each requirement, by requirement id. */
  checks: Record<string, IRequirementCheck>;
  /** From `finished`: "requirement — observed" for each that failed at the end. */
  unmet: string[];
  /** From `finished`: requirements no code can check. */
  notVerified: string[];
  /** The CRS advisor's lines for the run's layers (area, distance, official grid). */
  crsAdvice: string[];
  /** What the run did to the kernel's variables (for undoing it). */
  variables: IRunVariables;
  /** What degraded the run without stopping it (e.g. API retrieval), once per source. */
  warnings: string[];
  /** Place in the line for a model that serves one call at a time (1 = next); null: not waiting. */
  modelWaiting: number | null;
  startedAt?: number;
  finishedAt?: number;
  stats?: IRunStats;
}

export function emptyRun(runId: string, request = ''): IRunView {
  return {
    runId,
    request,
    model: '',
    notebook: null,
    strategy: 'loop',
    approvalMode: false,
    status: 'starting',
    message: '',
    progress: '',
    subtasks: [],
    waitingFor: null,
    lastSeq: 0,
    contract: null,
    contractBy: 'request',
    checks: {},
    unmet: [],
    notVerified: [],
    crsAdvice: [],
    variables: emptyVariables(),
    warnings: [],
    modelWaiting: null
  };
}

function newSubtask(spec: ISubtaskSpec): ISubtaskView {
  return {
    id: spec.id,
    description: spec.description,
    status: 'pending',
    attempts: [],
    code: '',
    error: '',
    insertedFor: spec.inserted_for ?? null,
    crsAdvice: spec.crs_advice ?? '',
    nodes: {},
    nodeOrder: [],
    searchReason: '',
    hints: []
  };
}

function time(ts: string): number | undefined {
  const t = Date.parse(ts);
  return Number.isNaN(t) ? undefined : t;
}

/** The run's status while it has not finished. */
function liveStatus(run: IRunView): RunStatus {
  switch (run.waitingFor?.kind) {
    case 'stuck':
      return 'needs_human';
    case 'approval':
      return 'awaiting_approval';
    case 'contract':
      return 'awaiting_contract';
  }
  return 'running';
}

const FINISHED: ReadonlySet<string> = new Set([
  'succeeded',
  'partial',
  'failed',
  'cancelled',
  'declined',
  'interrupted'
]);

export function isFinished(status: RunStatus): boolean {
  return FINISHED.has(status);
}

/** Apply one event; events at or below `lastSeq` are already in (replays). */
export function applyEvent(run: IRunView, event: RunEvent): IRunView {
  if (event.seq <= run.lastSeq) {
    return run;
  }
  const next: IRunView = { ...run, lastSeq: event.seq };
  const at = time(event.ts);
  const update = (
    id: string,
    change: (subtask: ISubtaskView) => ISubtaskView
  ) => {
    next.subtasks = next.subtasks.map(s => (s.id === id ? change(s) : s));
  };
  const withAttempt = (
    subtask: ISubtaskView,
    n: number,
    change: (a: IAttempt) => IAttempt
  ): ISubtaskView => ({
    ...subtask,
    attempts: subtask.attempts.map(a => (a.n === n ? change(a) : a))
  });

  switch (event.type) {
    case 'run_started':
      Object.assign(next, {
        request: event.request,
        model: event.model,
        notebook: event.notebook,
        strategy: event.strategy,
        approvalMode: event.approval_mode,
        status: 'running',
        startedAt: at
      });
      break;
    case 'progress':
      next.progress = event.message;
      break;
    case 'warning':
      next.warnings = [...next.warnings, event.message];
      break;
    case 'model_waiting':
      next.modelWaiting = event.place > 0 ? event.place : null;
      break;
    case 'planned':
    case 'replanned': {
      // A subtask kept by the new plan keeps its state; its wording and CRS are the new plan's
      // (a tidied or rewritten subtask keeps its id).
      const known = new Map(next.subtasks.map(s => [s.id, s]));
      next.subtasks = event.subtasks.map(spec => {
        const subtask = known.get(spec.id);
        return subtask
          ? {
              ...subtask,
              description: spec.description,
              crsAdvice: spec.crs_advice ?? ''
            }
          : newSubtask(spec);
      });
      next.progress = '';
      break;
    }
    case 'subtask_inserted': {
      const subtasks = [...next.subtasks];
      const before = subtasks.findIndex(s => s.id === event.before);
      subtasks.splice(
        before < 0 ? subtasks.length : before,
        0,
        newSubtask(event.subtask)
      );
      next.subtasks = subtasks;
      break;
    }
    case 'crs_advised':
      next.crsAdvice = [...event.lines];
      break;
    case 'contract_stated':
      // As the server's fold: waiting only while this statement awaits review.
      next.contract = event.contract;
      next.contractBy = event.by ?? 'request';
      next.waitingFor = event.awaiting_review
        ? { kind: 'contract', subtaskId: CONTRACT_SUBTASK }
        : null;
      break;
    case 'requirement_checked':
      next.checks = {
        ...next.checks,
        [event.requirement_id]: {
          passed: event.passed,
          observed: event.observed ?? '',
          subtaskId: event.subtask_id ?? null
        }
      };
      break;
    case 'declined':
      next.message = event.reason;
      break;
    case 'subtask_started':
      next.waitingFor = null;
      update(event.subtask_id, s => ({
        ...s,
        status: 'running',
        startedAt: s.startedAt ?? at,
        endedAt: undefined
      }));
      break;
    case 'code_proposed':
      update(event.subtask_id, s => ({
        ...s,
        code: event.code,
        attempts: [
          ...s.attempts,
          { n: s.attempts.length + 1, code: event.code, by: 'agent' }
        ]
      }));
      break;
    case 'repaired':
      update(event.subtask_id, s => {
        const last = s.attempts[s.attempts.length - 1];
        return last
          ? withAttempt(s, last.n, a => ({
              ...a,
              repair: { strategy: event.strategy, diagnosis: event.diagnosis }
            }))
          : s;
      });
      break;
    case 'executed':
      update(event.subtask_id, s => {
        // Loop attempts come from code_proposed; a search commits a node.
        let attempt =
          (event.node_id && s.attempts.find(a => a.nodeId === event.node_id)) ||
          [...s.attempts].reverse().find(a => a.code === event.code);
        let subtask = s;
        if (!attempt) {
          attempt = { n: s.attempts.length + 1, code: event.code, by: 'agent' };
          subtask = { ...s, attempts: [...s.attempts, attempt] };
        }
        const failed = event.result.status !== 'ok';
        return withAttempt(subtask, attempt.n, a => ({
          ...a,
          ...(event.trial ? { trial: event.result } : { result: event.result }),
          error: failed ? event.result.error || event.result.status : a.error
        }));
      });
      break;
    case 'search_started':
      update(event.subtask_id, s => ({
        ...s,
        searchReason:
          `${event.reason} (budget: ${event.max_nodes} nodes, ` +
          `${event.max_llm_calls} model calls, ${Math.round(event.max_seconds)} s)`
      }));
      break;
    case 'search_node':
      update(event.subtask_id, s => {
        const node: ISearchNode = {
          id: event.node_id,
          parentId: event.parent_id,
          code: event.code,
          visits: event.visits,
          q: event.q,
          prior: event.prior,
          reward: event.reward,
          status: event.status,
          error: event.error,
          met: event.met ?? [],
          unmet: event.unmet ?? []
        };
        const isNew = !(event.node_id in s.nodes);
        let subtask: ISubtaskView = {
          ...s,
          nodes: { ...s.nodes, [node.id]: node },
          nodeOrder: isNew ? [...s.nodeOrder, node.id] : s.nodeOrder
        };
        // Every node with code is an attempt (the root has none).
        if (isNew && node.code) {
          subtask = {
            ...subtask,
            code: node.code,
            attempts: [
              ...subtask.attempts,
              {
                n: subtask.attempts.length + 1,
                code: node.code,
                by: 'agent',
                nodeId: node.id,
                parentId: node.parentId
              }
            ]
          };
        } else if (node.error) {
          subtask = withAttempt(
            subtask,
            subtask.attempts.find(a => a.nodeId === node.id)?.n ?? -1,
            a => ({ ...a, error: node.error ?? a.error })
          );
        }
        return subtask;
      });
      break;
    case 'approval_requested':
      next.waitingFor = { kind: 'approval', subtaskId: event.subtask_id };
      update(event.subtask_id, s => ({
        ...s,
        status: 'awaiting_approval',
        code: event.code
      }));
      break;
    case 'approval_given':
      next.waitingFor = null;
      update(event.subtask_id, s => ({ ...s, status: 'running' }));
      break;
    case 'solved':
      next.waitingFor = null;
      update(event.subtask_id, s => ({
        ...s,
        status: 'solved',
        code: event.code,
        error: '',
        by: event.by,
        endedAt: at,
        solved: { code: event.code, result: event.result, by: event.by }
      }));
      break;
    case 'namespace_changed':
      next.variables = addNamespaceChange(next.variables, event);
      break;
    case 'needs_human':
      next.waitingFor = { kind: 'stuck', subtaskId: event.subtask_id };
      update(event.subtask_id, s => ({
        ...s,
        status: 'needs_human',
        code: event.code,
        error: event.error,
        endedAt: at
      }));
      break;
    case 'human_edit_applied':
      update(event.subtask_id, s => ({
        ...s,
        attempts: [
          ...s.attempts,
          {
            n: s.attempts.length + 1,
            code: event.code,
            by: 'human',
            result: event.result,
            error: event.accepted
              ? undefined
              : event.result.error || event.result.status
          }
        ]
      }));
      break;
    case 'hint_given':
      next.waitingFor = null;
      update(event.subtask_id, s => ({
        ...s,
        status: 'running',
        hints: [...s.hints, event.hint]
      }));
      break;
    case 'skipped':
      next.waitingFor = null;
      update(event.subtask_id, s => ({
        ...s,
        status: 'skipped',
        endedAt: at
      }));
      break;
    case 'finished':
      Object.assign(next, {
        status: event.status,
        message: event.message,
        stats: event.stats,
        unmet: event.unmet ?? [],
        notVerified: event.not_verified ?? [],
        waitingFor: null,
        progress: '',
        modelWaiting: null,
        finishedAt: at
      });
      // A subtask cut off by a cancel or failure is not "running" anymore.
      next.subtasks = next.subtasks.map(s =>
        s.status === 'running' || s.status === 'awaiting_approval'
          ? { ...s, status: 'pending', endedAt: s.endedAt ?? at }
          : s
      );
      return next;
    default:
      return next;
  }
  if (!isFinished(next.status)) {
    next.status = liveStatus(next);
  }
  return next;
}

/** "waiting for the model: 2nd in line", as the server's faces say it (`llm/queue.py`). */
export function placeText(place: number): string {
  const teen = place % 100 >= 10 && place % 100 <= 20;
  const suffix = teen
    ? 'th'
    : (({ 1: 'st', 2: 'nd', 3: 'rd' } as Record<number, string>)[place % 10] ??
      'th');
  return `waiting for the model: ${place}${suffix} in line`;
}

/** Seconds a subtask has taken (so far, when it still runs). */
export function subtaskSeconds(
  subtask: ISubtaskView,
  now: number
): number | null {
  if (subtask.startedAt === undefined) {
    return null;
  }
  const end =
    subtask.endedAt ?? (subtask.status === 'running' ? now : undefined);
  return end === undefined
    ? null
    : Math.max(0, (end - subtask.startedAt) / 1000);
}

/** "0.4 s", "12 s", "2 min 05 s". */
export function formatSeconds(seconds: number | null): string {
  if (seconds === null) {
    return '';
  }
  if (seconds < 10) {
    return `${seconds.toFixed(1)} s`;
  }
  if (seconds < 60) {
    return `${Math.round(seconds)} s`;
  }
  const minutes = Math.floor(seconds / 60);
  const rest = Math.round(seconds - minutes * 60);
  return `${minutes} min ${String(rest).padStart(2, '0')} s`;
}
