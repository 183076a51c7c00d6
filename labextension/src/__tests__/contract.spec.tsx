/**
 * The deliverable contract in the panel: the fold keeps each requirement's
 * latest check and the review wait, the view shows what holds and what was
 * seen when it does not, and the review editor sends exactly the list the
 * user left (kept ids, rewordings, deletions, additions) or an approve.
 */
import * as React from 'react';
import { act } from 'react';

import { contractEdits } from '../components/ContractEditor';
import { ContractView, IContractViewProps } from '../components/ContractView';
import { applyEvent, emptyRun, IRunView } from '../runs/model';
import { IAction, IContract, IRequirement, RunEvent } from '../runs/types';
import { ev, resetSeq } from './fakes';
import { all, cleanup, render } from './render';

function req(
  id: string,
  output: string,
  text: string,
  extra: Partial<IRequirement> = {}
): IRequirement {
  return {
    id,
    output,
    text,
    kind: 'columns',
    params: {},
    origin: 'request',
    said: '',
    sure: true,
    ...extra
  };
}

const CONTRACT: IContract = {
  outputs: [
    { path: 'out/districts.gpkg', format: 'GeoPackage' },
    { path: 'out/summary.json', format: 'JSON' }
  ],
  requirements: [
    req('r1', 'out/districts.gpkg', 'has columns district_id, area_km2'),
    req('r2', 'out/summary.json', "has keys 'total', 'count'"),
    req('r3', 'out/districts.gpkg', 'CRS is EPSG:3035', {
      kind: 'crs_epsg',
      params: { epsg: 3035 }
    }),
    req('r4', 'out/districts.gpkg', 'looks good on a map', { kind: 'note' })
  ]
};

function fold(events: RunEvent[], run: IRunView = emptyRun('run1')): IRunView {
  return events.reduce(applyEvent, run);
}

const started = {
  type: 'run_started',
  request: 'districts',
  model: 'm',
  notebook: 'a.ipynb',
  kernel_id: 'k',
  strategy: 'loop',
  approval_mode: true
};

beforeEach(() => resetSeq());

describe('applyEvent: the CRS advice', () => {
  it('keeps the advisor lines of the run', () => {
    const run = fold([
      ev({
        type: 'crs_advised',
        lines: [
          '- CRS advice for a.geojson: official grid EPSG:27700 (OSGB36 / British National Grid)'
        ]
      })
    ]);
    expect(run.crsAdvice).toEqual([
      '- CRS advice for a.geojson: official grid EPSG:27700 (OSGB36 / British National Grid)'
    ]);
    expect(fold([]).crsAdvice).toEqual([]);
  });
});

