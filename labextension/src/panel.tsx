/**
 * The GeoAgent side panel: a ReactWidget that owns the panel's state (server
 * status, models, the current run and its connection) and composes the
 * views in `components/`. Run events arrive over a `RunStream`; each solved
 * subtask is written into the run's notebook by a `RunCellWriter`.
 */
import { Notification } from '@jupyterlab/apputils';
import type * as nbformat from '@jupyterlab/nbformat';
import { ServerConnection } from '@jupyterlab/services';
import { ReactWidget, refreshIcon } from '@jupyterlab/ui-components';
import { Message, MessageLoop } from '@lumino/messaging';
import { Widget } from '@lumino/widgets';
import * as React from 'react';

import { fetchStatus, IStatus } from './api';
import { RequestBox, IRequestOptions } from './components/RequestBox';
import { RunView } from './components/RunView';
import { StatusState, StatusView } from './components/StatusView';
import { geoagentIcon } from './icons';
import { IChangesViewProps } from './components/ChangesView';
import { INotebookAccess } from './notebook/access';
import {
  acceptCells,
  NotebookWatch,
  rejectCells,
  rejectRun,
  runCells
} from './notebook/changes';
import { RunCellWriter } from './notebook/writer';
import {
  cancelRun,
  deleteRunVariables,
  fetchModels,
  fetchRun,
  fetchSubtaskOutputs,
  listRuns,
  RunStream,
  sendAction,
  startRun,
  StreamState
} from './runs/client';
import { applyEvent, emptyRun, isFinished, IRunView } from './runs/model';
import {
  IAction,
  IModelChoice,
  IRunState,
  IStartRunRequest,
  RunEvent
} from './runs/types';

/** Id of the panel in the shell (also the sidebar tab's `data-id`). */
export const PANEL_ID = 'geoagent-panel';

const LIVE = new Set([
  'running',
  'needs_human',
  'awaiting_approval',
  'awaiting_contract'
]);
/** How often a page without a live run looks for one (a chat run, a reload). */
const WATCH_MS = 4000;

export namespace GeoAgentPanel {
  export interface IOptions {
    /** Server settings; the default talks to the server that served Lab. */
    serverSettings?: ServerConnection.ISettings;
    /** How to read the status; tests may replace it. */
    loadStatus?: (settings?: ServerConnection.ISettings) => Promise<IStatus>;
    /** Open notebooks; without it runs cannot start (tests of the status view). */
    notebooks?: INotebookAccess;
    /** Bring the panel into view (the shell's job); enables notifications. */
    reveal?: () => void;
  }
}

export class GeoAgentPanel extends ReactWidget {
  constructor(options: GeoAgentPanel.IOptions = {}) {
    super();
    this._serverSettings = options.serverSettings;
    this._loadStatus = options.loadStatus ?? fetchStatus;
    this._notebooks = options.notebooks ?? null;
    this._reveal = options.reveal ?? null;
    this.id = PANEL_ID;
    this.addClass('jp-GeoAgent-panel');
    this.node.dataset.testid = 'geoagent-panel';
    this.title.icon = geoagentIcon;
    this.title.caption = 'GeoAgent';
    this._notebooks?.changed.connect(() => this.update(), this);
    this._watch.changed.connect(() => this.update(), this);
    if (this._notebooks) {
      // From page load on, even before the panel is opened: a run started in
      // the chat must put its cells into the notebook all the same.
      this._watching = setInterval(() => {
        if (!document.hidden) {
          void this.checkForRuns();
        }
      }, WATCH_MS);
      void this.checkForRuns();
    }
  }

  /** The status state the panel currently renders. */
  get statusState(): StatusState {
    return this._status;
  }

  /** The run the panel shows, if any. */
  get run(): IRunView | null {
    return this._run;
  }

  /** Cells the current run has inserted into its notebook. */
  get writer(): RunCellWriter | null {
    return this._writer;
  }

