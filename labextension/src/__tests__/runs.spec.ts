/**
 * The run fold (events -> what the panel shows) and the event stream's
 * reconnect: the two places where a bug silently shows the user wrong state.
 */
import { Signal } from '@lumino/signaling';

import { reportActiveNotebooks, RunStream, websocketUrl } from '../runs/client';
import {
  applyEvent,
  emptyRun,
  formatSeconds,
  IRunView,
  subtaskSeconds
} from '../runs/model';
import { RunEvent } from '../runs/types';
import { ev, FakeSocket, fakeServer, resetSeq, result } from './fakes';

function fold(events: RunEvent[], run: IRunView = emptyRun('run1')): IRunView {
  return events.reduce(applyEvent, run);
}

const PLAN = [
  { id: 's1', description: 'Load the parcels' },
  { id: 's2', description: 'Compute areas' }
];

beforeEach(() => {
  resetSeq();
  FakeSocket.reset();
});

describe('applyEvent', () => {
  it('follows a loop run from plan to a step that needs the user, then a fix', () => {
    let run = fold([
      ev({
        type: 'run_started',
        request: 'areas',
        model: 'm',
        notebook: 'a.ipynb',
        kernel_id: 'k',
        strategy: 'loop',
        approval_mode: false
      }),
      ev({ type: 'planned', subtasks: PLAN, libraries: [] }),
      ev({
        type: 'subtask_started',
        subtask_id: 's1',
        index: 0,
        description: 'Load the parcels'
      }),
      ev({
        type: 'code_proposed',
        subtask_id: 's1',
        attempt: 1,
        code: 'x = 1',
        node_id: null,
        parent_id: null
      }),
      ev({
        type: 'executed',
        subtask_id: 's1',
        attempt: 1,
        code: 'x = 1',
        result: result(),
        trial: true,
        node_id: null
      }),
      ev({
        type: 'solved',
        subtask_id: 's1',
        code: 'x = 1',
        attempts: 1,
        result: result(),
        by: 'agent'
      }),
      ev({
        type: 'subtask_started',
        subtask_id: 's2',
        index: 1,
        description: 'Compute areas'
      })
    ]);
    expect(run.status).toBe('running');
    expect(run.notebook).toBe('a.ipynb');
    expect(run.subtasks.map(s => s.status)).toEqual(['solved', 'running']);
    expect(run.subtasks[0].solved?.code).toBe('x = 1');
    expect(subtaskSeconds(run.subtasks[0], Date.now())).toBe(3); // started at seq 3, solved at seq 6

    run = fold(
      [
        ev({
          type: 'code_proposed',
          subtask_id: 's2',
          attempt: 1,
          code: 'print(y)',
          node_id: null,
          parent_id: null
        }),
        ev({
          type: 'executed',
          subtask_id: 's2',
          attempt: 1,
          code: 'print(y)',
          trial: true,
          node_id: null,
          result: result('error', {
            error: "NameError: name 'y' is not defined"
          })
        }),
        ev({
          type: 'code_proposed',
          subtask_id: 's2',
          attempt: 2,
          code: 'print(x)',
          node_id: null,
          parent_id: null
        }),
        ev({
          type: 'repaired',
          subtask_id: 's2',
          attempt: 2,
          strategy: 'analyse',
          diagnosis: 'wrong name',
          diff: ''
        }),
        ev({
          type: 'executed',
          subtask_id: 's2',
          attempt: 2,
          code: 'print(x)',
          trial: true,
          node_id: null,
          result: result('error', { error: 'ValueError: no' })
        }),
        ev({
          type: 'needs_human',
          subtask_id: 's2',
          code: 'print(x)',
          error: 'ValueError: no',
          attempts: 2
        })
      ],
      run
    );
    expect(run.status).toBe('needs_human');
    expect(run.waitingFor).toEqual({ kind: 'stuck', subtaskId: 's2' });
    const stuck = run.subtasks[1];
    expect(stuck.status).toBe('needs_human');
    expect(stuck.error).toBe('ValueError: no');
    expect(stuck.attempts.map(a => [a.n, a.code, a.error])).toEqual([
      [1, 'print(y)', "NameError: name 'y' is not defined"],
      [2, 'print(x)', 'ValueError: no']
    ]);
    expect(stuck.attempts[1].repair).toEqual({
      strategy: 'analyse',
      diagnosis: 'wrong name'
    });

    run = fold(
      [
        ev({
          type: 'human_edit_applied',
          subtask_id: 's2',
          code: 'print(x + 1)',
          result: result(),
          accepted: true
        }),
        ev({
          type: 'solved',
          subtask_id: 's2',
          code: 'print(x + 1)',
          attempts: 2,
          result: result(),
          by: 'human'
        }),
        ev({
          type: 'finished',
          status: 'succeeded',
          message: '2 step(s) done',
          stats: { llm_calls: 3, attempts: 3 }
        })
      ],
      run
    );
    expect(run.status).toBe('succeeded');
    expect(run.waitingFor).toBeNull();
    expect(run.subtasks[1].by).toBe('human');
    expect(run.subtasks[1].attempts.map(a => a.by)).toEqual([
      'agent',
      'agent',
      'human'
    ]);
  });

  it('ignores replayed events and shares untouched steps', () => {
    const events = [
      ev({ type: 'planned', subtasks: PLAN, libraries: [] }),
      ev({
        type: 'subtask_started',
        subtask_id: 's2',
        index: 1,
        description: 'x'
      })
    ];
    const run = fold(events);
    expect(fold(events, run)).toBe(run); // a reconnect replaying history changes nothing
    expect(
      applyEvent(
        run,
        ev({ type: 'progress', message: 'thinking', subtask_id: null })
      ).subtasks[0]
    ).toBe(run.subtasks[0]);
  });

  it('builds the search tree and its attempts from search_node events', () => {
    const node = (
      id: string,
      parent: string | null,
      status: string,
      extra = {}
    ) =>
      ev({
        type: 'search_node',
        subtask_id: 's1',
        node_id: id,
        parent_id: parent,
        code: parent ? `code_${id}` : '',
        visits: 1,
        q: 0,
        prior: 0.5,
        reward: null,
        status,
        error: null,
        ...extra
      });
    const run = fold([
      ev({ type: 'planned', subtasks: PLAN, libraries: [] }),
      node('root', null, 'new'),
      node('a', 'root', 'new'),
      node('b', 'root', 'new'),
      node('a', 'root', 'failed', { error: 'KeyError: area', q: -1 }),
      node('c', 'a', 'new'),
      node('c', 'a', 'chosen', { q: 1, visits: 2, met: ['r1'], unmet: ['r2'] }),
      ev({ type: 'approval_requested', subtask_id: 's1', code: 'code_c' })
    ]);
    const subtask = run.subtasks[0];
    expect(subtask.nodeOrder).toEqual(['root', 'a', 'b', 'c']);
    expect(subtask.nodes.a.status).toBe('failed');
    expect(subtask.nodes.c).toMatchObject({
      status: 'chosen',
      q: 1,
      visits: 2,
      met: ['r1'],
      unmet: ['r2']
    });
    expect(subtask.nodes.b).toMatchObject({ met: [], unmet: [] }); // an event of an older server
    expect(subtask.attempts.map(a => [a.nodeId, a.parentId, a.error])).toEqual([
      ['a', 'root', 'KeyError: area'],
      ['b', 'root', undefined],
      ['c', 'a', undefined]
    ]);
    expect(run.status).toBe('awaiting_approval');
    expect(subtask.status).toBe('awaiting_approval');
  });

  it('keeps why the search took a step over from the loop', () => {
    const run = fold([
      ev({ type: 'planned', subtasks: PLAN, libraries: [] }),
      ev({
        type: 'search_started',
        subtask_id: 's2',
        reason: "the same error twice: KeyError: 'zone'",
        max_nodes: 12,
        max_llm_calls: 16,
        max_seconds: 900
      })
    ]);
    expect(run.subtasks[1].searchReason).toBe(
      "the same error twice: KeyError: 'zone' (budget: 12 nodes, 16 model calls, 900 s)"
    );
    expect(run.subtasks[0].searchReason).toBe('');
  });

  it('places inserted steps before the step that needed them and keeps known steps on replan', () => {
    const run = fold([
      ev({ type: 'planned', subtasks: PLAN, libraries: [] }),
      ev({
        type: 'solved',
        subtask_id: 's1',
        code: 'a',
        attempts: 1,
        result: result(),
        by: 'agent'
      }),
      ev({
        type: 'subtask_inserted',
        subtask: { id: 's9', description: 'Define y', inserted_for: 's2' },
        before: 's2',
        reason: ''
      }),
      ev({
        type: 'replanned',
        reason: 'r',
        subtasks: [
          PLAN[0],
          { id: 's9', description: 'Define y' },
          { id: 's3', description: 'Map it' }
        ]
      })
    ]);
    expect(run.subtasks.map(s => s.id)).toEqual(['s1', 's9', 's3']);
    expect(run.subtasks[0].status).toBe('solved');
    expect(run.subtasks[1].insertedFor).toBe('s2');
  });

  it('shows a kept step in its new wording after the plan was tidied', () => {
    const run = fold([
      ev({ type: 'planned', subtasks: PLAN, libraries: [] }),
      ev({
        type: 'replanned',
        reason: 'the plan was tidied',
        subtasks: [
          PLAN[0],
          {
            ...PLAN[1],
            description: 'Compute areas in metres',
            crs_advice: 'areas in EPSG:3035 (LAEA Europe)'
          }
        ]
      })
    ]);
    expect(run.subtasks.map(s => s.description)).toEqual([
      'Load the parcels',
      'Compute areas in metres'
    ]);
    expect(run.subtasks[1].crsAdvice).toBe('areas in EPSG:3035 (LAEA Europe)');
  });

  it('stops showing a step as working when the run is cancelled', () => {
    const run = fold([
      ev({ type: 'planned', subtasks: PLAN, libraries: [] }),
      ev({
        type: 'subtask_started',
        subtask_id: 's1',
        index: 0,
        description: ''
      }),
      ev({
        type: 'finished',
        status: 'cancelled',
        message: 'cancelled by the user',
        stats: {}
      })
    ]);
    expect(run.status).toBe('cancelled');
    expect(run.subtasks[0].status).toBe('pending');
  });
});