describe('applyEvent: the contract', () => {
  it("waits for the review, then follows each requirement's latest check to the end", () => {
    let run = fold([
      ev(started),
      ev({
        type: 'contract_stated',
        contract: CONTRACT,
        by: 'request',
        awaiting_review: true
      })
    ]);
    expect(run.contract).toEqual(CONTRACT);
    expect(run.waitingFor).toEqual({ kind: 'contract', subtaskId: 'contract' });
    expect(run.status).toBe('awaiting_contract');

    const reviewed: IContract = {
      ...CONTRACT,
      requirements: [
        CONTRACT.requirements[0],
        req('u2', 'out/summary.json', "'count' is an integer", {
          origin: 'user'
        })
      ]
    };
    run = fold(
      [
        ev({
          type: 'contract_stated',
          contract: reviewed,
          by: 'user',
          awaiting_review: false
        }),
        ev({
          type: 'planned',
          subtasks: [{ id: 's1', description: 'Write the files' }],
          libraries: []
        }),
        ev({
          type: 'subtask_started',
          subtask_id: 's1',
          index: 0,
          description: 'Write the files'
        }),
        ev({
          type: 'requirement_checked',
          requirement_id: 'r1',
          output: 'out/districts.gpkg',
          text: 'has columns',
          passed: false,
          observed: 'columns: district_id, geometry',
          subtask_id: 's1'
        }),
        ev({
          type: 'requirement_checked',
          requirement_id: 'u2',
          output: 'out/summary.json',
          text: "'count' is an integer",
          passed: true,
          observed: 'count = 12',
          subtask_id: 's1'
        })
      ],
      run
    );
    expect(run.contract).toEqual(reviewed);
    expect(run.contractBy).toBe('user');
    expect(run.waitingFor).toBeNull();
    expect(run.status).toBe('running');
    expect(run.checks).toEqual({
      r1: {
        passed: false,
        observed: 'columns: district_id, geometry',
        subtaskId: 's1'
      },
      u2: { passed: true, observed: 'count = 12', subtaskId: 's1' }
    });

    run = fold(
      [
        ev({
          type: 'requirement_checked',
          requirement_id: 'r1',
          output: 'out/districts.gpkg',
          text: 'has columns',
          passed: true,
          observed: '',
          subtask_id: null
        }),
        ev({
          type: 'finished',
          status: 'partial',
          message: 'done in part',
          stats: {},
          unmet: ["'count' is an integer — count = 12.5"],
          not_verified: ['looks good on a map']
        })
      ],
      run
    );
    expect(run.checks.r1).toEqual({
      passed: true,
      observed: '',
      subtaskId: null
    }); // the latest check wins
    expect(run.unmet).toEqual(["'count' is an integer — count = 12.5"]);
    expect(run.notVerified).toEqual(['looks good on a map']);
    expect(run.status).toBe('partial');
  });

  it('states a contract without a wait outside approval mode, and reads a finished event of an older log', () => {
    const run = fold([
      ev({ ...started, approval_mode: false }),
      ev({
        type: 'contract_stated',
        contract: CONTRACT,
        by: 'request',
        awaiting_review: false
      }),
      ev({ type: 'finished', status: 'succeeded', message: 'ok', stats: {} })
    ]);
    expect(run.contract).toEqual(CONTRACT);
    expect(run.waitingFor).toBeNull();
    expect(run.unmet).toEqual([]);
    expect(run.notVerified).toEqual([]);
  });
});

afterEach(cleanup);

function one(el: HTMLElement, testid: string): HTMLElement {
  const found = all(el, testid);
  expect(found).toHaveLength(1);
  return found[0];
}

function type(el: HTMLElement, value: string): void {
  act(() => {
    Object.getOwnPropertyDescriptor(
      HTMLInputElement.prototype,
      'value'
    )!.set!.call(el, value);
    el.dispatchEvent(new Event('input', { bubbles: true }));
  });
}

function pick(el: HTMLElement, value: string): void {
  act(() => {
    (el as HTMLSelectElement).value = value;
    el.dispatchEvent(new Event('change', { bubbles: true }));
  });
}

function view(props: Partial<IContractViewProps> = {}) {
  return (
    <ContractView
      contract={CONTRACT}
      checks={{}}
      by="request"
      subtasks={[{ id: 's1' }, { id: 's2' }]}
      finished={false}
      unmet={[]}
      notVerified={[]}
      reviewing={false}
      onAction={async () => undefined}
      {...props}
    />
  );
}