  /**
   * Re-read `/geoagent/status` (and the models) and re-render. Resolves once
   * the new state is rendered; answers of superseded calls are dropped so a
   * slow old request cannot overwrite a newer one.
   */
  async refresh(): Promise<void> {
    const ticket = ++this._ticket;
    this._setStatus({ kind: 'loading' });
    let next: StatusState;
    try {
      const status = await this._loadStatus(this._serverSettings);
      next = { kind: 'ready', status };
    } catch (error) {
      next = { kind: 'error', message: errorMessage(error) };
    }
    if (ticket !== this._ticket || this.isDisposed) {
      return;
    }
    this._setStatus(next);
    if (next.kind === 'ready' && this._notebooks && !this._models.length) {
      void this._loadModels();
    }
    await this.renderPromise;
  }

  /** Start a run on the current notebook; shows the server's message on failure. */
  async startRun(request: string): Promise<void> {
    const notebook = this._notebooks?.current() ?? null;
    if (!notebook) {
      this._startError =
        'Open a notebook first: GeoAgent runs code in its kernel.';
      this.update();
      return;
    }
    this._starting = true;
    this._startError = null;
    this.update();
    const body: IStartRunRequest = {
      request,
      notebook_path: notebook.path,
      strategy: this._options.strategy,
      approval_mode: this._options.approval
    };
    if (this._options.model) {
      body.model = this._options.model;
    }
    try {
      const state = await startRun(body, this._serverSettings);
      this._known.add(state.run_id);
      this.follow(state.run_id, {
        request,
        anchorId: notebook.activeCellId,
        write: true
      });
    } catch (error) {
      this._startError = errorMessage(error);
    } finally {
      this._starting = false;
      this.update();
    }
  }

  /**
   * Show a run and follow its events. With `write`, solved subtasks become
   * cells below `anchorId` in the run's notebook.
   */
  follow(
    runId: string,
    options: {
      request?: string;
      anchorId?: string | null;
      write?: boolean;
    } = {}
  ): void {
    this._stream?.dispose();
    this._run = emptyRun(runId, options.request ?? '');
    this._selected = null;
    this._cellsWritten = 0;
    this._rejectedAll = null;
    this._writer = options.write
      ? new RunCellWriter(runId, options.anchorId ?? null)
      : null;
    this._stream = new RunStream({
      runId,
      settings: this._serverSettings,
      onEvent: event => this._onEvent(event),
      onState: state => {
        this._connection = state;
        this.update();
      }
    });
    this._startTicking();
    this.update();
  }

  /**
   * Follow a run started elsewhere: from the chat (its "Open the GeoAgent
   * panel" button runs `geoagent:open-panel` with the run id), another tab,
   * or before a page reload. Its subtasks become cells like those of a run
   * started here; subtasks already in the notebook are not written again.
   */
  openRun(runId: string, request = ''): void {
    this._known.add(runId);
    if (this._run?.runId !== runId) {
      this.follow(runId, { request, write: true });
    }
  }

  /**
   * While nothing runs here, pick up a run working on a notebook open in this
   * page (after a reload, or started from the chat). Called on a timer.
   */
  async checkForRuns(): Promise<void> {
    if (!this._notebooks || (this._run && !isFinished(this._run.status))) {
      return;
    }
    let runs: IRunState[];
    try {
      runs = await listRuns(this._serverSettings);
    } catch {
      return; // the status section shows server trouble
    }
    const fresh = runs.find(
      r =>
        LIVE.has(r.status) &&
        !this._known.has(r.run_id) &&
        !!r.notebook &&
        !!this._notebooks?.find(r.notebook)
    );
    if (fresh && !(this._run && !isFinished(this._run.status))) {
      this.openRun(fresh.run_id, fresh.request);
      if (this._reveal && !this.isVisible) {
        Notification.info(
          `GeoAgent is working in ${fresh.notebook}: ${fresh.request}`,
          {
            autoClose: 8000,
            actions: [
              { label: 'Open GeoAgent', callback: () => this._reveal?.() }
            ]
          }
        );
      }
    }
  }

