/**
 * The run views: subtask status is readable without colour, the search tree
 * stays fast with hundreds of nodes, diffs show both versions, and the fix
 * editor's buttons send the right actions.
 */
import { EditorView } from '@codemirror/view';
import * as React from 'react';
import { act } from 'react';

import { AttemptDiff } from '../components/AttemptDiff';
import { FixEditor } from '../components/FixEditor';
import { PlanList } from '../components/PlanList';
import { flattenTree, ROW_HEIGHT, SearchTree } from '../components/SearchTree';
import { RunView } from '../components/RunView';
import { SubtaskDetail } from '../components/SubtaskDetail';
import {
  applyEvent,
  emptyRun,
  IAttempt,
  IRunView,
  ISearchNode,
  ISubtaskView,
  placeText
} from '../runs/model';
import { IAction } from '../runs/types';
import { ev } from './fakes';
import { all, cleanup, render, rerender } from './render';

afterEach(cleanup);

function subtask(
  id: string,
  status: ISubtaskView['status'],
  extra: Partial<ISubtaskView> = {}
): ISubtaskView {
  return {
    id,
    description: `Step ${id}`,
    status,
    attempts: [],
    code: '',
    error: '',
    crsAdvice: '',
    nodes: {},
    nodeOrder: [],
    hints: [],
    ...extra
  };
}

describe('PlanList', () => {
  it('gives every status an icon and a word, not only a colour', () => {
    const t0 = 1_700_000_000_000;
    const el = render(
      <PlanList
        subtasks={[
          subtask('s1', 'solved', {
            startedAt: t0,
            endedAt: t0 + 4200,
            attempts: [{ n: 1, code: 'a', by: 'agent' }]
          }),
          subtask('s2', 'needs_human', {
            attempts: [1, 2, 3].map(n => ({
              n,
              code: 'x',
              by: 'agent' as const
            }))
          }),
          subtask('s3', 'running', { startedAt: t0 }),
          subtask('s4', 'pending'),
          subtask('s5', 'skipped'),
          subtask('s6', 'solved', { by: 'human' })
        ]}
        selected="s2"
        onSelect={() => undefined}
        now={t0 + 61_000}
      />
    );
    const rows = all(el, 'geoagent-subtask');
    expect(rows.map(r => r.dataset.status)).toEqual([
      'solved',
      'needs_human',
      'running',
      'pending',
      'skipped',
      'solved'
    ]);
    expect(all(el, 'geoagent-subtask-label').map(l => l.textContent)).toEqual([
      'done',
      'needs you',
      'working',
      'waiting',
      'skipped',
      'done (your fix)'
    ]);
    expect(all(el, 'geoagent-subtask-status').map(b => b.textContent)).toEqual([
      '✓',
      '✗',
      '◔',
      '○',
      '↷',
      '✓'
    ]);
    expect(
      all(el, 'geoagent-subtask-attempts').map(a => a.textContent)
    ).toEqual(['1 attempt', '3 attempts']);
    expect(all(el, 'geoagent-subtask-time').map(t => t.textContent)).toEqual([
      '4.2 s',
      '1 min 01 s'
    ]);
    expect(rows[1].getAttribute('aria-pressed')).toBe('true');
    expect(rows.every(r => r.tagName === 'BUTTON')).toBe(true); // keyboard reachable
  });

  it('shows the CRS the advisor picked beside the step that measures', () => {
    const run = [
      ev({
        type: 'planned',
        libraries: [],
        subtasks: [
          {
            id: 's1',
            description: 'Load the districts',
            artifacts: [],
            inserted_for: null,
            crs_advice: ''
          },
          {
            id: 's2',
            description: 'Compute areas in km²',
            artifacts: [],
            inserted_for: null,
            crs_advice: 'areas in EPSG:3035 (ETRS89-extended / LAEA Europe)'
          }
        ]
      })
    ].reduce(applyEvent, emptyRun('r1'));
    const el = render(
      <PlanList
        subtasks={run.subtasks}
        selected={null}
        onSelect={() => undefined}
        now={0}
      />
    );
    expect(all(el, 'geoagent-subtask-crs').map(c => c.textContent)).toEqual([
      'areas in EPSG:3035 (ETRS89-extended / LAEA Europe)'
    ]);
    expect(all(el, 'geoagent-subtask')[1].textContent).toContain('EPSG:3035');
  });
});

