/**
 * The GeoAgent side panel: a ReactWidget that owns the panel's state and
 * composes its sections. Today it has one section (server status); the run
 * view, search tree and diffs will be added as further sections here.
 */
import { ServerConnection } from '@jupyterlab/services';
import { ReactWidget, refreshIcon } from '@jupyterlab/ui-components';
import { Message, MessageLoop } from '@lumino/messaging';
import { Widget } from '@lumino/widgets';
import * as React from 'react';

import { fetchStatus, IStatus } from './api';
import { StatusState, StatusView } from './components/StatusView';
import { geoagentIcon } from './icons';

/** Id of the panel in the shell (also the sidebar tab's `data-id`). */
export const PANEL_ID = 'geoagent-panel';

export namespace GeoAgentPanel {
  export interface IOptions {
    /** Server settings; the default talks to the server that served Lab. */
    serverSettings?: ServerConnection.ISettings;
    /** How to read the status; tests may replace it. */
    loadStatus?: (settings?: ServerConnection.ISettings) => Promise<IStatus>;
  }
}

export class GeoAgentPanel extends ReactWidget {
  constructor(options: GeoAgentPanel.IOptions = {}) {
    super();
    this._serverSettings = options.serverSettings;
    this._loadStatus = options.loadStatus ?? fetchStatus;
    this.id = PANEL_ID;
    this.addClass('jp-GeoAgent-panel');
    this.node.dataset.testid = 'geoagent-panel';
    this.title.icon = geoagentIcon;
    this.title.caption = 'GeoAgent';
  }

  /** The status state the panel currently renders. */
  get statusState(): StatusState {
    return this._status;
  }

  /**
   * Re-read `/geoagent/status` and re-render. Resolves once the new state is
   * rendered; answers of superseded calls are dropped so a slow old request
   * cannot overwrite a newer one.
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
    await this.renderPromise;
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
        <section className="jp-GeoAgent-section" aria-label="Server status">
          <h3 className="jp-GeoAgent-sectionTitle">Server</h3>
          <StatusView state={this._status} />
        </section>
      </div>
    );
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
  private _status: StatusState = { kind: 'loading' };
  private _ticket = 0;
}

/** A readable message for any error a request may raise. */
function errorMessage(error: unknown): string {
  if (error instanceof ServerConnection.NetworkError) {
    return `Network error: ${error.message}`;
  }
  if (error instanceof Error) {
    return error.message;
  }
  return String(error);
}
