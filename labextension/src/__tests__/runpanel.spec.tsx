/**
 * The panel end to end against a scripted server: request -> run -> live
 * plan -> cells in the notebook -> fix -> finished. Only fetch, the
 * WebSocket and the notebook's widget are stand-ins; the panel, client,
 * fold, writer and React views are real.
 */
import { EditorView } from '@codemirror/view';
import { YNotebook } from '@jupyter/ydoc';
import { Notification } from '@jupyterlab/apputils';
import { MessageLoop } from '@lumino/messaging';
import { Signal } from '@lumino/signaling';
import { Widget } from '@lumino/widgets';
import { act } from 'react';

import { INotebookAccess, INotebookHandle } from '../notebook/access';
import { GeoAgentPanel } from '../panel';
import { IRecordedRequest } from './fakes';
import { ev, FakeSocket, fakeServer, resetSeq, result } from './fakes';

const STATUS = {
  version: '0.1.0',
  model: 'scripted:x.py',
  provider: 'scripted',
  index: { state: 'missing' },
  approval_mode: false
};

const MODELS = {
  default: 'scripted:x.py',
  models: [
    {
      id: 'scripted:x.py',
      label: 'scripted:x.py (configured)',
      provider: 'scripted',
      available: true,
      detail: '',
      default: true
    },
    {
      id: 'local:qwen2.5-coder-1.5b',
      label: 'qwen2.5-coder-1.5b (local, no key)',
      provider: 'local',
      available: false,
      detail: 'no weights yet',
      default: false
    }
  ]
};

class Notebooks implements INotebookAccess {
  model = new YNotebook();
  path = 'work/parcels.ipynb';
  open = true;
  changed: Signal<INotebookAccess, void> = new Signal<INotebookAccess, void>(
    this
  );

  constructor() {
    this.model.insertCells(0, [
      {
        id: 'mine',
        cell_type: 'code',
        source: 'parcels = load()',
        metadata: {},
        outputs: [],
        execution_count: 1
      },
      { id: 'later', cell_type: 'markdown', source: 'notes', metadata: {} }
    ]);
  }

  current(): INotebookHandle | null {
    return this.open
      ? { path: this.path, model: this.model, activeCellId: 'mine' }
      : null;
  }

  find(path: string): INotebookHandle | null {
    return path === this.path ? this.current() : null;
  }
}

async function settle(): Promise<void> {
  await act(async () => {
    for (let i = 0; i < 6; i++) {
      await new Promise(resolve => setTimeout(resolve, 0));
      MessageLoop.flush();
    }
  });
}

function q(panel: Widget, testid: string): HTMLElement | null {
  return panel.node.querySelector(`[data-testid="${testid}"]`);
}

function qa(panel: Widget, testid: string): HTMLElement[] {
  return Array.from(panel.node.querySelectorAll(`[data-testid="${testid}"]`));
}

function type(el: HTMLElement, value: string): void {
  const proto =
    el instanceof HTMLTextAreaElement
      ? HTMLTextAreaElement.prototype
      : HTMLInputElement.prototype;
  Object.getOwnPropertyDescriptor(proto, 'value')!.set!.call(el, value);
  el.dispatchEvent(new Event('input', { bubbles: true }));
}

const posts = (requests: IRecordedRequest[], path: string) =>
  requests.filter(r => r.method === 'POST' && r.path === path).map(r => r.body);

let panel: GeoAgentPanel;

beforeEach(() => {
  resetSeq();
  FakeSocket.reset();
});

afterEach(() => {
  act(() => panel.dispose());
});

async function openPanel(routes: Record<string, unknown> = {}) {
  const notebooks = new Notebooks();
  const server = fakeServer({
    status: STATUS,
    models: MODELS,
    'GET runs': { runs: [] },
    'POST runs': [201, { run_id: 'run1', status: 'running' }],
    'POST runs/run1/actions': { run_id: 'run1' },
    'POST runs/run1/cancel': [202, { run_id: 'run1', cancelling: true }],
    ...routes
  });
  panel = new GeoAgentPanel({ serverSettings: server.settings, notebooks });
  await act(async () => {
    Widget.attach(panel, document.body);
    await panel.refresh();
  });
  await settle();
  return { notebooks, ...server };
}

