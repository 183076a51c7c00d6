/**
 * What changed from one attempt to the next: why the earlier one failed,
 * what the repair diagnosed, and a unified diff of the code. Any attempt can
 * be compared with the one before it (for a search node: with its parent).
 */
import * as React from 'react';

import { IAttempt } from '../runs/model';
import { CodeView } from './CodeView';

export interface IAttemptDiffProps {
  attempts: IAttempt[];
  /** Which attempt to show against its predecessor (its `n`); default: the last one. */
  selected?: number;
  onSelect?: (n: number) => void;
}

/** The attempt `a` was made from: its search parent, else the one before it. */
export function predecessor(
  attempts: IAttempt[],
  a: IAttempt
): IAttempt | undefined {
  if (a.parentId) {
    const parent = attempts.find(x => x.nodeId === a.parentId);
    if (parent) {
      return parent;
    }
  }
  return attempts.filter(x => x.n < a.n).pop();
}

function who(a: IAttempt): string {
  return a.by === 'human' ? `your edit (${a.n})` : `attempt ${a.n}`;
}

export function AttemptDiff(props: IAttemptDiffProps): JSX.Element | null {
  const pairs = props.attempts
    .map(a => ({ to: a, from: predecessor(props.attempts, a) }))
    .filter((p): p is { to: IAttempt; from: IAttempt } => !!p.from);
  const [own, setOwn] = React.useState<number | null>(null);
  if (pairs.length === 0) {
    return null;
  }
  const wanted = props.selected ?? own;
  const pair = pairs.find(p => p.to.n === wanted) ?? pairs[pairs.length - 1];
  const select = (n: number) => {
    setOwn(n);
    props.onSelect?.(n);
  };
  const index = pairs.indexOf(pair);
  return (
    <div className="jp-GeoAgent-diff" data-testid="geoagent-diff">
      <div className="jp-GeoAgent-diff-bar">
        <button
          type="button"
          className="jp-Button jp-mod-minimal"
          aria-label="Previous change"
          disabled={index === 0}
          onClick={() => select(pairs[index - 1].to.n)}
        >
          ‹
        </button>
        <label className="jp-GeoAgent-field">
          <span className="jp-GeoAgent-visuallyHidden">Compare</span>
          <select
            className="jp-mod-styled"
            data-testid="geoagent-diff-select"
            value={pair.to.n}
            onChange={e => select(Number(e.target.value))}
          >
            {pairs.map(p => (
              <option key={p.to.n} value={p.to.n}>
                {`${who(p.from)} → ${who(p.to)}`}
              </option>
            ))}
          </select>
        </label>
        <button
          type="button"
          className="jp-Button jp-mod-minimal"
          aria-label="Next change"
          disabled={index === pairs.length - 1}
          onClick={() => select(pairs[index + 1].to.n)}
        >
          ›
        </button>
      </div>
      {pair.from.error && (
        <p className="jp-GeoAgent-diff-why" data-testid="geoagent-diff-error">
          <strong>{who(pair.from)} failed:</strong> {pair.from.error}
        </p>
      )}
      {pair.to.repair && (
        <p className="jp-GeoAgent-diff-why" data-testid="geoagent-diff-repair">
          <strong>Repair ({pair.to.repair.strategy.replace('_', ' ')}):</strong>{' '}
          {pair.to.repair.diagnosis}
        </p>
      )}
      <CodeView
        value={pair.to.code}
        original={pair.from.code}
        ariaLabel={`Changes from ${who(pair.from)} to ${who(pair.to)}`}
        testid="geoagent-diff-view"
        className="jp-GeoAgent-diff-view"
      />
    </div>
  );
}
