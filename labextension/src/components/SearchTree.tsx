/**
 * The MCTS search tree of one subtask as a compact indented tree: each node's
 * status (icon + colour), the requirements its trial met (of those checked),
 * Q and visits; details (prior, reward, which requirements, error) on hover;
 * the path to the chosen node highlighted.
 *
 * Large trees stay smooth: rows have a fixed height and only those in view
 * (plus a margin) are in the DOM, so 200 or 2,000 nodes cost the same to
 * render; subtrees can be collapsed. Keyboard: focus the tree, then
 * Up/Down to move, Left/Right to collapse/expand, Enter to open a node.
 */
import * as React from 'react';

import { ISearchNode } from '../runs/model';
import { statusLook } from './StatusBadge';

export const ROW_HEIGHT = 22;
const MAX_HEIGHT = 308; // 14 rows
const OVERSCAN = 6;

export interface ISearchTreeProps {
  nodes: Record<string, ISearchNode>;
  /** Node ids in creation order (siblings keep that order). */
  order: string[];
  selected: string | null;
  onSelect: (nodeId: string) => void;
  /** Height of the scroll area in px (tests; default: up to 14 rows). */
  height?: number;
}

export interface ITreeRow {
  id: string;
  depth: number;
  hasChildren: boolean;
  collapsed: boolean;
  onPath: boolean;
}

/** Children per parent in creation order, the roots, and the chosen path. */
export function treeIndex(nodes: Record<string, ISearchNode>, order: string[]) {
  const children = new Map<string | null, string[]>();
  for (const id of order) {
    const node = nodes[id];
    if (!node) {
      continue;
    }
    const parent = node.parentId && nodes[node.parentId] ? node.parentId : null;
    const list = children.get(parent) ?? [];
    list.push(id);
    children.set(parent, list);
  }
  const onPath = new Set<string>();
  const chosen = order.find(id => nodes[id]?.status === 'chosen');
  for (
    let id: string | null | undefined = chosen;
    id;
    id = nodes[id]?.parentId
  ) {
    if (onPath.has(id)) {
      break; // a malformed cycle must not hang the panel
    }
    onPath.add(id);
  }
  return { children, onPath };
}

/** Visible rows, depth first, skipping collapsed subtrees. */
export function flattenTree(
  nodes: Record<string, ISearchNode>,
  order: string[],
  collapsed: ReadonlySet<string>
): ITreeRow[] {
  const { children, onPath } = treeIndex(nodes, order);
  const rows: ITreeRow[] = [];
  const seen = new Set<string>();
  const stack: Array<{ id: string; depth: number }> = (children.get(null) ?? [])
    .map(id => ({ id, depth: 0 }))
    .reverse();
  while (stack.length) {
    const { id, depth } = stack.pop()!;
    if (seen.has(id)) {
      continue;
    }
    seen.add(id);
    const kids = children.get(id) ?? [];
    const isCollapsed = collapsed.has(id);
    rows.push({
      id,
      depth,
      hasChildren: kids.length > 0,
      collapsed: isCollapsed,
      onPath: onPath.has(id)
    });
    if (!isCollapsed) {
      for (let i = kids.length - 1; i >= 0; i--) {
        stack.push({ id: kids[i], depth: depth + 1 });
      }
    }
  }
  return rows;
}

/** "s3-12" -> "12": node ids repeat the subtask's id, which the panel already shows. */
export function shortId(id: string): string {
  const dash = id.lastIndexOf('-');
  return dash >= 0 && dash < id.length - 1 ? id.slice(dash + 1) : id;
}

/** Hover text: everything the row has no room for. */
export function nodeTitle(node: ISearchNode): string {
  const lines = [
    `Node ${shortId(node.id)}: ${statusLook(node.status).label}`,
    `visits ${node.visits} · Q ${node.q.toFixed(2)} · prior ${node.prior.toFixed(2)}` +
      (node.reward !== null ? ` · reward ${node.reward.toFixed(2)}` : '')
  ];
  const checked = requirementsLine(node);
  if (checked) {
    lines.push(checked);
  }
  if (node.error) {
    lines.push(`error: ${node.error}`);
  }
  return lines.join('\n');
}