  /**
   * Undo run `runId` (the chat's "Undo this run", command `geoagent:undo-run`):
   * show it, and take its cells out of its notebook in one undoable step.
   * `open` opens the notebook when it is not open here. Returns the cells removed.
   */
  async undoRun(
    runId: string,
    open?: (path: string) => Promise<unknown>
  ): Promise<number> {
    const state = await fetchRun(runId, this._serverSettings);
    if (!state.notebook) {
      throw new Error(`run ${runId} has no notebook to undo`);
    }
    let handle = this._notebooks?.find(state.notebook) ?? null;
    if (!handle?.model && open) {
      await open(state.notebook);
      for (let i = 0; i < 100 && !handle?.model; i++) {
        await new Promise(resolve => setTimeout(resolve, 100));
        handle = this._notebooks?.find(state.notebook) ?? null;
      }
    }
    if (!handle?.model) {
      throw new Error(`open ${state.notebook} to undo run ${runId}`);
    }
    const removed = rejectRun(handle.model, runId);
    this.openRun(runId, state.request);
    this._rejectedAll = removed;
    this.update();
    return removed;
  }

  /** Reject all: the current run's cells out of its notebook, in one undoable transaction. */
  rejectAll(): number {
    const notebook = this._runNotebook();
    if (!this._run || !notebook) {
      return 0;
    }
    this._rejectedAll = rejectRun(notebook, this._run.runId);
    this.update();
    return this._rejectedAll;
  }

  /** Send a human decision for the current run (errors propagate to the view). */
  async act(action: IAction): Promise<void> {
    if (!this._run) {
      return;
    }
    await sendAction(this._run.runId, action, this._serverSettings);
  }

  async cancel(): Promise<void> {
    if (!this._run) {
      return;
    }
    try {
      await cancelRun(this._run.runId, this._serverSettings);
    } catch (error) {
      this._startError = errorMessage(error);
      this.update();
    }
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this._stream?.dispose();
    this._watch.dispose();
    clearInterval(this._tick);
    clearInterval(this._watching);
    super.dispose();
  }

  /**
   * Status is cheap to read, so refresh whenever the panel becomes visible:
   * on show, or on attach when the restored layout attaches it already open.
   */
  protected onAfterShow(msg: Message): void {
    super.onAfterShow(msg);
    void this.refresh();
  }

  protected onAfterAttach(msg: Message): void {
    super.onAfterAttach(msg);
    if (this.isVisible) {
      void this.refresh();
    }
  }

  protected render(): JSX.Element {
    const notebook = this._notebooks?.current() ?? null;
    const runBusy =
      this._starting || (!!this._run && !isFinished(this._run.status));
    return (
      <div className="jp-GeoAgent-body">
        <header className="jp-GeoAgent-header">
          <geoagentIcon.react tag="span" className="jp-GeoAgent-logo" />
          <h2 className="jp-GeoAgent-title">GeoAgent</h2>
          <button
            className="jp-Button jp-mod-minimal jp-GeoAgent-refresh"
            data-testid="geoagent-refresh"
            title="Refresh status"
            aria-label="Refresh status"
            onClick={() => void this.refresh()}
          >
            <refreshIcon.react tag="span" />
          </button>
        </header>
        {this._notebooks && (
          <section className="jp-GeoAgent-section" aria-label="New request">
            <h3 className="jp-GeoAgent-sectionTitle">Request</h3>
            <RequestBox
              models={this._models}
              modelsError={this._modelsError ?? undefined}
              options={this._options}
              onOptions={options => {
                this._options = options;
                this.update();
              }}
              notebookPath={notebook?.path ?? null}
              busy={runBusy}
              onSubmit={request => void this.startRun(request)}
            />
            {this._startError && (
              <div
                className="jp-GeoAgent-error"
                role="alert"
                data-testid="geoagent-start-error"
              >
                <p>{this._startError}</p>
              </div>
            )}
          </section>
        )}
        {this._run && (
          <section className="jp-GeoAgent-section" aria-label="Run">
            <h3 className="jp-GeoAgent-sectionTitle">Run</h3>
            <RunView
              run={this._run}
              selected={this._selected}
              onSelect={id => {
                this._selected = id;
                this.update();
              }}
              onAction={action => this.act(action)}
              onCancel={() => void this.cancel()}
              connection={this._connection}
              cellsWritten={this._cellsWritten}
              now={Date.now()}
              changes={this._changesProps()}
            />
          </section>
        )}
        <section className="jp-GeoAgent-section" aria-label="Server status">
          <h3 className="jp-GeoAgent-sectionTitle">Server</h3>
          <StatusView state={this._status} />
        </section>
      </div>
    );
  }

