/**
 * Plugin wiring only: the panel, its command, where the command shows up
 * (palette, launcher, sidebar), the inline completion provider, and telling
 * the server which notebook is active. Views live in `panel.tsx` and
 * `components/`.
 */
import {
  ILabShell,
  ILayoutRestorer,
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { ICommandPalette, Notification } from '@jupyterlab/apputils';
import { ICompletionProviderManager } from '@jupyterlab/completer';
import { ILauncher } from '@jupyterlab/launcher';
import { INotebookTracker } from '@jupyterlab/notebook';

import { GeoAgentInlineProvider } from './completion/provider';
import { CompletionSocket } from './completion/socket';
import { geoagentIcon } from './icons';
import { TrackerAccess } from './notebook/access';
import { GeoAgentPanel, PANEL_ID } from './panel';
import { reportActiveNotebooks } from './runs/client';

/** Command ids, in one place so other plugins and tests can use them. */
export namespace CommandIDs {
  export const openPanel = 'geoagent:open-panel';
  /** The chat's "Undo this run": Reject all for the run named by `run_id`. */
  export const undoRun = 'geoagent:undo-run';
}

const plugin: JupyterFrontEndPlugin<void> = {
  id: 'geoagent-ext:plugin',
  description:
    'GeoAgent side panel: requests, live plans, search trees, diffs and fixes.',
  autoStart: true,
  requires: [ILabShell],
  optional: [ICommandPalette, ILauncher, ILayoutRestorer, INotebookTracker],
  activate: (
    app: JupyterFrontEnd,
    labShell: ILabShell,
    palette: ICommandPalette | null,
    launcher: ILauncher | null,
    restorer: ILayoutRestorer | null,
    tracker: INotebookTracker | null
  ) => {
    const notebooks = tracker ? new TrackerAccess(tracker) : undefined;
    let panel: GeoAgentPanel | null = null;

    /** The panel in the right sidebar, created again if it was disposed. */
    const ensurePanel = (): GeoAgentPanel => {
      if (!panel || panel.isDisposed) {
        panel = new GeoAgentPanel({
          notebooks,
          reveal: () => labShell.activateById(PANEL_ID)
        });
        labShell.add(panel, 'right', { rank: 900 });
        // Remembers whether the panel was open across page reloads.
        restorer?.add(panel, panel.id);
      }
      return panel;
    };
    // Added at start so its icon is in the sidebar; it fetches only when shown.
    ensurePanel();

    app.commands.addCommand(CommandIDs.openPanel, {
      label: 'Open GeoAgent',
      caption:
        'Show the GeoAgent panel: ask for an analysis, follow and fix its steps',
      // The palette lists commands without icons; the launcher needs one.
      icon: args => (args['isPalette'] ? undefined : geoagentIcon),
      execute: async args => {
        const current = ensurePanel();
        // The chat's "Open the GeoAgent panel" button names the run to show.
        if (typeof args['run_id'] === 'string' && args['run_id']) {
          current.openRun(args['run_id']);
        }
        if (current.isVisible) {
          await current.refresh();
        } else {
          labShell.activateById(current.id);
        }
        return current;
      }
    });

    app.commands.addCommand(CommandIDs.undoRun, {
      label: 'Undo a GeoAgent run',
      caption:
        'Take the cells of a GeoAgent run out of its notebook (one step Ctrl+Z can undo) ' +
        'and offer to delete the variables it created',
      execute: async args => {
        const runId = args['run_id'];
        if (typeof runId !== 'string' || !runId) {
          throw new Error('geoagent:undo-run needs a run_id');
        }
        const current = ensurePanel();
        labShell.activateById(current.id);
        try {
          return await current.undoRun(runId, path =>
            app.commands.execute('docmanager:open', { path })
          );
        } catch (error) {
          Notification.error(
            `GeoAgent could not undo run ${runId}: ${(error as Error).message}`
          );
          return 0;
        }
      }
    });

    palette?.addItem({ command: CommandIDs.openPanel, category: 'GeoAgent' });
    launcher?.add({
      command: CommandIDs.openPanel,
      category: 'Other',
      rank: 1
    });

    if (notebooks) {
      void app.restored.then(() =>
        reportActiveNotebooks(
          () => notebooks.current()?.path ?? null,
          notebooks.changed
        )
      );
    }
  }
};

/**
 * Inline cell suggestions. A plugin of its own, so that JupyterLab without
 * the completer (or with it disabled) still gets the panel.
 */
const inlineCompletion: JupyterFrontEndPlugin<void> = {
  id: 'geoagent-ext:inline-completion',
  description:
    'GeoAgent inline cell suggestions from the kernel, the notebook and the API docs.',
  autoStart: true,
  requires: [ICompletionProviderManager],
  activate: (app: JupyterFrontEnd, manager: ICompletionProviderManager) => {
    manager.registerInlineProvider(
      new GeoAgentInlineProvider(new CompletionSocket())
    );
  }
};

export default [plugin, inlineCompletion];