/** A random-ish tree: each node under one of the earlier ones; node 7's path is chosen. */
function bigTree(n: number): {
  nodes: Record<string, ISearchNode>;
  order: string[];
} {
  const nodes: Record<string, ISearchNode> = {};
  const order: string[] = [];
  for (let i = 0; i < n; i++) {
    const id = `s1-${i}`;
    const parentId = i === 0 ? null : `s1-${Math.floor((i * 7919) % i)}`;
    nodes[id] = {
      id,
      parentId,
      code: i ? `gdf = step_${i}(gdf)` : '',
      visits: i % 5,
      q: (i % 3) / 2 - 0.5,
      prior: 0.3,
      reward: i % 4 ? 1 : null,
      status: i % 4 === 1 ? 'failed' : 'ok',
      error: i % 4 === 1 ? `KeyError: 'col_${i}'` : null
    };
    order.push(id);
  }
  if (nodes['s1-7']) {
    nodes['s1-7'].status = 'chosen';
  }
  return { nodes, order };
}

describe('SearchTree', () => {
  it('shows the requirements each node met of those its trial checked', () => {
    const { nodes, order } = bigTree(3);
    nodes['s1-1'] = {
      ...nodes['s1-1'],
      status: 'ok',
      met: ['r1'],
      unmet: ['r2']
    };
    const el = render(
      <SearchTree
        nodes={nodes}
        order={order}
        selected={null}
        onSelect={() => undefined}
      />
    );
    const row = all(el, 'geoagent-tree-node').find(
      r => r.getAttribute('data-node') === 's1-1'
    )!;
    expect(row.textContent).toContain('1/2 ✓');
    expect(row.getAttribute('title')).toContain(
      'requirements met: r1 · not met: r2'
    );
    // A node whose trial checked nothing shows no count (not a "0").
    const bare = all(el, 'geoagent-tree-node').find(
      r => r.getAttribute('data-node') === 's1-2'
    )!;
    expect(all(bare, 'geoagent-tree-met')).toHaveLength(0);
    expect(bare.textContent).not.toMatch(/^0/);
  });

  it('renders 200 nodes fast, with only the rows in view in the DOM', () => {
    const { nodes, order } = bigTree(200);
    const small = bigTree(3); // warm React and jsdom up, so the figure is the tree's own cost
    const el = render(
      <SearchTree
        nodes={small.nodes}
        order={small.order}
        selected={null}
        onSelect={() => undefined}
      />
    );
    const started = performance.now();
    rerender(
      <SearchTree
        key="200"
        nodes={nodes}
        order={order}
        selected={null}
        onSelect={() => undefined}
      />
    );
    const ms = performance.now() - started;
    // eslint-disable-next-line no-console
    console.log(`search tree: 200 nodes rendered in ${ms.toFixed(1)} ms`);
    const rows = all(el, 'geoagent-tree-node');
    expect(rows.length).toBeLessThanOrEqual(14 + 12); // visible rows + overscan
    expect(all(el, 'geoagent-tree-count')[0].textContent).toBe(
      '200 nodes, 50 failed'
    );
    expect(ms).toBeLessThan(1500); // typically well under 100 ms; generous for a loaded CI box
    // The scroll area spans all rows, so the scrollbar is honest.
    const inner = el.querySelector(
      '.jp-GeoAgent-tree-scroll > div'
    ) as HTMLElement;
    expect(inner.style.height).toBe(`${200 * ROW_HEIGHT}px`);

    const big = bigTree(2000);
    const t2 = performance.now();
    rerender(
      <SearchTree
        nodes={big.nodes}
        order={big.order}
        selected={null}
        onSelect={() => undefined}
      />
    );
    // eslint-disable-next-line no-console
    console.log(
      `search tree: 2000 nodes re-rendered in ${(performance.now() - t2).toFixed(1)} ms`
    );
    expect(all(el, 'geoagent-tree-node').length).toBeLessThanOrEqual(26);
  });

  it('highlights the chosen path, explains nodes on hover and renders rows as they scroll in', () => {
    const { nodes, order } = bigTree(200);
    const picked: string[] = [];
    const el = render(
      <SearchTree
        nodes={nodes}
        order={order}
        selected={null}
        onSelect={id => picked.push(id)}
        height={220}
      />
    );
    const onPath = all(el, 'geoagent-tree-node').filter(r =>
      r.classList.contains('jp-GeoAgent-tree-onPath')
    );
    // root -> ... -> s1-7: every ancestor of the chosen node, and nothing else.
    const path: string[] = [];
    for (let id: string | null = 's1-7'; id; id = nodes[id].parentId) {
      path.push(id);
    }
    const rows = flattenTree(nodes, order, new Set());
    const visible = new Set(rows.slice(0, 16).map(r => r.id));
    expect(onPath.map(r => r.dataset.node).sort()).toEqual(
      path.filter(id => visible.has(id)).sort()
    );
    const failed = all(el, 'geoagent-tree-node').find(
      r => r.dataset.status === 'failed'
    )!;
    expect(failed.title).toMatch(
      /failed\nvisits \d · Q -?\d\.\d\d · prior 0\.30/
    );
    expect(failed.title).toMatch(/error: KeyError: 'col_\d+'/);
    // The same details show under the tree on hover (native tooltips are slow and easy to miss).
    act(() => {
      failed.dispatchEvent(new MouseEvent('mouseover', { bubbles: true }));
    });
    expect(all(el, 'geoagent-tree-info')[0].textContent).toContain(
      `Node ${failed.dataset.node!.split('-')[1]}: failed`
    );
    expect(all(el, 'geoagent-tree-info')[0].textContent).toMatch(
      /error: KeyError/
    );

    const scroller = el.querySelector('[role="tree"]') as HTMLElement;
    act(() => {
      scroller.scrollTop = 150 * ROW_HEIGHT;
      scroller.dispatchEvent(new Event('scroll'));
    });
    const shown = all(el, 'geoagent-tree-node').map(r => r.dataset.node);
    expect(shown).toContain(rows[150].id);
    expect(shown).not.toContain(rows[0].id);

    act(() =>
      all(el, 'geoagent-tree-node')
        .find(r => r.dataset.node === rows[151].id)!
        .click()
    );
    expect(picked).toEqual([rows[151].id]);
  });

  it('collapses and expands subtrees with the keyboard', () => {
    const { nodes, order } = bigTree(30);
    const el = render(
      <SearchTree
        nodes={nodes}
        order={order}
        selected={null}
        onSelect={() => undefined}
      />
    );
    const tree = el.querySelector('[role="tree"]') as HTMLElement;
    const count = () => all(el, 'geoagent-tree-node').length;
    const before = count();
    const key = (k: string) =>
      act(() => {
        tree.dispatchEvent(
          new KeyboardEvent('keydown', { key: k, bubbles: true })
        );
      });
    key('ArrowLeft'); // collapse the root: only it stays
    expect(count()).toBe(1);
    expect(tree.getAttribute('aria-activedescendant')).toBe(
      'geoagent-node-s1-0'
    );
    key('ArrowRight');
    expect(count()).toBe(before);
    key('ArrowDown');
    expect(tree.getAttribute('aria-activedescendant')).toBe(
      `geoagent-node-${flattenTree(nodes, order, new Set())[1].id}`
    );
  });
});