  /** The model of the current run's notebook, when it is open here. */
  private _runNotebook() {
    const path = this._run?.notebook;
    return (path && this._notebooks?.find(path)?.model) || null;
  }

  private _changesProps(): IChangesViewProps | undefined {
    const run = this._run;
    if (!run || !this._notebooks) {
      return undefined;
    }
    const notebook = this._runNotebook();
    this._watch.watch(notebook, run.runId);
    const runId = run.runId;
    return {
      cells: notebook ? runCells(notebook, run) : null,
      notebookPath: run.notebook,
      finished: isFinished(run.status),
      variables: run.variables,
      rejectedAll: this._rejectedAll,
      onAccept: ids => notebook && acceptCells(notebook, runId, ids),
      onReject: ids => notebook && rejectCells(notebook, runId, ids),
      onRejectAll: () => void this.rejectAll(),
      onDeleteVariables: () =>
        deleteRunVariables(runId, undefined, this._serverSettings)
    };
  }

  private _onEvent(event: RunEvent): void {
    if (!this._run || event.run_id !== this._run.runId) {
      return;
    }
    this._run = applyEvent(this._run, event);
    if (event.type === 'solved') {
      this._write(event.subtask_id);
    }
    this._notify(event);
    if (isFinished(this._run.status)) {
      clearInterval(this._tick);
    }
    // `update()` is coalesced to one render per frame, however many events arrive.
    this.update();
  }

  /**
   * A subtask whose event carries its outputs cut is written once its whole
   * outputs are fetched; the subtasks after it wait their turn, so cells keep
   * the run's order. Other subtasks are written at once.
   */
  private _write(subtaskId: string): void {
    const subtask = this._run?.subtasks.find(s => s.id === subtaskId);
    if (!this._writesPending && !subtask?.solved?.result.truncated) {
      this._writeSubtask(subtaskId);
      return;
    }
    this._writesPending += 1;
    this._writing = this._writing
      .then(async () =>
        this._writeSubtask(subtaskId, await this._wholeOutputs(subtaskId))
      )
      .finally(() => {
        this._writesPending -= 1;
      });
  }

  /** The subtask's whole outputs; undefined (the event's, cut) when the server no longer has them. */
  private async _wholeOutputs(
    subtaskId: string
  ): Promise<nbformat.IOutput[] | undefined> {
    const subtask = this._run?.subtasks.find(s => s.id === subtaskId);
    if (!this._run || !subtask?.solved?.result.truncated) {
      return undefined;
    }
    try {
      const outputs = await fetchSubtaskOutputs(
        this._run.runId,
        subtaskId,
        this._serverSettings
      );
      return outputs as nbformat.IOutput[];
    } catch {
      return undefined;
    }
  }

  private _writeSubtask(subtaskId: string, outputs?: nbformat.IOutput[]): void {
    const run = this._run;
    if (!this._writer || !run?.notebook) {
      return;
    }
    const notebook = this._notebooks?.find(run.notebook);
    if (!notebook?.model) {
      return; // the notebook is closed: its cells stay in the run log
    }
    if (this._writer.anchorId === null && this._writer.written.length === 0) {
      // A run started elsewhere: its cells go below the cell the user is on now.
      this._writer = new RunCellWriter(run.runId, notebook.activeCellId);
    }
    const index = run.subtasks.findIndex(s => s.id === subtaskId);
    if (index >= 0) {
      this._cellsWritten += this._writer.write(
        notebook.model,
        run.subtasks[index],
        index,
        outputs
      ).length;
    }
  }