describe('ContractView', () => {
  it('shows each requirement under its file with what holds, what fails and what was seen', () => {
    const contract: IContract = {
      ...CONTRACT,
      requirements: [
        ...CONTRACT.requirements,
        req('u5', 'out/summary.json', "'total' is not negative", {
          origin: 'user'
        })
      ]
    };
    const el = render(
      view({
        contract,
        by: 'user',
        checks: {
          r1: {
            passed: false,
            observed: 'columns: district_id, geometry',
            subtaskId: 's2'
          },
          r3: { passed: true, observed: 'EPSG:3035', subtaskId: null }
        }
      })
    );
    const groups = all(el, 'geoagent-contract-output');
    expect(groups.map(g => g.dataset.output)).toEqual([
      'out/districts.gpkg',
      'out/summary.json'
    ]);
    const rows = (group: HTMLElement) =>
      all(group, 'geoagent-requirement').map(r => r.dataset.requirement);
    expect(rows(groups[0])).toEqual(['r1', 'r3', 'r4']);
    expect(rows(groups[1])).toEqual(['r2', 'u5']);

    const byId = (id: string) =>
      el.querySelector(`[data-requirement="${id}"]`) as HTMLElement;
    const summary = (id: string) => ({
      status: byId(id).dataset.status,
      mark: one(byId(id), 'geoagent-requirement-status').textContent,
      label: one(byId(id), 'geoagent-requirement-label').textContent,
      when: all(byId(id), 'geoagent-requirement-when').map(w => w.textContent),
      observed: all(byId(id), 'geoagent-requirement-observed').map(
        o => o.textContent
      ),
      you: all(byId(id), 'geoagent-requirement-you').length
    });
    expect(summary('r1')).toEqual({
      status: 'unmet',
      mark: '✗',
      label: 'fails',
      when: ['after step 2'],
      observed: ['seen: columns: district_id, geometry'],
      you: 0
    });
    expect(summary('r3')).toEqual({
      status: 'held',
      mark: '✓',
      label: 'holds',
      when: ['final check'],
      observed: [],
      you: 0
    });
    expect(summary('r4')).toEqual({
      status: 'not_verifiable',
      mark: '–',
      label: 'not verifiable',
      when: [],
      observed: [],
      you: 0
    });
    expect(summary('r2')).toEqual({
      status: 'unchecked',
      mark: '○',
      label: 'not checked yet',
      when: [],
      observed: [],
      you: 0
    });
    expect(summary('u5')).toEqual({
      status: 'unchecked',
      mark: '○',
      label: 'not checked yet',
      when: [],
      observed: [],
      you: 1
    });
    expect(one(byId('r1'), 'geoagent-requirement-text').textContent).toBe(
      'has columns district_id, area_km2'
    );
    // 4 checkable requirements (the note does not count), one holds.
    expect(one(el, 'geoagent-contract-summary').textContent).toBe(
      '1/4 hold · as you reviewed it'
    );
    expect(all(el, 'geoagent-contract-editor')).toHaveLength(0);
    expect(all(el, 'geoagent-requirement-input')).toHaveLength(0);
    expect(all(el, 'geoagent-contract-unmet')).toHaveLength(0); // lists come with the end of the run
  });

  it('tags what the user added and what the model proposed, not what the request said', () => {
    const contract: IContract = {
      ...CONTRACT,
      requirements: [
        ...CONTRACT.requirements,
        req('m1', 'out/summary.json', 'rows are sorted by `total` descending', {
          kind: 'sorted',
          origin: 'model'
        }),
        req('u6', 'out/summary.json', "'count' holds integers", {
          kind: 'integer',
          origin: 'user'
        })
      ]
    };
    const el = render(view({ contract }));
    const tags = (id: string) =>
      Array.from(
        el.querySelectorAll(`[data-requirement="${id}"] .jp-GeoAgent-tag`)
      ).map(t => t.textContent);
    expect(['r1', 'r3', 'm1', 'u6'].map(tags)).toEqual([
      [],
      [],
      ['proposed'],
      ['you']
    ]);
    expect(all(el, 'geoagent-requirement-model')).toHaveLength(1);
  });

  it('shows an unsure reading as not verifiable, never counted, with the words it was read from', () => {
    const said = 'Emit each group as one MultiPolygon.';
    const contract: IContract = {
      ...CONTRACT,
      requirements: [
        ...CONTRACT.requirements,
        req('r5', 'out/districts.gpkg', 'every feature is a MultiPolygon', {
          kind: 'geometry_types',
          said,
          sure: false
        })
      ]
    };
    const el = render(
      view({
        contract,
        checks: { r3: { passed: true, observed: 'EPSG:3035', subtaskId: null } }
      })
    );
    const r5 = el.querySelector('[data-requirement="r5"]') as HTMLElement;
    expect(r5.dataset.status).toBe('not_verifiable');
    expect(all(r5, 'geoagent-requirement-unsure')).toHaveLength(1);
    expect(one(r5, 'geoagent-requirement-text').getAttribute('title')).toBe(
      `From the request: “${said}”`
    );
    expect(one(el, 'geoagent-contract-summary').textContent).toBe('1/3 hold'); // r1-r3; not the note, not r5
  });

  it('lists the unmet and not verified requirements after the run', () => {
    const el = render(
      view({
        finished: true,
        checks: { r1: { passed: true, observed: '', subtaskId: null } },
        unmet: [
          'CRS is EPSG:3035 — EPSG:4326',
          "has keys 'total', 'count' — keys: total"
        ],
        notVerified: ['looks good on a map']
      })
    );
    expect(
      Array.from(one(el, 'geoagent-contract-unmet').querySelectorAll('li')).map(
        li => li.textContent
      )
    ).toEqual([
      'CRS is EPSG:3035 — EPSG:4326',
      "has keys 'total', 'count' — keys: total"
    ]);
    expect(
      Array.from(
        one(el, 'geoagent-contract-not-verified').querySelectorAll('li')
      ).map(li => li.textContent)
    ).toEqual(['looks good on a map']);
    // A requirement that was never checked is "not checked" once the run is over, not "yet".
    const r2 = el.querySelector('[data-requirement="r2"]') as HTMLElement;
    expect(one(r2, 'geoagent-requirement-label').textContent).toBe(
      'not checked'
    );
  });
});