function codeOf(el: HTMLElement, testid: string): string {
  const content = el.querySelector(
    `[data-testid="${testid}"] .cm-content`
  ) as HTMLElement;
  return EditorView.findFromDOM(content)!.state.doc.toString();
}

describe('SubtaskDetail', () => {
  it('says above the tree why the search took the step over from the loop', () => {
    const { nodes, order } = bigTree(3);
    const props = {
      index: 1,
      waiting: null,
      onAction: async () => undefined
    };
    const el = render(
      <SubtaskDetail
        {...props}
        subtask={subtask('s1', 'running', {
          nodes,
          nodeOrder: order,
          searchReason: "the same error twice: KeyError: 'zone'"
        })}
      />
    );
    expect(all(el, 'geoagent-search-reason')[0].textContent).toContain(
      "from the loop: the same error twice: KeyError: 'zone'"
    );
    const plain = render(
      <SubtaskDetail
        {...props}
        subtask={subtask('s1', 'running', { nodes, nodeOrder: order })}
      />
    );
    expect(all(plain, 'geoagent-search-reason')).toHaveLength(0); // a search from the start: no reason
  });
});

describe('AttemptDiff', () => {
  const attempts: IAttempt[] = [
    {
      n: 1,
      code: "areas = parcels['area_m2']\nprint(areas.sum())",
      by: 'agent',
      error: "KeyError: 'area_m2'"
    },
    {
      n: 2,
      code: 'areas = parcels.to_crs(3035).area\nprint(areas.sum())',
      by: 'agent',
      repair: {
        strategy: 'data_profile',
        diagnosis: 'the column does not exist; compute the area'
      }
    },
    {
      n: 3,
      code: 'areas = parcels.to_crs(3035).area / 1e6\nprint(areas.sum())',
      by: 'human'
    }
  ];

  it('shows why the earlier attempt failed, the repair, and both versions of the changed line', () => {
    const el = render(<AttemptDiff attempts={attempts} selected={2} />);
    expect(all(el, 'geoagent-diff-error')[0].textContent).toBe(
      "attempt 1 failed: KeyError: 'area_m2'"
    );
    expect(all(el, 'geoagent-diff-repair')[0].textContent).toContain(
      'the column does not exist'
    );
    const view = all(el, 'geoagent-diff-view')[0];
    expect(codeOf(el, 'geoagent-diff-view')).toBe(attempts[1].code);
    // The unified merge view shows the old line as a deleted chunk and marks the new one.
    expect(view.querySelector('.cm-deletedChunk')?.textContent).toContain(
      "parcels['area_m2']"
    );
    expect(view.querySelector('.cm-changedLine')?.textContent).toContain(
      'to_crs(3035)'
    );
    const options = Array.from(el.querySelectorAll('option')).map(
      o => o.textContent
    );
    expect(options).toEqual([
      'attempt 1 → attempt 2',
      'attempt 2 → your edit (3)'
    ]);
  });

  it('moves between pairs and compares a search node with its parent', () => {
    const picked: number[] = [];
    const el = render(
      <AttemptDiff attempts={attempts} onSelect={n => picked.push(n)} />
    );
    expect(codeOf(el, 'geoagent-diff-view')).toBe(attempts[2].code); // the newest change first
    act(() =>
      (
        el.querySelector('[aria-label="Previous change"]') as HTMLButtonElement
      ).click()
    );
    expect(codeOf(el, 'geoagent-diff-view')).toBe(attempts[1].code);
    expect(picked).toEqual([2]);

    const nodes: IAttempt[] = [
      { n: 1, code: 'a = 1', by: 'agent', nodeId: 'x1', parentId: 'root' },
      { n: 2, code: 'b = 2', by: 'agent', nodeId: 'x2', parentId: 'root' },
      {
        n: 3,
        code: 'a = 1\nprint(a)',
        by: 'agent',
        nodeId: 'x3',
        parentId: 'x1'
      }
    ];
    rerender(<AttemptDiff attempts={nodes} selected={3} />);
    expect(el.querySelector('select')!.selectedOptions[0].textContent).toBe(
      'attempt 1 → attempt 3'
    );
  });
});

