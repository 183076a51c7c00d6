/**
 * Test doubles at the edges only: a scriptable WebSocket and a fetch that
 * records requests. Everything between (ServerConnection, the runs client,
 * the fold, React) is the real code.
 */
import { ServerConnection } from '@jupyterlab/services';

import { RunEvent } from '../runs/types';

export const BASE_URL = 'http://localhost:8888/lab-base/';

/** A WebSocket the test opens, feeds and drops by hand. */
export class FakeSocket {
  static OPEN = 1;
  static instances: FakeSocket[] = [];

  static reset(): void {
    FakeSocket.instances = [];
  }

  static last(): FakeSocket {
    return FakeSocket.instances[FakeSocket.instances.length - 1];
  }

  constructor(readonly url: string) {
    FakeSocket.instances.push(this);
  }

  readyState = 0;
  sent: any[] = [];
  closedByClient = false;
  onopen: ((e: any) => void) | null = null;
  onmessage: ((e: any) => void) | null = null;
  onclose: ((e: any) => void) | null = null;
  onerror: ((e: any) => void) | null = null;

  send(data: string): void {
    this.sent.push(JSON.parse(data));
  }

  close(): void {
    this.closedByClient = true;
    this.drop();
  }

  open(): void {
    this.readyState = 1;
    this.onopen?.({});
  }

  emit(message: unknown): void {
    this.onmessage?.({ data: JSON.stringify(message) });
  }

  /** The connection ends (server closed it or the network dropped). */
  drop(): void {
    this.readyState = 3;
    this.onclose?.({});
  }
}

export interface IRecordedRequest {
  method: string;
  url: string;
  path: string;
  body: any;
}

/**
 * Settings whose fetch answers from `routes` (path below /geoagent/ ->
 * body or [status, body]) and whose WebSocket is FakeSocket.
 */
export function fakeServer(
  routes: Record<string, unknown | ((req: IRecordedRequest) => unknown)> = {}
): { settings: ServerConnection.ISettings; requests: IRecordedRequest[] } {
  const requests: IRecordedRequest[] = [];
  const fetch = jest.fn(async (input: RequestInfo) => {
    const request = input as Request;
    const text = await request.text();
    const path = request.url.split('?')[0].replace(`${BASE_URL}geoagent/`, '');
    const recorded: IRecordedRequest = {
      method: request.method,
      url: request.url,
      path,
      body: text ? JSON.parse(text) : undefined
    };
    requests.push(recorded);
    let answer = routes[`${request.method} ${path}`] ?? routes[path];
    if (typeof answer === 'function') {
      answer = (answer as (r: IRecordedRequest) => unknown)(recorded);
    }
    if (answer instanceof Response) {
      return answer;
    }
    if (answer === undefined) {
      // What Jupyter answers for a route nobody registered: an HTML page.
      return new Response('<html>404: Not Found</html>', {
        status: 404,
        headers: { 'Content-Type': 'text/html' }
      });
    }
    const [status, body] =
      Array.isArray(answer) && typeof answer[0] === 'number'
        ? (answer as [number, unknown])
        : [200, answer];
    return new Response(JSON.stringify(body), {
      status,
      headers: { 'Content-Type': 'application/json' }
    });
  });
  const settings = ServerConnection.makeSettings({
    baseUrl: BASE_URL,
    wsUrl: 'ws://localhost:8888/lab-base/',
    token: 'secret-token',
    appendToken: true,
    fetch,
    WebSocket: FakeSocket as any
  });
  return { settings, requests };
}

let seq = 0;
/** An event with the envelope filled in (seq counts up per test file). */
export function ev(body: Record<string, unknown>, runId = 'run1'): RunEvent {
  seq += 1;
  return {
    run_id: runId,
    seq,
    ts: new Date(1_700_000_000_000 + seq * 1000).toISOString(),
    ...body
  } as RunEvent;
  // (bodies may carry their own `ts`, e.g. "now" for events that must not look like history)
}

export function resetSeq(): void {
  seq = 0;
}

export function result(status = 'ok', extra: Record<string, unknown> = {}) {
  return {
    status,
    stdout: '',
    stderr: '',
    outputs: [],
    error: null,
    ename: null,
    duration_s: 0.5,
    warnings: [],
    ...extra
  };
}

/** React 18 flushes renders inside `act`; mark the environment as such. */
(globalThis as any).IS_REACT_ACT_ENVIRONMENT = true;
