/**
 * The inline completion provider: what it sends, how it streams, and that
 * typing on cancels the suggestion being generated.
 */
import { InlineCompletionTriggerKind } from '@jupyterlab/completer';
import { Widget } from '@lumino/widgets';

import {
  buildRequest,
  GeoAgentInlineProvider,
  previousCells
} from '../completion/provider';
import { CompletionSocket } from '../completion/socket';
import { FakeSocket, fakeServer } from './fakes';

/** Just enough of a NotebookPanel: path, cells and the active cell. */
function notebookWidget(
  sources: Array<[string, string]>,
  active: number
): Widget {
  const widget = new Widget() as any;
  widget.context = { path: 'work/analysis.ipynb' };
  widget.content = {
    activeCellIndex: active,
    widgets: sources.map(([type, source]) => ({
      model: { type, sharedModel: { getSource: () => source } }
    }))
  };
  return widget;
}

const CELLS: Array<[string, string]> = [
  ['code', 'import geopandas as gpd'],
  ['markdown', '# Parcels'],
  ['code', 'parcels = gpd.read_file("parcels.gpkg")'],
  ['code', '   '],
  ['code', 'parcels.to_']
];

function context(widget = notebookWidget(CELLS, 4)) {
  return {
    widget,
    triggerKind: InlineCompletionTriggerKind.Automatic,
    session: { kernel: { id: 'kernel-7' } } as any
  };
}

const request = (
  text: string,
  offset = text.length,
  mimeType = 'text/x-ipython'
) => ({ text, offset, mimeType });

async function flush(): Promise<void> {
  for (let i = 0; i < 5; i++) {
    await Promise.resolve();
  }
}

beforeEach(() => FakeSocket.reset());

describe('buildRequest', () => {
  it('splits the cell at the cursor and sends earlier code cells, path and kernel', () => {
    expect(
      buildRequest(request('x = 1\nparcels.to_\nprint(x)', 17), context())
    ).toEqual({
      cell_text_before: 'x = 1\nparcels.to_',
      cell_text_after: '\nprint(x)',
      previous_cells: [
        'import geopandas as gpd',
        'parcels = gpd.read_file("parcels.gpkg")'
      ],
      notebook_path: 'work/analysis.ipynb',
      kernel_id: 'kernel-7'
    });
  });

  it('counts the offset in characters, as JupyterLab does (not UTF-16 units)', () => {
    // '🌍' is one character but two JS units.
    const text = 'label = "🌍"\nparcels.';
    const built = buildRequest(request(text, [...text].length), context());
    expect(built.cell_text_before).toBe(text);
    expect(built.cell_text_after).toBe('');
  });

  it('has no earlier cells outside notebooks', () => {
    expect(previousCells(new Widget())).toEqual([]);
  });
});

