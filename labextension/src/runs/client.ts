/**
 * The runs API: REST calls and the event stream.
 *
 * `RunStream` follows one run over `WS /geoagent/runs/<id>/stream?after=N`.
 * The server replays history after `N` and then sends live events, so a
 * dropped connection is repaired by reconnecting with `after=<last seq seen>`:
 * no event is lost or shown twice. It stops after `finished`.
 */
import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';
import { IDisposable } from '@lumino/disposable';

import { API_NAMESPACE, requestAPI } from '../api';
import {
  IAction,
  IDeleteVariablesResult,
  IModelList,
  IRunEvents,
  IRunList,
  IRunState,
  IStartRunRequest,
  ISubtaskOutputs,
  RunEvent
} from './types';

type Settings = ServerConnection.ISettings | undefined;

function post<T>(path: string, body: unknown, settings: Settings): Promise<T> {
  return requestAPI<T>(
    path,
    { method: 'POST', body: JSON.stringify(body) },
    settings
  );
}

/** `POST /geoagent/runs`: start a run; answers its first state (201). */
export function startRun(
  body: IStartRunRequest,
  settings?: ServerConnection.ISettings
): Promise<IRunState> {
  return post<IRunState>('runs', body, settings);
}

export async function listRuns(
  settings?: ServerConnection.ISettings
): Promise<IRunState[]> {
  const body = await requestAPI<IRunList>('runs', { method: 'GET' }, settings);
  return body.runs;
}

export async function runEvents(
  runId: string,
  after = 0,
  settings?: ServerConnection.ISettings
): Promise<RunEvent[]> {
  const body = await requestAPI<IRunEvents>(
    `runs/${encodeURIComponent(runId)}/events?after=${after}`,
    { method: 'GET' },
    settings
  );
  return body.events;
}

/** `POST .../actions`: a human decision (edit, hint, skip, approve, reject). */
export function sendAction(
  runId: string,
  action: IAction,
  settings?: ServerConnection.ISettings
): Promise<IRunState> {
  return post<IRunState>(
    `runs/${encodeURIComponent(runId)}/actions`,
    action,
    settings
  );
}

/** `GET /geoagent/runs/<id>`: the server's folded state of one run. */
export function fetchRun(
  runId: string,
  settings?: ServerConnection.ISettings
): Promise<IRunState> {
  return requestAPI<IRunState>(
    `runs/${encodeURIComponent(runId)}`,
    { method: 'GET' },
    settings
  );
}

/**
 * `GET /geoagent/runs/<id>/outputs/<subtask_id>`: the whole outputs of a live
 * run's accepted subtask, for its notebook cell (its events carry them bounded:
 * `result.truncated`).
 */
export async function fetchSubtaskOutputs(
  runId: string,
  subtaskId: string,
  settings?: ServerConnection.ISettings
): Promise<Record<string, unknown>[]> {
  const body = await requestAPI<ISubtaskOutputs>(
    `runs/${encodeURIComponent(runId)}/outputs/${encodeURIComponent(subtaskId)}`,
    { method: 'GET' },
    settings
  );
  return body.outputs;
}

/**
 * `POST .../variables/delete`: undo a finished run in its kernel, deleting
 * the variables it created (`names`, default all) still as it left them.
 */
export function deleteRunVariables(
  runId: string,
  names?: string[],
  settings?: ServerConnection.ISettings
): Promise<IDeleteVariablesResult> {
  return post<IDeleteVariablesResult>(
    `runs/${encodeURIComponent(runId)}/variables/delete`,
    names ? { names } : {},
    settings
  );
}

export function cancelRun(
  runId: string,
  settings?: ServerConnection.ISettings
): Promise<unknown> {
  return post(`runs/${encodeURIComponent(runId)}/cancel`, {}, settings);
}

/** `GET /geoagent/models`: the model picker's choices. */
export function fetchModels(
  settings?: ServerConnection.ISettings
): Promise<IModelList> {
  return requestAPI<IModelList>('models', { method: 'GET' }, settings);
}

/**
 * Tell the server which notebook is active, so chat requests know where to
 * run. Resolves false when this server has no such endpoint (the chat
 * persona is not installed): its 404 is Jupyter's HTML page, not our JSON.
 * A JSON refusal (e.g. a notebook not saved yet) is not worth an error.
 */
export async function reportActiveNotebook(
  path: string | null,
  settings: ServerConnection.ISettings = ServerConnection.makeSettings()
): Promise<boolean> {
  const url = URLExt.join(settings.baseUrl, API_NAMESPACE, 'active-notebook');
  const response = await ServerConnection.makeRequest(
    url,
    { method: 'POST', body: JSON.stringify({ path }) },
    settings
  );
  const json = (response.headers.get('Content-Type') ?? '').includes(
    'application/json'
  );
  return response.ok || json;
}

/**
 * Keep the server told which notebook is active: on every change of the
 * current notebook (or its path), once per distinct path; silent from the
 * first sign that the endpoint does not exist.
 */
