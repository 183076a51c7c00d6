/**
 * The panel's view of open notebooks: which one the user works in, and the
 * model of the one a run belongs to. An interface so the panel's tests need
 * no notebook widgets; `trackerAccess` adapts JupyterLab's notebook tracker.
 */
import type { ISharedNotebook } from '@jupyter/ydoc';
import type { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';
import { ISignal, Signal } from '@lumino/signaling';

export interface INotebookHandle {
  /** Server-relative path (what the runs API calls `notebook_path`). */
  path: string;
  /** Shared model, null while the notebook loads. */
  model: ISharedNotebook | null;
  /** Id of the active cell (new cells go below it). */
  activeCellId: string | null;
}

export interface INotebookAccess {
  /** The notebook the user works in (the last one focused), or null. */
  current(): INotebookHandle | null;
  /** The open notebook at `path`, or null. */
  find(path: string): INotebookHandle | null;
  /** Emitted when the current notebook changes (or is renamed). */
  readonly changed: ISignal<INotebookAccess, void>;
}

function handle(
  panel: NotebookPanel | null | undefined
): INotebookHandle | null {
  if (!panel || panel.isDisposed) {
    return null;
  }
  return {
    path: panel.context.path,
    model: panel.content.model?.sharedModel ?? null,
    activeCellId: panel.content.activeCell?.model.id ?? null
  };
}

export class TrackerAccess implements INotebookAccess {
  constructor(private _tracker: INotebookTracker) {
    _tracker.currentChanged.connect((_, panel) => {
      this._watched?.context.pathChanged.disconnect(this._onPath, this);
      this._watched = panel;
      panel?.context.pathChanged.connect(this._onPath, this);
      this._changed.emit();
    });
  }

  get changed(): ISignal<INotebookAccess, void> {
    return this._changed;
  }

  current(): INotebookHandle | null {
    return handle(this._tracker.currentWidget);
  }

  find(path: string): INotebookHandle | null {
    return handle(this._tracker.find(panel => panel.context.path === path));
  }

  private _onPath(): void {
    this._changed.emit();
  }

  private _watched: NotebookPanel | null = null;
  private _changed = new Signal<INotebookAccess, void>(this);
}