describe('ContractView under review', () => {
  function review(
    onAction: (a: IAction) => Promise<void>,
    contract = CONTRACT
  ) {
    return render(view({ contract, reviewing: true, onAction }));
  }
  const rowOf = (el: HTMLElement, id: string) =>
    all(el, 'geoagent-requirement-edit-row').find(
      r => r.dataset.requirement === id
    )!;

  it('sends the list as the user left it: kept, reworded, deleted and added requirements', async () => {
    const actions: IAction[] = [];
    const el = review(async a => void actions.push(a));
    const inputs = all(el, 'geoagent-requirement-input') as HTMLInputElement[];
    // Grouped by file: r1, r3, r4 | r2.
    expect(inputs.map(i => i.value)).toEqual([
      'has columns district_id, area_km2',
      'CRS is EPSG:3035',
      'looks good on a map',
      "has keys 'total', 'count'"
    ]);
    expect(inputs.map(i => i.getAttribute('aria-label'))).toEqual([
      'Requirement for out/districts.gpkg',
      'Requirement for out/districts.gpkg',
      'Requirement for out/districts.gpkg',
      'Requirement for out/summary.json'
    ]);
    expect(rowOf(el, 'r4').textContent).toContain('not verifiable');

    type(inputs[1], 'CRS is EPSG:25832'); // reworded
    type(inputs[0], '  has columns district_id, area_km2 '); // only spaces: unchanged
    expect(all(rowOf(el, 'r3'), 'geoagent-requirement-you')).toHaveLength(1);
    expect(all(rowOf(el, 'r1'), 'geoagent-requirement-you')).toHaveLength(0);

    const del = one(rowOf(el, 'r4'), 'geoagent-requirement-delete');
    expect(del.getAttribute('aria-label')).toBe(
      'Delete requirement: looks good on a map'
    );
    act(() => del.click());
    expect(rowOf(el, 'r4')).toBeUndefined();
    // Focus goes to the next requirement (the summary's), not to the page.
    expect(document.activeElement).toBe(
      all(rowOf(el, 'r2'), 'geoagent-requirement-input')[0]
    );

    // Two outputs: the new requirement says which file it is for.
    const picker = one(
      el,
      'geoagent-requirement-new-output'
    ) as HTMLSelectElement;
    expect(Array.from(picker.options).map(o => o.value)).toEqual([
      'out/districts.gpkg',
      'out/summary.json'
    ]);
    expect(picker.getAttribute('aria-label')).toBe(
      'Output file of the new requirement'
    );
    const add = one(el, 'geoagent-requirement-add') as HTMLButtonElement;
    expect(add.disabled).toBe(true);
    pick(picker, 'out/summary.json');
    type(one(el, 'geoagent-requirement-new'), " 'count' is an integer ");
    await act(async () => add.click());
    expect(
      (one(el, 'geoagent-requirement-new') as HTMLInputElement).value
    ).toBe('');
    const summaryGroup = all(el, 'geoagent-contract-output').find(
      g => g.dataset.output === 'out/summary.json'
    )!;
    expect(
      (
        all(summaryGroup, 'geoagent-requirement-input') as HTMLInputElement[]
      ).map(i => i.value)
    ).toEqual(["has keys 'total', 'count'", "'count' is an integer"]);

    await act(async () => one(el, 'geoagent-contract-use').click());
    expect(actions).toEqual([
      {
        kind: 'contract',
        subtask_id: 'contract',
        requirements: [
          {
            id: 'r1',
            output: 'out/districts.gpkg',
            text: 'has columns district_id, area_km2'
          },
          {
            id: 'r2',
            output: 'out/summary.json',
            text: "has keys 'total', 'count'"
          },
          { id: 'r3', output: 'out/districts.gpkg', text: 'CRS is EPSG:25832' },
          { id: '', output: 'out/summary.json', text: "'count' is an integer" }
        ]
      }
    ]);
  });

  it('accepts as proposed with an approve, whatever was edited', async () => {
    const actions: IAction[] = [];
    const el = review(async a => void actions.push(a));
    type(all(el, 'geoagent-requirement-input')[0], 'something else');
    await act(async () => one(el, 'geoagent-contract-accept').click());
    expect(actions).toEqual([{ kind: 'approve', subtask_id: 'contract' }]);
  });

  it('disables everything while sending, shows the refusal, and keeps what the user typed', async () => {
    const sent: IAction[] = [];
    let answer: { resolve: () => void; reject: (e: Error) => void } | null =
      null;
    const el = review(
      a =>
        new Promise<void>((resolve, reject) => {
          sent.push(a);
          answer = { resolve, reject };
        })
    );
    type(
      all(el, 'geoagent-requirement-input')[0],
      'has columns district_id, area_km2, name'
    );
    type(one(el, 'geoagent-requirement-new'), 'name is not empty'); // typed, not added yet
    const use = one(el, 'geoagent-contract-use') as HTMLButtonElement;
    const accept = one(el, 'geoagent-contract-accept') as HTMLButtonElement;
    await act(async () => use.click());
    expect(use.disabled).toBe(true);
    expect(accept.disabled).toBe(true);
    expect(use.textContent).toBe('Sending…');
    expect(el.querySelector('fieldset')!.disabled).toBe(true); // inputs, delete and add too
    // A requirement typed into the add row counts (for the first output: one picker value).
    expect(sent[0].requirements).toEqual([
      {
        id: 'r1',
        output: 'out/districts.gpkg',
        text: 'has columns district_id, area_km2, name'
      },
      {
        id: 'r2',
        output: 'out/summary.json',
        text: "has keys 'total', 'count'"
      },
      { id: 'r3', output: 'out/districts.gpkg', text: 'CRS is EPSG:3035' },
      { id: 'r4', output: 'out/districts.gpkg', text: 'looks good on a map' },
      { id: '', output: 'out/districts.gpkg', text: 'name is not empty' }
    ]);

    await act(async () =>
      answer!.reject(
        new Error(
          'invalid request: requirements.0.text: String should have at least 1 character'
        )
      )
    );
    expect(one(el, 'geoagent-action-error').textContent).toBe(
      'Not sent: invalid request: requirements.0.text: String should have at least 1 character'
    );
    expect(one(el, 'geoagent-action-error').getAttribute('role')).toBe('alert');
    expect(use.disabled).toBe(false);
    expect(el.querySelector('fieldset')!.disabled).toBe(false);
    expect(
      (all(el, 'geoagent-requirement-input')[0] as HTMLInputElement).value
    ).toBe('has columns district_id, area_km2, name');
    expect(
      (one(el, 'geoagent-requirement-new') as HTMLInputElement).value
    ).toBe('name is not empty');

    await act(async () => use.click()); // the same list again
    expect(sent[1]).toEqual(sent[0]);
    expect(all(el, 'geoagent-action-error')).toHaveLength(0);
    await act(async () => answer!.resolve());
    expect(all(el, 'geoagent-action-error')).toHaveLength(0);
  });

  it('will not send an emptied requirement, and has no output picker for one output', async () => {
    const actions: IAction[] = [];
    const single: IContract = {
      outputs: [{ path: 'out.csv', format: 'CSV' }],
      requirements: [
        req('r1', 'out.csv', 'has column id'),
        req('r2', 'out.csv', 'id is unique', { kind: 'unique' })
      ]
    };
    const el = review(async a => void actions.push(a), single);
    expect(all(el, 'geoagent-requirement-new-output')).toHaveLength(0);
    expect(one(el, 'geoagent-requirement-new').getAttribute('aria-label')).toBe(
      'New requirement for out.csv'
    );
    const use = one(el, 'geoagent-contract-use') as HTMLButtonElement;
    type(all(el, 'geoagent-requirement-input')[1], '   ');
    expect(use.disabled).toBe(true);
    expect(one(el, 'geoagent-contract-empty').textContent).toBe(
      'A requirement is empty: write it or delete it.'
    );
    act(() => all(el, 'geoagent-requirement-delete')[1].click());
    expect(use.disabled).toBe(false);
    type(one(el, 'geoagent-requirement-new'), 'has column name');
    act(() => {
      one(el, 'geoagent-requirement-add')
        .closest('form')!
        .dispatchEvent(
          new Event('submit', { bubbles: true, cancelable: true })
        );
    }); // Enter in the field adds it
    await act(async () => use.click());
    expect(actions).toEqual([
      {
        kind: 'contract',
        subtask_id: 'contract',
        requirements: [
          { id: 'r1', output: 'out.csv', text: 'has column id' },
          { id: '', output: 'out.csv', text: 'has column name' }
        ]
      }
    ]);
  });

  it('sends an empty list when every requirement is deleted', async () => {
    const actions: IAction[] = [];
    const el = review(async a => void actions.push(a));
    for (let i = 0; i < 4; i++) {
      act(() => all(el, 'geoagent-requirement-delete')[0].click());
    }
    expect(all(el, 'geoagent-requirement-edit-row')).toHaveLength(0);
    expect(document.activeElement).toBe(one(el, 'geoagent-requirement-new')); // nothing left but the add row
    await act(async () => one(el, 'geoagent-contract-use').click());
    expect(actions).toEqual([
      { kind: 'contract', subtask_id: 'contract', requirements: [] }
    ]);
  });
});

describe('contractEdits', () => {
  it('keeps an unchanged requirement exactly, trims reworded and new ones', () => {
    expect(
      contractEdits([
        { id: 'r1', output: 'a.csv', text: ' same ', original: 'same' },
        {
          id: 'r2',
          output: 'a.csv',
          text: ' new words ',
          original: 'old words'
        },
        { id: '', output: 'a.csv', text: ' added ', original: '' }
      ])
    ).toEqual([
      { id: 'r1', output: 'a.csv', text: 'same' },
      { id: 'r2', output: 'a.csv', text: 'new words' },
      { id: '', output: 'a.csv', text: 'added' }
    ]);
  });
});
