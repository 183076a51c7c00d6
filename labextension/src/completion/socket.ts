/**
 * The client side of `WS /geoagent/complete/stream` (protocol in
 * `geoagent_ext/handlers/complete.py`): one socket per page, opened on the
 * first request and again after it drops.
 *
 * Each request is a `Suggestion`: a promise for its first text and an async
 * iterator of every later (whole) text. `cancel()` tells the server to stop
 * generating and ends the iterator, which is what happens to the previous
 * suggestion whenever the user types on.
 */
import { ServerConnection } from '@jupyterlab/services';
import { PromiseDelegate } from '@lumino/coreutils';

import { websocketUrl } from '../runs/client';
import type { CompletionRequest } from '../runs/rest.generated';

/** A suggestion request: the body of `POST /geoagent/complete` (generated `CompletionRequest`). */
export type ICompletionRequest = CompletionRequest;

/** `WebSocket.OPEN`, without relying on a global `WebSocket` (tests inject one). */
const OPEN = 1;

type ServerMessage =
  | { type: 'text'; id: string; text: string }
  | { type: 'done'; id: string; text: string; seconds: number }
  | { type: 'error'; id: string | null; message: string };

/** One suggestion being generated. */
export class Suggestion {
  constructor(
    readonly id: string,
    private _onCancel: (s: Suggestion) => void
  ) {
    // Nobody may await `first` (a superseded fetch): do not report it as unhandled.
    this._first.promise.catch(() => undefined);
  }

  /** The latest whole text. */
  text = '';
  done = false;
  cancelled = false;
  error: string | null = null;

  /**
   * Resolves with the first non-empty text, or with '' when the suggestion
   * ended without any (done empty, or cancelled); rejects on a server error.
   */
  get first(): Promise<string> {
    return this._first.promise;
  }

  /** Every text after `seen` (what the caller has shown), until done, cancelled or failed. */
  async *updates(seen = ''): AsyncGenerator<string> {
    while (true) {
      if (this.text !== seen) {
        seen = this.text;
        yield seen;
        continue;
      }
      if (this.done || this.cancelled || this.error !== null) {
        return;
      }
      await new Promise<void>(resolve => (this._wake = resolve));
    }
  }

  cancel(): void {
    if (this.done || this.cancelled || this.error !== null) {
      return; // over already: nothing to stop on the server
    }
    this.cancelled = true;
    this._onCancel(this);
    this._settle();
  }

  /** @internal */
  receive(message: ServerMessage): void {
    if (this.cancelled || this.done) {
      return;
    }
    if (message.type === 'error') {
      this.error = message.message;
      this._first.reject(new Error(message.message));
    } else {
      this.text = message.text;
      if (message.type === 'done') {
        this.done = true;
        this._settle();
      } else if (this.text) {
        this._first.resolve(this.text);
      }
    }
    this._wakeUp();
  }

  /** @internal ended here without telling the server. */
  end(): void {
    if (this.done || this.cancelled) {
      return;
    }
    this.cancelled = true;
    this._settle();
  }

  /** @internal the socket closed under this suggestion. */
  fail(message: string): void {
    this.receive({ type: 'error', id: this.id, message });
  }

  private _settle(): void {
    this._first.resolve(this.text);
    this._wakeUp();
  }

  private _wakeUp(): void {
    const wake = this._wake;
    this._wake = null;
    wake?.();
  }

  private _first = new PromiseDelegate<string>();
  private _wake: (() => void) | null = null;
}

export class CompletionSocket {
  constructor(settings?: ServerConnection.ISettings) {
    this._settings = settings ?? ServerConnection.makeSettings();
  }

  /** Start a suggestion; the previous one (if any) is cancelled by the server too. */
  complete(request: ICompletionRequest): Suggestion {
    const id = `c${++this._counter}`;
    const suggestion = new Suggestion(id, s => {
      this._pending.delete(s.id);
      this._send({ type: 'cancel', id: s.id });
    });
    for (const older of this._pending.values()) {
      older.end(); // the server drops it on the new request by itself
    }
    this._pending.clear();
    this._pending.set(id, suggestion);
    this._send({ type: 'complete', id, ...request });
    return suggestion;
  }

  /** Ask the server to load its inline model now: suggestions were turned on. */
  warm(): void {
    this._send({ type: 'warm', id: `w${++this._counter}` });
  }

  dispose(): void {
    this._disposed = true;
    this._socket?.close();
    this._socket = null;
  }

  private _send(message: Record<string, unknown>): void {
    if (this._disposed) {
      return;
    }
    const socket = this._ensure();
    if (socket.readyState === OPEN) {
      socket.send(JSON.stringify(message));
    } else {
      this._queue.push(JSON.stringify(message));
    }
  }

  private _ensure(): WebSocket {
    if (this._socket) {
      return this._socket;
    }
    const socket = new this._settings.WebSocket(
      websocketUrl('complete/stream', {}, this._settings)
    );
    this._socket = socket;
    socket.onopen = () => {
      const queued = this._queue;
      this._queue = [];
      queued.forEach(m => socket.send(m));
    };
    socket.onmessage = (msg: MessageEvent) => {
      let data: ServerMessage;
      try {
        data = JSON.parse(msg.data);
      } catch {
        return;
      }
      const target = data.id ? this._pending.get(data.id) : undefined;
      if (!target) {
        return; // a superseded request's late message
      }
      target.receive(data);
      if (data.type !== 'text') {
        this._pending.delete(target.id);
      }
    };
    socket.onclose = () => {
      if (this._socket === socket) {
        this._socket = null;
      }
      this._queue = [];
      for (const s of this._pending.values()) {
        s.fail('the connection to the GeoAgent server closed');
      }
      this._pending.clear();
    };
    return socket;
  }

  private _settings: ServerConnection.ISettings;
  private _socket: WebSocket | null = null;
  private _queue: string[] = [];
  private _pending = new Map<string, Suggestion>();
  private _counter = 0;
  private _disposed = false;
}