  /**
   * A run that waits for the user, or ends, while the panel is hidden says so
   * in a notification with a button that opens the panel.
   */
  private _notify(event: RunEvent): void {
    if (!this._reveal || this.isVisible || this._isHistory(event)) {
      return;
    }
    const open = [{ label: 'Open GeoAgent', callback: () => this._reveal?.() }];
    const position = (id: string) =>
      this._run!.subtasks.findIndex(s => s.id === id) + 1;
    if (event.type === 'needs_human') {
      Notification.warning(
        `GeoAgent needs you: step ${position(event.subtask_id)} failed (${event.error})`,
        {
          autoClose: false,
          actions: open
        }
      );
    } else if (event.type === 'contract_stated' && event.awaiting_review) {
      Notification.info(
        'GeoAgent: review what the output must satisfy before it plans',
        {
          autoClose: false,
          actions: open
        }
      );
    } else if (event.type === 'approval_requested') {
      Notification.info(
        `GeoAgent: step ${position(event.subtask_id)} waits for your approval`,
        {
          autoClose: false,
          actions: open
        }
      );
    } else if (event.type === 'finished') {
      const notify =
        event.status === 'succeeded'
          ? Notification.success
          : Notification.warning;
      notify(`GeoAgent ${event.status}: ${event.message}`, {
        autoClose: 8000,
        actions: open
      });
    }
  }

  /** Events from before the page loaded are history (a resumed run), not news. */
  private _isHistory(event: RunEvent): boolean {
    return Date.parse(event.ts) < this._createdAt - 5000;
  }

  private _startTicking(): void {
    clearInterval(this._tick);
    // Subtask times tick while the run works.
    this._tick = setInterval(() => this.update(), 1000);
  }

  private async _loadModels(): Promise<void> {
    try {
      const list = await fetchModels(this._serverSettings);
      this._models = list.models ?? [];
      this._modelsError = null;
      if (!this._options.model) {
        this._options = { ...this._options, model: list.default };
      }
    } catch (error) {
      this._modelsError = errorMessage(error);
    }
    this.update();
  }

  private _setStatus(state: StatusState): void {
    this._status = state;
    // Render now (not on the next frame) so `renderPromise` is this render's.
    MessageLoop.sendMessage(this, Widget.Msg.UpdateRequest);
  }

  private _serverSettings?: ServerConnection.ISettings;
  private _loadStatus: (
    settings?: ServerConnection.ISettings
  ) => Promise<IStatus>;
  private _notebooks: INotebookAccess | null;
  private _reveal: (() => void) | null;
  private _createdAt = Date.now();
  private _status: StatusState = { kind: 'loading' };
  private _ticket = 0;
  private _models: IModelChoice[] = [];
  private _modelsError: string | null = null;
  private _options: IRequestOptions = {
    model: '',
    strategy: 'loop',
    approval: false
  };
  private _run: IRunView | null = null;
  private _stream: RunStream | null = null;
  private _connection: StreamState | null = null;
  private _selected: string | null = null;
  private _starting = false;
  private _startError: string | null = null;
  private _writer: RunCellWriter | null = null;
  private _writing: Promise<void> = Promise.resolve();
  private _writesPending = 0;
  private _cellsWritten = 0;
  private _rejectedAll: number | null = null;
  private _watch = new NotebookWatch();
  private _watching: ReturnType<typeof setInterval> | undefined;
  private _known = new Set<string>();
  private _tick: ReturnType<typeof setInterval> | undefined;
}

/** A readable message for any error a request may raise. */
export function errorMessage(error: unknown): string {
  if (error instanceof ServerConnection.NetworkError) {
    return `Network error: ${error.message}`;
  }
  if (error instanceof Error) {
    return error.message;
  }
  return String(error);
}