/** "requirements met: r1, r3 · not met: r2": what the node's trial found of the deliverables. */
export function requirementsLine(node: ISearchNode): string {
  const met = node.met ?? [];
  const unmet = node.unmet ?? [];
  if (!met.length && !unmet.length) {
    return '';
  }
  return (
    `requirements met: ${met.join(', ') || 'none'}` +
    (unmet.length ? ` · not met: ${unmet.join(', ')}` : '')
  );
}

function firstLine(code: string): string {
  const line = code
    .split('\n')
    .find(l => l.trim() && !l.trim().startsWith('#'));
  return (line ?? code.split('\n')[0] ?? '').trim();
}

export function SearchTree(props: ISearchTreeProps): JSX.Element {
  const [collapsed, setCollapsed] = React.useState<ReadonlySet<string>>(
    new Set()
  );
  const [scrollTop, setScrollTop] = React.useState(0);
  const [active, setActive] = React.useState(0);
  const [hovered, setHovered] = React.useState<string | null>(null);
  const scroller = React.useRef<HTMLDivElement>(null);

  const rows = React.useMemo(
    () => flattenTree(props.nodes, props.order, collapsed),
    [props.nodes, props.order, collapsed]
  );
  const height =
    props.height ?? Math.min(MAX_HEIGHT, Math.max(rows.length, 1) * ROW_HEIGHT);
  const first = Math.max(0, Math.floor(scrollTop / ROW_HEIGHT) - OVERSCAN);
  const last = Math.min(
    rows.length,
    Math.ceil((scrollTop + height) / ROW_HEIGHT) + OVERSCAN
  );
  const counts = React.useMemo(() => {
    const all = props.order.filter(id => props.nodes[id]);
    return {
      total: all.length,
      failed: all.filter(id => props.nodes[id].status === 'failed').length
    };
  }, [props.nodes, props.order]);

  const toggle = (id: string) =>
    setCollapsed(old => {
      const next = new Set(old);
      if (next.has(id)) {
        next.delete(id);
      } else {
        next.add(id);
      }
      return next;
    });

  const moveTo = (index: number) => {
    const i = Math.max(0, Math.min(rows.length - 1, index));
    setActive(i);
    const el = scroller.current;
    if (el) {
      const top = i * ROW_HEIGHT;
      if (top < el.scrollTop) {
        el.scrollTop = top;
      } else if (top + ROW_HEIGHT > el.scrollTop + height) {
        el.scrollTop = top + ROW_HEIGHT - height;
      }
      setScrollTop(el.scrollTop);
    }
  };

  const onKeyDown = (e: React.KeyboardEvent) => {
    const row = rows[active];
    switch (e.key) {
      case 'ArrowDown':
        moveTo(active + 1);
        break;
      case 'ArrowUp':
        moveTo(active - 1);
        break;
      case 'ArrowRight':
        if (row?.hasChildren && row.collapsed) {
          toggle(row.id);
        }
        break;
      case 'ArrowLeft':
        if (row?.hasChildren && !row.collapsed) {
          toggle(row.id);
        }
        break;
      case 'Enter':
      case ' ':
        if (row) {
          props.onSelect(row.id);
        }
        break;
      default:
        return;
    }
    e.preventDefault();
  };

  const activeRow = rows[Math.min(active, rows.length - 1)];
  // Details of the node under the mouse, else the keyboard's, else the chosen one.
  const infoId =
    (hovered && props.nodes[hovered] ? hovered : null) ??
    activeRow?.id ??
    props.order.find(id => props.nodes[id]?.status === 'chosen');
  const info = infoId ? props.nodes[infoId] : undefined;
  return (
    <div className="jp-GeoAgent-tree" data-testid="geoagent-tree">
      <div className="jp-GeoAgent-tree-legend" aria-hidden="true">
        <span className="jp-GeoAgent-tone-ok">✓ runs</span>
        <span className="jp-GeoAgent-tone-bad">✗ failed</span>
        <span className="jp-GeoAgent-tone-ok">★ chosen</span>
        <span className="jp-GeoAgent-tone-idle">○ not tried</span>
        <span
          className="jp-GeoAgent-tree-count"
          data-testid="geoagent-tree-count"
        >
          {counts.total} nodes, {counts.failed} failed
        </span>
      </div>
      <div
        ref={scroller}
        className="jp-GeoAgent-tree-scroll"
        style={{ height }}
        role="tree"
        aria-label="Search tree"
        tabIndex={0}
        aria-activedescendant={
          activeRow ? `geoagent-node-${activeRow.id}` : undefined
        }
        onKeyDown={onKeyDown}
        onScroll={e => setScrollTop((e.target as HTMLDivElement).scrollTop)}
      >
        <div style={{ height: rows.length * ROW_HEIGHT, position: 'relative' }}>
          {rows.slice(first, last).map((row, k) => {
            const node = props.nodes[row.id];
            const index = first + k;
            const { tone, icon } = statusLook(node.status);
            return (
              <div
                key={row.id}
                id={`geoagent-node-${row.id}`}
                role="treeitem"
                aria-level={row.depth + 1}
                aria-expanded={row.hasChildren ? !row.collapsed : undefined}
                aria-selected={props.selected === row.id}
                data-testid="geoagent-tree-node"
                data-node={row.id}
                data-status={node.status}
                className={[
                  'jp-GeoAgent-tree-row',
                  `jp-GeoAgent-tone-${tone}`,
                  row.onPath ? 'jp-GeoAgent-tree-onPath' : '',
                  props.selected === row.id ? 'jp-mod-selected' : '',
                  index === active ? 'jp-mod-active' : ''
                ].join(' ')}
                style={{
                  top: index * ROW_HEIGHT,
                  height: ROW_HEIGHT,
                  paddingLeft: 4 + row.depth * 14
                }}
                title={nodeTitle(node)}
                onMouseEnter={() => setHovered(row.id)}
                onMouseLeave={() => setHovered(h => (h === row.id ? null : h))}
                onClick={() => {
                  setActive(index);
                  props.onSelect(row.id);
                }}
              >
                <span
                  className="jp-GeoAgent-tree-toggle"
                  onClick={e => {
                    e.stopPropagation();
                    if (row.hasChildren) {
                      toggle(row.id);
                    }
                  }}
                  aria-hidden="true"
                >
                  {row.hasChildren ? (row.collapsed ? '▸' : '▾') : ''}
                </span>
                <span className="jp-GeoAgent-tree-icon" aria-hidden="true">
                  {icon}
                </span>
                <span className="jp-GeoAgent-tree-code">
                  {node.code ? firstLine(node.code) : 'start'}
                </span>
                <span className="jp-GeoAgent-tree-stats">
                  {node.met?.length || node.unmet?.length ? (
                    <span
                      className="jp-GeoAgent-tree-met"
                      data-testid="geoagent-tree-met"
                    >
                      {node.met?.length ?? 0}/
                      {(node.met?.length ?? 0) + (node.unmet?.length ?? 0)} ✓
                      ·{' '}
                    </span>
                  ) : null}
                  Q {node.q.toFixed(2)} · {node.visits}v
                </span>
              </div>
            );
          })}
        </div>
      </div>
      {info && (
        <div
          className="jp-GeoAgent-tree-info"
          data-testid="geoagent-tree-info"
          aria-live="polite"
        >
          {nodeTitle(info)
            .split('\n')
            .map((line, i) => (
              <div
                key={i}
                className={i === 0 ? 'jp-GeoAgent-tree-info-head' : undefined}
              >
                {line}
              </div>
            ))}
        </div>
      )}
    </div>
  );
}
