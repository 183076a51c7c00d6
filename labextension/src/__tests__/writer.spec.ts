/**
 * Accepted code lands in the notebook below the active cell, with outputs,
 * a heading per subtask, and never touches the user's own cells.
 */
import { YNotebook } from '@jupyter/ydoc';

import { ISubtaskView } from '../runs/model';
import { RunCellWriter, runCellInfo } from '../notebook/writer';
import { result } from './fakes';

function notebook(): YNotebook {
  const nb = new YNotebook();
  nb.insertCells(0, [
    {
      id: 'user-1',
      cell_type: 'code',
      source: 'import geopandas as gpd',
      metadata: {},
      outputs: [],
      execution_count: 1
    },
    { id: 'user-2', cell_type: 'markdown', source: '# My notes', metadata: {} },
    {
      id: 'user-3',
      cell_type: 'code',
      source: 'x = 1',
      metadata: {},
      outputs: [],
      execution_count: 2
    }
  ]);
  return nb;
}

function solved(
  id: string,
  description: string,
  code: string,
  by: 'agent' | 'human' = 'agent'
): ISubtaskView {
  const outputs = [
    { output_type: 'stream', name: 'stdout', text: `${id} done\n` },
    {
      output_type: 'display_data',
      data: { 'text/html': '<div class="map">map</div>', 'text/plain': 'Map' },
      metadata: {}
    }
  ];
  return {
    id,
    description,
    status: 'solved',
    attempts: [],
    code,
    error: '',
    crsAdvice: '',
    nodes: {},
    nodeOrder: [],
    hints: [],
    by,
    solved: { code, by, result: result('ok', { outputs }) as any }
  };
}

const snapshot = (nb: YNotebook) =>
  nb.cells.map(c => [c.getId(), c.cell_type, c.getSource()]);

describe('RunCellWriter', () => {
  it('inserts heading + code cell with outputs below the anchor, in step order', () => {
    const nb = notebook();
    const users = snapshot(nb);
    const writer = new RunCellWriter('run1', 'user-1');
    writer.write(
      nb,
      solved('s1', 'Load the parcels', 'parcels = gpd.read_file("p.gpkg")'),
      0
    );
    writer.write(
      nb,
      solved('s2', 'Map the areas', 'm = parcels.explore()\nm', 'human'),
      1
    );

    const cells = nb.cells;
    expect(
      cells.map(c =>
        c.getId().startsWith('geoagent-') ? c.cell_type : c.getId()
      )
    ).toEqual([
      'user-1',
      'markdown',
      'code',
      'markdown',
      'code',
      'user-2',
      'user-3'
    ]);
    expect(cells[1].getSource()).toBe('### GeoAgent step 1: Load the parcels');
    expect(cells[3].getSource()).toBe(
      '### GeoAgent step 2: Map the areas (your fix)'
    );
    expect(cells[2].getSource()).toBe('parcels = gpd.read_file("p.gpkg")');
    const outputs = (cells[4] as any).getOutputs();
    expect(outputs.map((o: any) => o.output_type)).toEqual([
      'stream',
      'display_data'
    ]);
    expect(outputs[1].data['text/html']).toContain('map');
    expect(runCellInfo(cells[4])).toMatchObject({
      run_id: 'run1',
      subtask_id: 's2',
      role: 'code',
      by: 'human'
    });
    expect(writer.cellIds).toEqual([1, 2, 3, 4].map(i => cells[i].getId()));
    // The user's cells are untouched, in the same order.
    expect(
      snapshot(nb).filter(([id]) => !String(id).startsWith('geoagent-'))
    ).toEqual(users);
  });

  it('never writes a step twice (a replayed stream) and follows its cells when moved', () => {
    const nb = notebook();
    const writer = new RunCellWriter('run1', 'user-3');
    const s1 = solved('s1', 'One', 'a = 1');
    expect(writer.write(nb, s1, 0)).toHaveLength(2);
    // After a page reload a new writer sees the cells by their metadata.
    expect(new RunCellWriter('run1', null).write(nb, s1, 0)).toEqual([]);
    expect(nb.cells).toHaveLength(5);
    // The user moves the run's cells to the top: the next subtask follows them.
    nb.moveCell(3, 0);
    nb.moveCell(4, 1);
    writer.write(nb, solved('s2', 'Two', 'b = 2'), 1);
    expect(nb.cells.slice(0, 4).map(c => c.getSource())).toEqual([
      '### GeoAgent step 1: One',
      'a = 1',
      '### GeoAgent step 2: Two',
      'b = 2'
    ]);
  });

  it('falls back to the end when the anchor is gone, and skips unsolved steps', () => {
    const nb = notebook();
    const writer = new RunCellWriter('run2', 'deleted-cell');
    expect(
      writer.write(nb, { ...solved('s1', 'x', 'y'), solved: undefined }, 0)
    ).toEqual([]);
    writer.write(nb, solved('s1', 'x', 'y = 1'), 0);
    expect(nb.cells.map(c => c.getSource()).slice(-2)).toEqual([
      '### GeoAgent step 1: x',
      'y = 1'
    ]);
  });
});