export function reportActiveNotebooks(
  current: () => string | null,
  changed: { connect(fn: () => void): unknown },
  settings?: ServerConnection.ISettings
): void {
  let last: string | null | undefined = undefined;
  let available = true;
  const report = () => {
    const path = current();
    if (!available || path === last) {
      return;
    }
    last = path;
    reportActiveNotebook(path, settings)
      .then(found => {
        available = found;
      })
      .catch(error => {
        last = undefined; // a network error: try again on the next change
        console.warn('GeoAgent: could not report the active notebook', error);
      });
  };
  changed.connect(report);
  report();
}

/** A websocket URL under `/geoagent/` with the token, as Lab's services build theirs. */
export function websocketUrl(
  path: string,
  query: Record<string, string | number>,
  settings: ServerConnection.ISettings
): string {
  const params = Object.entries(query).map(
    ([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`
  );
  if (settings.appendToken && settings.token) {
    params.push(`token=${encodeURIComponent(settings.token)}`);
  }
  const url = URLExt.join(settings.wsUrl, API_NAMESPACE, path);
  return params.length ? `${url}?${params.join('&')}` : url;
}

export type StreamState =
  'connecting' | 'open' | 'reconnecting' | 'closed' | 'lost';

export namespace RunStream {
  export interface IOptions {
    runId: string;
    /** Events up to this seq are already known. */
    after?: number;
    onEvent: (event: RunEvent) => void;
    onState?: (state: StreamState) => void;
    settings?: ServerConnection.ISettings;
    /** Waits before reconnect attempts (ms); the last one repeats. */
    retryDelays?: number[];
    /** Give up after this many reconnects in a row that received nothing. */
    maxFailures?: number;
  }
}

export class RunStream implements IDisposable {
  constructor(options: RunStream.IOptions) {
    this.runId = options.runId;
    this._lastSeq = options.after ?? 0;
    this._onEvent = options.onEvent;
    this._onState = options.onState;
    this._settings = options.settings ?? ServerConnection.makeSettings();
    this._delays = options.retryDelays ?? [250, 500, 1000, 2000, 4000];
    this._maxFailures = options.maxFailures ?? 12;
    this._connect();
  }

  readonly runId: string;

  /** Seq of the last event delivered. */
  get lastSeq(): number {
    return this._lastSeq;
  }

  get finished(): boolean {
    return this._finished;
  }

  get isDisposed(): boolean {
    return this._disposed;
  }

  dispose(): void {
    if (this._disposed) {
      return;
    }
    this._disposed = true;
    clearTimeout(this._timer);
    const socket = this._socket;
    this._socket = null;
    if (socket) {
      socket.onclose = null;
      socket.onmessage = null;
      socket.onerror = null;
      socket.close();
    }
    this._setState('closed');
  }

  private _connect(): void {
    const url = websocketUrl(
      `runs/${encodeURIComponent(this.runId)}/stream`,
      { after: this._lastSeq },
      this._settings
    );
    this._setState(this._failures ? 'reconnecting' : 'connecting');
    let received = false;
    const socket = new this._settings.WebSocket(url);
    this._socket = socket;
    socket.onopen = () => this._setState('open');
    socket.onmessage = (msg: MessageEvent) => {
      let event: RunEvent;
      try {
        event = JSON.parse(msg.data);
      } catch {
        return; // not an event (the server only sends events)
      }
      if (typeof event.seq !== 'number' || event.seq <= this._lastSeq) {
        return;
      }
      received = true;
      this._failures = 0;
      this._lastSeq = event.seq;
      if (event.type === 'finished') {
        this._finished = true;
      }
      this._onEvent(event);
    };
    socket.onclose = () => {
      if (this._disposed || this._socket !== socket) {
        return;
      }
      this._socket = null;
      if (this._finished) {
        this._setState('closed');
        return;
      }
      // Closed before `finished`: a network blip or a server restart.
      this._failures = received ? 1 : this._failures + 1;
      if (this._failures > this._maxFailures) {
        this._setState('lost');
        return;
      }
      const delay =
        this._delays[Math.min(this._failures - 1, this._delays.length - 1)];
      this._setState('reconnecting');
      this._timer = setTimeout(() => {
        if (!this._disposed) {
          this._connect();
        }
      }, delay);
    };
  }

  private _setState(state: StreamState): void {
    if (state !== this._state) {
      this._state = state;
      this._onState?.(state);
    }
  }

  private _socket: WebSocket | null = null;
  private _lastSeq: number;
  private _finished = false;
  private _disposed = false;
  private _failures = 0;
  private _timer: ReturnType<typeof setTimeout> | undefined;
  private _state: StreamState | null = null;
  private _onEvent: (event: RunEvent) => void;
  private _onState?: (state: StreamState) => void;
  private _settings: ServerConnection.ISettings;
  private _delays: number[];
  private _maxFailures: number;
}