describe('formatSeconds', () => {
  it('is short and readable', () => {
    expect(formatSeconds(0.42)).toBe('0.4 s');
    expect(formatSeconds(12.4)).toBe('12 s');
    expect(formatSeconds(125)).toBe('2 min 05 s');
    expect(formatSeconds(null)).toBe('');
  });
});

describe('RunStream', () => {
  it('connects with the token and reconnects after a drop from the last seq seen', async () => {
    jest.useFakeTimers();
    const { settings } = fakeServer();
    const seen: number[] = [];
    const states: string[] = [];
    const stream = new RunStream({
      runId: 'run1',
      settings,
      onEvent: e => seen.push(e.seq),
      onState: s => states.push(s),
      retryDelays: [100]
    });
    const first = FakeSocket.last();
    expect(first.url).toBe(
      'ws://localhost:8888/lab-base/geoagent/runs/run1/stream?after=0&token=secret-token'
    );
    first.open();
    [1, 2, 3].forEach(seq =>
      first.emit({
        type: 'progress',
        run_id: 'run1',
        seq,
        ts: '',
        message: 'x'
      })
    );
    first.drop(); // network blip before `finished`
    expect(states).toEqual(['connecting', 'open', 'reconnecting']);
    jest.advanceTimersByTime(100);
    const second = FakeSocket.last();
    expect(second).not.toBe(first);
    expect(second.url).toContain('stream?after=3');
    second.open();
    // The server replays from `after`; a duplicate must not be delivered twice.
    second.emit({
      type: 'progress',
      run_id: 'run1',
      seq: 3,
      ts: '',
      message: 'x'
    });
    second.emit({
      type: 'finished',
      run_id: 'run1',
      seq: 4,
      ts: '',
      status: 'succeeded',
      message: '',
      stats: {}
    });
    second.drop(); // the server closes after `finished`
    jest.advanceTimersByTime(10_000);
    expect(seen).toEqual([1, 2, 3, 4]);
    expect(FakeSocket.instances).toHaveLength(2);
    expect(stream.finished).toBe(true);
    expect(states[states.length - 1]).toBe('closed');
    stream.dispose();
    jest.useRealTimers();
  });

  it('gives up after repeated failures without events and says so', () => {
    jest.useFakeTimers();
    const { settings } = fakeServer();
    const states: string[] = [];
    const stream = new RunStream({
      runId: 'gone',
      settings,
      onEvent: () => undefined,
      onState: s => states.push(s),
      retryDelays: [10],
      maxFailures: 2
    });
    for (let i = 0; i < 3; i++) {
      FakeSocket.last().drop();
      jest.advanceTimersByTime(10);
    }
    expect(FakeSocket.instances).toHaveLength(3);
    expect(states[states.length - 1]).toBe('lost');
    stream.dispose();
    jest.useRealTimers();
  });
});