describe('GeoAgentInlineProvider', () => {
  function setup() {
    const { settings } = fakeServer();
    const provider = new GeoAgentInlineProvider(new CompletionSocket(settings));
    return { provider };
  }

  it('is off by default and lets JupyterLab debounce and time it out', () => {
    const { provider } = setup();
    expect(provider.identifier).toBe('geoagent');
    expect(provider.schema.default).toEqual({
      enabled: false,
      debouncerDelay: 250,
      timeout: 20000
    });
  });

  it('returns the first text, then streams the rest of the suggestion', async () => {
    const { provider } = setup();
    const fetched = provider.fetch(request('parcels.to_'), context());
    const ws = FakeSocket.last();
    expect(ws.url).toBe(
      'ws://localhost:8888/lab-base/geoagent/complete/stream?token=secret-token'
    );
    ws.open();
    expect(ws.sent).toHaveLength(1);
    const sent = ws.sent[0];
    expect(sent).toMatchObject({
      type: 'complete',
      cell_text_before: 'parcels.to_',
      kernel_id: 'kernel-7',
      notebook_path: 'work/analysis.ipynb'
    });
    ws.emit({ type: 'text', id: sent.id, text: 'crs(' });
    const list = await fetched;
    expect(list.items).toEqual([
      { insertText: 'crs(', isIncomplete: true, token: sent.id }
    ]);

    const streamed: string[] = [];
    const done = (async () => {
      for await (const { response } of provider.stream!(sent.id)) {
        streamed.push(response.insertText);
      }
    })();
    ws.emit({ type: 'text', id: sent.id, text: 'crs(epsg=' });
    await flush();
    ws.emit({ type: 'text', id: sent.id, text: 'crs(epsg=3035)' });
    ws.emit({
      type: 'done',
      id: sent.id,
      text: 'crs(epsg=3035)',
      seconds: 0.2
    });
    await done;
    expect(streamed[streamed.length - 1]).toBe('crs(epsg=3035)');
    expect(streamed).toContain('crs(epsg=');
  });

  it('cancels the previous suggestion on the server when the user types on', async () => {
    const { provider } = setup();
    const first = provider.fetch(request('parcels.to'), context());
    const ws = FakeSocket.last();
    ws.open();
    const firstId = ws.sent[0].id;
    const second = provider.fetch(request('parcels.to_'), context());
    // The older one ends empty right away; the server heard "cancel".
    expect((await first).items).toEqual([]);
    expect(ws.sent.map(m => [m.type, m.id])).toEqual([
      ['complete', firstId],
      ['cancel', firstId],
      ['complete', ws.sent[2].id]
    ]);
    // A late message for the cancelled request is ignored.
    ws.emit({ type: 'text', id: firstId, text: 'stale' });
    ws.emit({ type: 'done', id: ws.sent[2].id, text: 'crs()', seconds: 0.1 });
    expect((await second).items).toEqual([{ insertText: 'crs()' }]);
    expect(FakeSocket.instances).toHaveLength(1); // one socket serves every keystroke
  });

  it('shows nothing for empty answers, markdown cells and blank lines; shows server errors', async () => {
    const { provider } = setup();
    expect(
      (
        await provider.fetch(
          request('# Title', 7, 'text/x-ipythongfm'),
          context()
        )
      ).items
    ).toEqual([]);
    expect((await provider.fetch(request('   '), context())).items).toEqual([]);
    expect(FakeSocket.instances).toHaveLength(0);

    const empty = provider.fetch(request('x = '), context());
    const ws = FakeSocket.last();
    ws.open();
    ws.emit({ type: 'done', id: ws.sent[0].id, text: '', seconds: 0.1 });
    expect((await empty).items).toEqual([]);

    const failing = provider.fetch(request('y = '), context());
    ws.emit({
      type: 'error',
      id: ws.sent[1].id,
      message: 'Invalid model spec'
    });
    expect((await failing).items).toEqual([
      { insertText: '', error: { message: 'GeoAgent: Invalid model spec' } }
    ]);
  });

  it('asks the server to load its model when suggestions are turned on, and only then', () => {
    const { provider } = setup();
    provider.configure!({
      enabled: false,
      debouncerDelay: 250,
      timeout: 20000
    });
    expect(FakeSocket.instances).toHaveLength(0); // off: the server loads nothing
    provider.configure!({ enabled: true, debouncerDelay: 250, timeout: 20000 });
    const ws = FakeSocket.last();
    ws.open();
    expect(ws.sent.map(m => m.type)).toEqual(['warm']);
    provider.configure!({ enabled: true, debouncerDelay: 500, timeout: 20000 }); // another setting changed
    provider.configure!({
      enabled: false,
      debouncerDelay: 500,
      timeout: 20000
    });
    provider.configure!({ enabled: true, debouncerDelay: 500, timeout: 20000 }); // on again
    expect(ws.sent.map(m => m.type)).toEqual(['warm', 'warm']);
    expect(new Set(ws.sent.map(m => m.id)).size).toBe(2);
  });

  it('reconnects on the next request after the socket dropped', async () => {
    const { provider } = setup();
    const pending = provider.fetch(request('a.'), context());
    FakeSocket.last().open();
    FakeSocket.last().drop();
    expect((await pending).items[0].error?.message).toContain('connection');
    const next = provider.fetch(request('a.b'), context());
    expect(FakeSocket.instances).toHaveLength(2);
    const ws = FakeSocket.last();
    ws.open();
    ws.emit({ type: 'done', id: ws.sent[0].id, text: 'c', seconds: 0 });
    expect((await next).items).toEqual([{ insertText: 'c' }]);
  });
});
