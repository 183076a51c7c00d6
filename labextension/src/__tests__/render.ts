/**
 * Rendering for the component tests: a fresh element on the page per render,
 * re-rendered in place, unmounted and removed by `cleanup` after each test.
 */
import { act } from 'react';
import { createRoot, Root } from 'react-dom/client';

import './fakes';

let root: Root | null = null;
let host: HTMLElement | null = null;

export function render(element: JSX.Element): HTMLElement {
  const el = document.createElement('div');
  host = el;
  document.body.appendChild(el);
  act(() => {
    root = createRoot(el);
    root.render(element);
  });
  return el;
}

/** Renders `element` in place of what the last `render` showed. */
export function rerender(element: JSX.Element): void {
  act(() => root!.render(element));
}

/** For `afterEach`: unmounts what was rendered and takes its element off the page. */
export function cleanup(): void {
  act(() => root?.unmount());
  root = null;
  host?.remove();
  host = null;
}

export function all(el: HTMLElement, testid: string): HTMLElement[] {
  return Array.from(el.querySelectorAll(`[data-testid="${testid}"]`));
}