describe('websocketUrl', () => {
  it('adds no token when the settings do not append one', () => {
    const { settings } = fakeServer();
    expect(
      websocketUrl('complete/stream', {}, { ...settings, appendToken: false })
    ).toBe('ws://localhost:8888/lab-base/geoagent/complete/stream');
  });
});

describe('reportActiveNotebooks', () => {
  const settle = () => new Promise(resolve => setTimeout(resolve, 20));

  it('posts each new active notebook once, including none', async () => {
    const { settings, requests } = fakeServer({
      'POST active-notebook': (r: any) =>
        r.body.path === 'gone.ipynb'
          ? [404, { message: 'no notebook' }]
          : { path: r.body.path }
    });
    let path: string | null = 'a.ipynb';
    const changed = new Signal<object, void>({});
    reportActiveNotebooks(() => path, changed, settings);
    await settle();
    changed.emit(); // same notebook again: nothing to say
    path = 'gone.ipynb'; // refused with a JSON 404: the endpoint exists, keep reporting
    changed.emit();
    await settle();
    path = null;
    changed.emit();
    await settle();
    expect(requests.map(r => [r.method, r.path, r.body])).toEqual([
      ['POST', 'active-notebook', { path: 'a.ipynb' }],
      ['POST', 'active-notebook', { path: 'gone.ipynb' }],
      ['POST', 'active-notebook', { path: null }]
    ]);
  });

  it('goes quiet on a server without the endpoint', async () => {
    const { settings, requests } = fakeServer({});
    let path = 'a.ipynb';
    const changed = new Signal<object, void>({});
    reportActiveNotebooks(() => path, changed, settings);
    await settle();
    path = 'b.ipynb';
    changed.emit();
    await settle();
    expect(requests).toHaveLength(1);
  });
});