describe('FixEditor', () => {
  function editor(onAction: (a: IAction) => Promise<void>) {
    return render(
      <FixEditor
        subtaskId="s2"
        description="Compute areas"
        code={"print(parcels['area_m2'])"}
        error="KeyError: 'area_m2'"
        attempts={3}
        onAction={onAction}
      />
    );
  }

  it('shows the shortened error and the last code, and runs the edited code', async () => {
    const actions: IAction[] = [];
    const el = editor(async a => void actions.push(a));
    expect(all(el, 'geoagent-fix-error')[0].textContent).toBe(
      "✗ Stuck after 3 attemptsKeyError: 'area_m2'"
    );
    expect(codeOf(el, 'geoagent-fix-code')).toBe("print(parcels['area_m2'])");
    const view = EditorView.findFromDOM(
      el.querySelector(
        '[data-testid="geoagent-fix-code"] .cm-content'
      ) as HTMLElement
    )!;
    act(() =>
      view.dispatch({
        changes: {
          from: 0,
          to: view.state.doc.length,
          insert: 'print(parcels.area.sum())'
        }
      })
    );
    await act(async () => all(el, 'geoagent-fix-run')[0].click());
    expect(actions).toEqual([
      { kind: 'edit', subtask_id: 's2', code: 'print(parcels.area.sum())' }
    ]);
  });

  it('sends a hint, a skip, and shows the server refusing', async () => {
    const actions: IAction[] = [];
    let refuse = false;
    const el = editor(async a => {
      if (refuse) {
        throw new Error('the run is not waiting for you right now');
      }
      actions.push(a);
    });
    const retry = all(el, 'geoagent-fix-retry')[0] as HTMLButtonElement;
    expect(retry.disabled).toBe(true); // no hint typed yet
    const input = all(el, 'geoagent-fix-hint')[0] as HTMLInputElement;
    act(() => {
      const setter = Object.getOwnPropertyDescriptor(
        HTMLInputElement.prototype,
        'value'
      )!.set!;
      setter.call(input, 'the column is area_ha');
      input.dispatchEvent(new Event('input', { bubbles: true }));
    });
    await act(async () => retry.click());
    await act(async () => all(el, 'geoagent-fix-skip')[0].click());
    expect(actions).toEqual([
      { kind: 'hint', subtask_id: 's2', text: 'the column is area_ha' },
      { kind: 'skip', subtask_id: 's2' }
    ]);
    refuse = true;
    await act(async () => all(el, 'geoagent-fix-skip')[0].click());
    expect(all(el, 'geoagent-action-error')[0].textContent).toBe(
      'the run is not waiting for you right now'
    );
  });
});

