/**
 * The panel renders what `/geoagent/status` answers, and shows errors
 * instead of a blank panel. Only `fetch` is mocked: `requestAPI`,
 * `ServerConnection` and the React rendering are the real ones.
 */
import { ServerConnection } from '@jupyterlab/services';
import { Widget } from '@lumino/widgets';
import { act } from 'react';

import { fetchStatus, IStatus, requestAPI } from '../api';
import { describeIndex } from '../components/StatusView';
import { GeoAgentPanel } from '../panel';

const BASE_URL = 'http://localhost:8888/lab-base/';

const STATUS: IStatus = {
  version: '0.1.0',
  model: 'local:qwen2.5-coder-1.5b',
  provider: 'local',
  index: {
    state: 'ready',
    location: '/data/index',
    records: 1204,
    libraries: { geopandas: '1.0.1', shapely: '2.1.0' }
  },
  approval_mode: false,
  inline_model: 'local:qwen2.5-coder-0.5b',
  kernels: { where: 'local', trials: 'fork', notes: [] },
  mcp_url: null,
  inline_loaded: false
};

/** Server settings whose fetch answers with `body` and records requests. */
function mockServer(
  body: unknown,
  init: ResponseInit = { status: 200 }
): { settings: ServerConnection.ISettings; requests: Request[] } {
  const requests: Request[] = [];
  const fetch = jest.fn(async (input: RequestInfo) => {
    requests.push(input as Request);
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    return new Response(text, init);
  });
  const settings = ServerConnection.makeSettings({
    baseUrl: BASE_URL,
    token: 'secret-token',
    fetch
  });
  return { settings, requests };
}

// React 18 renders roots asynchronously; inside `act` it flushes every render
// before returning, so assertions never race the renderer.
(globalThis as any).IS_REACT_ACT_ENVIRONMENT = true;

/** Create the panel, attach it (which starts a refresh) and refresh it. */
async function showPanel(
  options: GeoAgentPanel.IOptions
): Promise<GeoAgentPanel> {
  const panel = new GeoAgentPanel(options);
  await act(async () => {
    Widget.attach(panel, document.body);
    await panel.refresh();
  });
  return panel;
}

function query(panel: Widget, testid: string): HTMLElement | null {
  return panel.node.querySelector(`[data-testid="${testid}"]`);
}

describe('requestAPI', () => {
  it('GETs /geoagent/<endpoint> under the base URL with the token', async () => {
    const { settings, requests } = mockServer(STATUS);
    const status = await fetchStatus(settings);
    expect(status).toEqual(STATUS);
    expect(requests).toHaveLength(1);
    // ServerConnection appends a cache-busting query to GET requests.
    expect(requests[0].url.split('?')[0]).toBe(`${BASE_URL}geoagent/status`);
    expect(requests[0].method).toBe('GET');
    expect(requests[0].headers.get('Authorization')).toBe('token secret-token');
  });

  it('raises the server message on a JSON error', async () => {
    const { settings } = mockServer(
      { message: 'index is locked' },
      { status: 500, statusText: 'Internal Server Error' }
    );
    await expect(requestAPI('status', {}, settings)).rejects.toThrow(
      'index is locked'
    );
  });

  it('raises the HTTP status when the body is not JSON (extension missing)', async () => {
    const { settings } = mockServer('<html>404</html>', {
      status: 404,
      statusText: 'Not Found'
    });
    await expect(requestAPI('status', {}, settings)).rejects.toThrow(
      '404 Not Found'
    );
  });
});