async function submit(request: string, configure?: () => void) {
  type(q(panel, 'geoagent-request-text')!, request);
  configure?.();
  await settle();
  await act(async () =>
    (q(panel, 'geoagent-run') as HTMLButtonElement).click()
  );
  await settle();
}

async function stream(...events: Array<Record<string, unknown>>) {
  const socket = FakeSocket.last();
  await act(async () => {
    if (socket.readyState !== 1) {
      socket.open();
    }
    events.forEach(e => socket.emit(ev(e)));
  });
  await settle();
}

const PLAN = [
  { id: 's1', description: 'Load the parcels' },
  { id: 's2', description: 'Compute the areas' },
  { id: 's3', description: 'Map them' }
];

describe('GeoAgentPanel runs', () => {
  it('starts a run on the current notebook, shows its plan, writes cells and takes a fix', async () => {
    const { requests, notebooks } = await openPanel();
    expect(q(panel, 'geoagent-request-target')!.textContent).toBe(
      'Runs in work/parcels.ipynb'
    );
    const picker = q(panel, 'geoagent-model') as HTMLSelectElement;
    expect(picker.value).toBe('scripted:x.py');
    expect(Array.from(picker.options).map(o => [o.value, o.disabled])).toEqual([
      ['scripted:x.py', false],
      ['local:qwen2.5-coder-1.5b', true]
    ]);

    await submit('areas of the parcels, mapped', () => {
      const strategy = q(panel, 'geoagent-strategy') as HTMLSelectElement;
      strategy.value = 'mcts';
      strategy.dispatchEvent(new Event('change', { bubbles: true }));
    });
    expect(posts(requests, 'runs')).toEqual([
      {
        request: 'areas of the parcels, mapped',
        notebook_path: 'work/parcels.ipynb',
        strategy: 'mcts',
        approval_mode: false,
        model: 'scripted:x.py'
      }
    ]);
    expect(FakeSocket.last().url).toContain(
      '/geoagent/runs/run1/stream?after=0'
    );
    expect((q(panel, 'geoagent-run') as HTMLButtonElement).disabled).toBe(true); // one run at a time

    await stream(
      {
        type: 'run_started',
        request: 'areas of the parcels, mapped',
        model: 'scripted:x.py',
        notebook: 'work/parcels.ipynb',
        kernel_id: 'k',
        strategy: 'loop',
        approval_mode: false
      },
      { type: 'planned', subtasks: PLAN, libraries: [] },
      {
        type: 'subtask_started',
        subtask_id: 's1',
        index: 0,
        description: PLAN[0].description
      },
      {
        type: 'code_proposed',
        subtask_id: 's1',
        attempt: 1,
        code: 'parcels = gpd.read_file("p.gpkg")',
        node_id: null,
        parent_id: null
      },
      {
        type: 'solved',
        subtask_id: 's1',
        code: 'parcels = gpd.read_file("p.gpkg")',
        attempts: 1,
        by: 'agent',
        result: result('ok', {
          outputs: [
            { output_type: 'stream', name: 'stdout', text: '12 parcels\n' }
          ]
        })
      },
      {
        type: 'subtask_started',
        subtask_id: 's2',
        index: 1,
        description: PLAN[1].description
      }
    );
    expect(qa(panel, 'geoagent-subtask').map(s => s.dataset.status)).toEqual([
      'solved',
      'running',
      'pending'
    ]);
    expect(q(panel, 'geoagent-run-status')!.textContent).toContain('working');
    // Subtask 1's cells are below the active cell; the user's cells are unchanged.
    const sources = () => notebooks.model.cells.map(c => c.getSource());
    expect(sources()).toEqual([
      'parcels = load()',
      '### GeoAgent step 1: Load the parcels',
      'parcels = gpd.read_file("p.gpkg")',
      'notes'
    ]);
    expect((notebooks.model.cells[2] as any).getOutputs()[0].text).toBe(
      '12 parcels\n'
    );

    await stream(
      {
        type: 'code_proposed',
        subtask_id: 's2',
        attempt: 1,
        code: "parcels['area_m2'].sum()",
        node_id: null,
        parent_id: null
      },
      {
        type: 'executed',
        subtask_id: 's2',
        attempt: 1,
        code: "parcels['area_m2'].sum()",
        trial: true,
        node_id: null,
        result: result('error', { error: "KeyError: 'area_m2'" })
      },
      {
        type: 'code_proposed',
        subtask_id: 's2',
        attempt: 2,
        code: "parcels['area'].sum()",
        node_id: null,
        parent_id: null
      },
      {
        type: 'repaired',
        subtask_id: 's2',
        attempt: 2,
        strategy: 'data_profile',
        diagnosis: 'no such column',
        diff: ''
      },
      {
        type: 'executed',
        subtask_id: 's2',
        attempt: 2,
        code: "parcels['area'].sum()",
        trial: true,
        node_id: null,
        result: result('error', { error: "KeyError: 'area'" })
      },
      {
        type: 'needs_human',
        subtask_id: 's2',
        code: "parcels['area'].sum()",
        error: "KeyError: 'area'",
        attempts: 2
      }
    );
    // The stuck subtask opens by itself, with the editor, the error and the diff.
    expect(q(panel, 'geoagent-run-status')!.textContent).toContain('needs you');
    expect(q(panel, 'geoagent-subtask-detail')!.dataset.subtask).toBe('s2');
    expect(q(panel, 'geoagent-fix-error')!.textContent).toContain(
      "KeyError: 'area'"
    );
    await act(async () => q(panel, 'geoagent-tab-changes')!.click());
    expect(
      q(panel, 'geoagent-diff-view')!.querySelector('.cm-deletedChunk')!
        .textContent
    ).toContain("parcels['area_m2']");

    const editor = EditorView.findFromDOM(
      q(panel, 'geoagent-fix-code')!.querySelector('.cm-content') as HTMLElement
    )!;
    act(() =>
      editor.dispatch({
        changes: {
          from: 0,
          to: editor.state.doc.length,
          insert: 'parcels.area.sum()'
        }
      })
    );
    await act(async () => q(panel, 'geoagent-fix-run')!.click());
    await settle();
    expect(posts(requests, 'runs/run1/actions')).toEqual([
      { kind: 'edit', subtask_id: 's2', code: 'parcels.area.sum()' }
    ]);

    await stream(
      {
        type: 'human_edit_applied',
        subtask_id: 's2',
        code: 'parcels.area.sum()',
        result: result(),
        accepted: true
      },
      {
        type: 'solved',
        subtask_id: 's2',
        code: 'parcels.area.sum()',
        attempts: 2,
        result: result(),
        by: 'human'
      },
      {
        type: 'subtask_started',
        subtask_id: 's3',
        index: 2,
        description: PLAN[2].description
      },
      {
        type: 'solved',
        subtask_id: 's3',
        code: 'parcels.explore()',
        attempts: 1,
        result: result(),
        by: 'agent'
      },
      {
        type: 'finished',
        status: 'succeeded',
        message: '3 step(s) done',
        stats: { llm_calls: 4, attempts: 4, subtasks: 3, solved: 3 }
      }
    );
    expect(q(panel, 'geoagent-run-status')!.textContent).toContain('succeeded');
    expect(q(panel, 'geoagent-run-message')!.textContent).toBe(
      '3 step(s) done · 4 model calls, 4 attempts · 6 cells added to the notebook'
    );
    expect(q(panel, 'geoagent-cancel')).toBeNull();
    expect(sources()).toEqual([
      'parcels = load()',
      '### GeoAgent step 1: Load the parcels',
      'parcels = gpd.read_file("p.gpkg")',
      '### GeoAgent step 2: Compute the areas (your fix)',
      'parcels.area.sum()',
      '### GeoAgent step 3: Map them',
      'parcels.explore()',
      'notes'
    ]);
    expect((q(panel, 'geoagent-run') as HTMLButtonElement).disabled).toBe(
      false
    );
  });

  it('shows the server message when a run cannot start, and asks for a notebook', async () => {
    const { notebooks } = await openPanel({
      'POST runs': [
        409,
        {
          message: 'No running kernel session for work/parcels.ipynb',
          status: 409
        }
      ]
    });
    await submit('anything');
    expect(q(panel, 'geoagent-start-error')!.textContent).toBe(
      'No running kernel session for work/parcels.ipynb'
    );
    expect(q(panel, 'geoagent-run-view')).toBeNull();

    notebooks.open = false;
    await act(async () => notebooks.changed.emit());
    await settle();
    expect(q(panel, 'geoagent-request-target')!.textContent).toBe(
      'Open a notebook: GeoAgent runs code in its kernel.'
    );
    expect((q(panel, 'geoagent-run') as HTMLButtonElement).disabled).toBe(true);
  });

  it('waits for approval, sends approve / reject, and cancels', async () => {
    const { requests } = await openPanel();
    await submit('cautious', () => {
      const box = q(panel, 'geoagent-approval') as HTMLInputElement;
      box.click();
    });
    expect(posts(requests, 'runs')[0].approval_mode).toBe(true);
    await stream(
      {
        type: 'run_started',
        request: 'cautious',
        model: 'm',
        notebook: 'work/parcels.ipynb',
        kernel_id: 'k',
        strategy: 'loop',
        approval_mode: true
      },
      { type: 'planned', subtasks: PLAN.slice(0, 1), libraries: [] },
      {
        type: 'subtask_started',
        subtask_id: 's1',
        index: 0,
        description: PLAN[0].description
      },
      {
        type: 'approval_requested',
        subtask_id: 's1',
        code: 'import os\nos.listdir()'
      }
    );
    expect(q(panel, 'geoagent-subtask')!.dataset.status).toBe(
      'awaiting_approval'
    );
    expect(q(panel, 'geoagent-subtask-label')!.textContent).toBe(
      'needs approval'
    );
    type(q(panel, 'geoagent-approval-feedback')!, 'no file listing please');
    await act(async () => q(panel, 'geoagent-reject')!.click());
    await act(async () => q(panel, 'geoagent-approve')!.click());
    await settle();
    expect(posts(requests, 'runs/run1/actions')).toEqual([
      { kind: 'reject', subtask_id: 's1', text: 'no file listing please' },
      { kind: 'approve', subtask_id: 's1', text: 'no file listing please' }
    ]);
    await act(async () => q(panel, 'geoagent-cancel')!.click());
    await settle();
    expect(posts(requests, 'runs/run1/cancel')).toEqual([{}]);
  });

  it('reviews the contract before planning: the server refuses an edit, then takes it, and the checks follow', async () => {
    let refuse = true;
    const { requests } = await openPanel({
      'POST runs/run1/actions': () =>
        refuse
          ? [
              400,
              {
                message:
                  "'out/other.csv' is not an output of this run (out/areas.csv)",
                status: 400
              }
            ]
          : { run_id: 'run1' }
    });
    await submit('areas per parcel to out/areas.csv', () =>
      (q(panel, 'geoagent-approval') as HTMLInputElement).click()
    );
    const contract = {
      outputs: [{ path: 'out/areas.csv', format: 'CSV' }],
      requirements: [
        {
          id: 'r1',
          output: 'out/areas.csv',
          text: 'has columns parcel_id, area_m2',
          kind: 'columns',
          params: { names: ['parcel_id', 'area_m2'] },
          origin: 'request',
          said: '',
          sure: true
        },
        {
          id: 'r2',
          output: 'out/areas.csv',
          text: 'is easy to read',
          kind: 'note',
          params: {},
          origin: 'request',
          said: '',
          sure: true
        }
      ]
    };
    await stream(
      {
        type: 'run_started',
        request: 'areas per parcel to out/areas.csv',
        model: 'm',
        notebook: 'work/parcels.ipynb',
        kernel_id: 'k',
        strategy: 'loop',
        approval_mode: true
      },
      {
        type: 'contract_stated',
        contract,
        by: 'request',
        awaiting_review: true
      }
    );
    expect(q(panel, 'geoagent-run-status')!.textContent).toContain(
      'needs review'
    );
    expect(q(panel, 'geoagent-plan-empty')!.textContent).toBe(
      'The agent plans once you have reviewed the requirements.'
    );
    expect(q(panel, 'geoagent-subtask-detail')).toBeNull();
    act(() =>
      (q(panel, 'geoagent-requirement-delete') as HTMLButtonElement).click()
    ); // r1 goes
    type(q(panel, 'geoagent-requirement-new')!, 'area_m2 is not negative');
    await act(async () => q(panel, 'geoagent-requirement-add')!.click());
    await act(async () => q(panel, 'geoagent-contract-use')!.click());
    await settle();
    const sent = {
      kind: 'contract',
      subtask_id: 'contract',
      requirements: [
        { id: 'r2', output: 'out/areas.csv', text: 'is easy to read' },
        { id: '', output: 'out/areas.csv', text: 'area_m2 is not negative' }
      ]
    };
    expect(posts(requests, 'runs/run1/actions')).toEqual([sent]);
    expect(q(panel, 'geoagent-action-error')!.textContent).toBe(
      "Not sent: 'out/other.csv' is not an output of this run (out/areas.csv)"
    );
    expect(
      qa(panel, 'geoagent-requirement-input').map(
        i => (i as HTMLInputElement).value
      )
    ).toEqual(['is easy to read', 'area_m2 is not negative']);

    refuse = false;
    await act(async () => q(panel, 'geoagent-contract-use')!.click());
    await settle();
    expect(posts(requests, 'runs/run1/actions')).toEqual([sent, sent]);
    expect(q(panel, 'geoagent-action-error')).toBeNull();

    const reviewed = {
      ...contract,
      requirements: [
        contract.requirements[1],
        {
          id: 'u2',
          output: 'out/areas.csv',
          text: 'area_m2 is not negative',
          kind: 'non_negative',
          params: { name: 'area_m2' },
          origin: 'user',
          said: 'area_m2 is not negative',
          sure: true
        }
      ]
    };
    await stream(
      {
        type: 'contract_stated',
        contract: reviewed,
        by: 'user',
        awaiting_review: false
      },
      { type: 'planned', subtasks: PLAN.slice(0, 1), libraries: [] },
      {
        type: 'subtask_started',
        subtask_id: 's1',
        index: 0,
        description: PLAN[0].description
      },
      {
        type: 'requirement_checked',
        requirement_id: 'u2',
        output: 'out/areas.csv',
        text: 'area_m2 is not negative',
        passed: false,
        observed: 'min area_m2 = -3.5',
        subtask_id: 's1'
      },
      {
        type: 'finished',
        status: 'partial',
        message: 'a requirement is not met',
        stats: { llm_calls: 2, attempts: 1 },
        unmet: ['area_m2 is not negative — min area_m2 = -3.5'],
        not_verified: ['is easy to read']
      }
    );
    expect(q(panel, 'geoagent-contract-editor')).toBeNull();
    expect(
      qa(panel, 'geoagent-requirement').map(r => [
        r.dataset.requirement,
        r.dataset.status
      ])
    ).toEqual([
      ['r2', 'not_verifiable'],
      ['u2', 'unmet']
    ]);
    expect(q(panel, 'geoagent-requirement-observed')!.textContent).toBe(
      'seen: min area_m2 = -3.5'
    );
    expect(qa(panel, 'geoagent-requirement-you')).toHaveLength(1);
    expect(q(panel, 'geoagent-contract-unmet')!.textContent).toContain(
      'area_m2 is not negative — min area_m2 = -3.5'
    );
    expect(q(panel, 'geoagent-contract-not-verified')!.textContent).toContain(
      'is easy to read'
    );
  });

  it('accepts the contract as proposed', async () => {
    const { requests } = await openPanel();
    await submit('areas', () =>
      (q(panel, 'geoagent-approval') as HTMLInputElement).click()
    );
    await stream(
      {
        type: 'run_started',
        request: 'areas',
        model: 'm',
        notebook: 'work/parcels.ipynb',
        kernel_id: 'k',
        strategy: 'loop',
        approval_mode: true
      },
      {
        type: 'contract_stated',
        awaiting_review: true,
        by: 'request',
        contract: {
          outputs: [{ path: 'a.csv', format: 'CSV' }],
          requirements: []
        }
      }
    );
    await act(async () => q(panel, 'geoagent-contract-accept')!.click());
    await settle();
    expect(posts(requests, 'runs/run1/actions')).toEqual([
      { kind: 'approve', subtask_id: 'contract' }
    ]);
  });

  it("notifies when a hidden panel's run needs the user, but not for replayed history", async () => {
    await openPanel();
    let revealed = 0;
    (panel as any)._reveal = () => revealed++;
    await submit('areas');
    panel.hide();
    const now = (e: Record<string, unknown>) => ({
      ...e,
      ts: new Date().toISOString()
    });
    await stream(
      {
        type: 'planned',
        subtasks: PLAN,
        libraries: [],
        ts: '2020-01-01T00:00:00Z'
      },
      {
        type: 'needs_human',
        subtask_id: 's1',
        code: 'x',
        error: 'old failure',
        attempts: 2,
        ts: '2020-01-01T00:00:01Z'
      }
    );
    expect(
      Notification.manager.notifications.filter(n =>
        n.message.includes('old failure')
      )
    ).toHaveLength(0);
    await stream(
      now({
        type: 'needs_human',
        subtask_id: 's2',
        code: 'x',
        error: "KeyError: 'area'",
        attempts: 2
      })
    );
    const note = Notification.manager.notifications.find(n =>
      n.message.startsWith('GeoAgent needs you')
    )!;
    expect(note.message).toBe(
      "GeoAgent needs you: step 2 failed (KeyError: 'area')"
    );
    expect(note.type).toBe('warning');
    note.options.actions![0].callback(new MouseEvent('click'));
    expect(revealed).toBe(1);
  });

  it('picks up a run waiting for its contract review after a reload, and says so when hidden', async () => {
    await openPanel({
      'GET runs': {
        runs: [
          {
            run_id: 'old',
            status: 'awaiting_contract',
            request: 'review me',
            notebook: 'work/parcels.ipynb'
          }
        ]
      }
    });
    expect(FakeSocket.last().url).toContain(
      '/geoagent/runs/old/stream?after=0'
    );
    (panel as any)._reveal = () => undefined;
    panel.hide();
    const socket = FakeSocket.last();
    await act(async () => {
      socket.open();
      socket.emit(
        ev(
          {
            type: 'contract_stated',
            awaiting_review: true,
            by: 'request',
            ts: new Date().toISOString(),
            contract: {
              outputs: [{ path: 'a.csv', format: 'CSV' }],
              requirements: []
            }
          },
          'old'
        )
      );
    });
    await settle();
    const note = Notification.manager.notifications.find(n =>
      n.message.includes('must satisfy')
    )!;
    expect(note.message).toBe(
      'GeoAgent: review what the output must satisfy before it plans'
    );
    expect(note.options.actions![0].label).toBe('Open GeoAgent');
  });

  it('follows a run still working after a page reload, without writing its cells twice', async () => {
    const { notebooks } = await openPanel({
      'GET runs': {
        runs: [
          {
            run_id: 'elsewhere',
            status: 'running',
            request: 'not here',
            notebook: 'other.ipynb'
          },
          {
            run_id: 'old',
            status: 'needs_human',
            request: 'before the reload',
            notebook: 'work/parcels.ipynb'
          }
        ]
      }
    });
    // The live run on a notebook open here, not the one on a notebook this page does not show.
    expect(FakeSocket.instances).toHaveLength(1);
    expect(FakeSocket.last().url).toContain(
      '/geoagent/runs/old/stream?after=0'
    );
    const started = {
      type: 'run_started',
      request: 'before the reload',
      model: 'm',
      notebook: 'work/parcels.ipynb',
      kernel_id: 'k',
      strategy: 'loop',
      approval_mode: false
    };
    const solved = {
      type: 'solved',
      subtask_id: 's1',
      code: 'a = 1',
      attempts: 1,
      result: result(),
      by: 'agent'
    };
    const socket = FakeSocket.last();
    await act(async () => {
      socket.open();
      socket.emit(ev(started, 'old'));
      socket.emit(
        ev(
          { type: 'planned', subtasks: PLAN.slice(0, 1), libraries: [] },
          'old'
        )
      );
      socket.emit(ev(solved, 'old'));
    });
    await settle();
    expect(q(panel, 'geoagent-run-request')!.textContent).toBe(
      'before the reload'
    );
    const count = notebooks.model.cells.length;
    expect(count).toBe(4);
    // Same run opened again (the chat's button, another reload): its cells are found, not duplicated.
    resetSeq();
    panel.follow('other', {}); // (something else in between)
    panel.openRun('old');
    const again = FakeSocket.last();
    await act(async () => {
      again.open();
      again.emit(ev(started, 'old'));
      again.emit(
        ev(
          { type: 'planned', subtasks: PLAN.slice(0, 1), libraries: [] },
          'old'
        )
      );
      again.emit(ev(solved, 'old'));
    });
    await settle();
    expect(notebooks.model.cells.length).toBe(count);
  });
});