describe('RunView: a shared model and a degraded index', () => {
  afterEach(cleanup);

  function view(run: IRunView): HTMLElement {
    return render(
      <RunView
        run={run}
        selected={null}
        onSelect={() => undefined}
        onAction={async () => undefined}
        onCancel={() => undefined}
        connection="open"
        cellsWritten={0}
        now={Date.now()}
      />
    );
  }

  it("says the place in the model's line while the run waits, and the warnings", () => {
    let run = applyEvent(
      emptyRun('run1'),
      ev({
        type: 'run_started',
        request: 'r',
        model: 'local:x',
        notebook: null,
        kernel_id: null,
        strategy: 'loop',
        approval_mode: false
      })
    );
    run = applyEvent(run, ev({ type: 'model_waiting', place: 2 }));
    run = applyEvent(
      run,
      ev({
        type: 'warning',
        source: 'retrieval',
        message: 'API retrieval is degraded: gone'
      })
    );
    let el = view(run);
    expect(all(el, 'geoagent-model-waiting')[0].textContent).toBe(
      'waiting for the model: 2nd in line…'
    );
    expect(all(el, 'geoagent-warning').map(w => w.textContent)).toEqual([
      'API retrieval is degraded: gone'
    ]);
    cleanup();
    run = applyEvent(run, ev({ type: 'model_waiting', place: 0 })); // its turn came
    el = view(run);
    expect(all(el, 'geoagent-model-waiting')).toHaveLength(0);
    expect(all(el, 'geoagent-warning')).toHaveLength(1); // a warning stays for the run's record
  });

  it('clears the place when the run finishes while waiting', () => {
    let run = applyEvent(
      emptyRun('run1'),
      ev({ type: 'model_waiting', place: 3 })
    );
    expect(run.modelWaiting).toBe(3);
    run = applyEvent(
      run,
      ev({
        type: 'finished',
        status: 'cancelled',
        message: '',
        stats: null,
        unmet: [],
        not_verified: []
      })
    );
    expect(run.modelWaiting).toBeNull();
  });

  it('puts places into words', () => {
    expect([1, 2, 3, 4, 11, 12, 13, 21, 22, 101].map(placeText)).toEqual(
      [
        '1st',
        '2nd',
        '3rd',
        '4th',
        '11th',
        '12th',
        '13th',
        '21st',
        '22nd',
        '101st'
      ].map(p => `waiting for the model: ${p} in line`)
    );
  });
});