describe('GeoAgentPanel', () => {
  let panel: GeoAgentPanel;

  afterEach(() => {
    act(() => panel.dispose()); // unmounting is a React update too
  });

  it('renders version, model, provider and index state from the server', async () => {
    const { settings } = mockServer(STATUS);
    panel = await showPanel({ serverSettings: settings });

    expect(panel.id).toBe('geoagent-panel');
    expect(query(panel, 'geoagent-status')?.dataset.state).toBe('ready');
    expect(query(panel, 'geoagent-status-version')?.textContent).toBe('0.1.0');
    expect(query(panel, 'geoagent-status-model')?.textContent).toBe(
      'local:qwen2.5-coder-1.5b'
    );
    expect(query(panel, 'geoagent-status-provider')?.textContent).toBe('local');
    expect(query(panel, 'geoagent-status-index-state')?.textContent).toBe(
      'ready, 1,204 records'
    );
    expect(query(panel, 'geoagent-status-index')?.textContent).toContain(
      'geopandas 1.0.1, shapely 2.1.0'
    );
    expect(query(panel, 'geoagent-status-approval')?.textContent).toBe('off');
    expect(query(panel, 'geoagent-status-error')).toBeNull();
  });

  it('shows the hint when the index is missing', async () => {
    const { settings } = mockServer({
      ...STATUS,
      index: { state: 'missing', hint: 'run `jupyter geoagent index build`' }
    });
    panel = await showPanel({ serverSettings: settings });

    expect(query(panel, 'geoagent-status-index-state')?.textContent).toBe(
      'missing'
    );
    const hint = query(panel, 'geoagent-status-index-hint');
    expect(hint?.textContent).toBe('run jupyter geoagent index build');
    expect(hint?.querySelector('code')?.textContent).toBe(
      'jupyter geoagent index build'
    );
  });

  it('says when the shared chroma server does not answer', async () => {
    const { settings } = mockServer({
      ...STATUS,
      index: {
        state: 'unreachable',
        location: 'db:8000',
        error: 'URLError: Connection refused',
        hint: 'check `chroma_host`/`chroma_port` and that the chroma server is up'
      }
    });
    panel = await showPanel({ serverSettings: settings });

    const badge = query(panel, 'geoagent-status-index-state');
    expect(badge?.textContent).toBe('unreachable (db:8000)');
    expect(badge?.className).toContain('jp-GeoAgent-badge-unreachable');
    expect(query(panel, 'geoagent-status-index')?.textContent).toContain(
      'Connection refused'
    );
    expect(query(panel, 'geoagent-status-index-hint')?.textContent).toBe(
      'check chroma_host/chroma_port and that the chroma server is up'
    );
  });

  it('shows the error, not a blank panel, when the server fails', async () => {
    const { settings } = mockServer(
      { message: 'boom: settings are broken' },
      { status: 500, statusText: 'Internal Server Error' }
    );
    panel = await showPanel({ serverSettings: settings });

    expect(query(panel, 'geoagent-status')?.dataset.state).toBe('error');
    const error = query(panel, 'geoagent-status-error');
    expect(error?.getAttribute('role')).toBe('alert');
    expect(query(panel, 'geoagent-status-error-message')?.textContent).toBe(
      'boom: settings are broken'
    );
    expect(query(panel, 'geoagent-status-version')).toBeNull();
  });

  it('shows a network error when the server cannot be reached', async () => {
    const settings = ServerConnection.makeSettings({
      baseUrl: BASE_URL,
      fetch: async () => {
        throw new TypeError('Failed to fetch');
      }
    });
    panel = await showPanel({ serverSettings: settings });

    expect(query(panel, 'geoagent-status-error-message')?.textContent).toBe(
      'Network error: Failed to fetch'
    );
  });

  it('keeps the newest answer when refreshes overlap', async () => {
    const answers: Array<(s: IStatus) => void> = [];
    panel = new GeoAgentPanel({
      loadStatus: () => new Promise<IStatus>(resolve => answers.push(resolve))
    });
    await act(async () => {
      Widget.attach(panel, document.body); // attaching starts a refresh too
      const first = panel.refresh();
      const second = panel.refresh();
      const newest = answers.pop()!;
      newest({ ...STATUS, model: 'openai:gpt-4o' });
      await second;
      // The older requests answer last; their answers must be dropped.
      answers.forEach(answer => answer({ ...STATUS, model: 'stale:model' }));
      await first;
    });

    expect(query(panel, 'geoagent-status-model')?.textContent).toBe(
      'openai:gpt-4o'
    );
  });

  it('refreshes when the refresh button is clicked', async () => {
    let calls = 0;
    panel = await showPanel({
      loadStatus: async () => ({ ...STATUS, version: `0.1.${calls++}` })
    });
    const before = calls;
    await act(async () => {
      query(panel, 'geoagent-refresh')!.click();
      // The click starts a refresh; a following refresh() call supersedes it.
      await panel.refresh();
    });
    expect(calls).toBe(before + 2);
    expect(query(panel, 'geoagent-status-version')?.textContent).toBe(
      `0.1.${calls - 1}`
    );
  });
});

describe('describeIndex', () => {
  it('summarises each index state in a few words', () => {
    expect(
      describeIndex({ state: 'ready', location: '/data/index', records: 3 })
    ).toBe('ready, 3 records');
    expect(
      describeIndex({ state: 'remote', location: 'db:8000', records: 1204 })
    ).toBe('remote (db:8000), 1,204 records');
    expect(describeIndex({ state: 'empty', location: 'db:8000' })).toBe(
      'empty (db:8000): no index built there'
    );
    expect(describeIndex({ state: 'unreachable', location: 'db:8000' })).toBe(
      'unreachable (db:8000)'
    );
    expect(describeIndex({ state: 'corrupt', location: '/data/index' })).toBe(
      'corrupt'
    );
  });
});
