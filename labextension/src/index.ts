/**
 * Plugin wiring only: the panel, its command, and where the command shows up
 * (palette, launcher, sidebar). Views live in `panel.tsx` and `components/`.
 */
import {
  ILabShell,
  ILayoutRestorer,
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { ICommandPalette } from '@jupyterlab/apputils';
import { ILauncher } from '@jupyterlab/launcher';

import { geoagentIcon } from './icons';
import { GeoAgentPanel } from './panel';

/** Command ids, in one place so other plugins and tests can use them. */
export namespace CommandIDs {
  export const openPanel = 'geoagent:open-panel';
}

const plugin: JupyterFrontEndPlugin<void> = {
  id: 'geoagent-ext:plugin',
  description: 'GeoAgent side panel: server status, and later runs and diffs.',
  autoStart: true,
  requires: [ILabShell],
  optional: [ICommandPalette, ILauncher, ILayoutRestorer],
  activate: (
    app: JupyterFrontEnd,
    labShell: ILabShell,
    palette: ICommandPalette | null,
    launcher: ILauncher | null,
    restorer: ILayoutRestorer | null
  ) => {
    let panel: GeoAgentPanel | null = null;

    /** The panel in the right sidebar, created again if it was disposed. */
    const ensurePanel = (): GeoAgentPanel => {
      if (!panel || panel.isDisposed) {
        panel = new GeoAgentPanel();
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
      caption: 'Show the GeoAgent panel with the server status',
      // The palette lists commands without icons; the launcher needs one.
      icon: args => (args['isPalette'] ? undefined : geoagentIcon),
      execute: async () => {
        const current = ensurePanel();
        if (current.isVisible) {
          await current.refresh();
        } else {
          labShell.activateById(current.id);
        }
        return current;
      }
    });

    palette?.addItem({ command: CommandIDs.openPanel, category: 'GeoAgent' });
    launcher?.add({ command: CommandIDs.openPanel, category: 'Other', rank: 1 });
  }
};

export default plugin;
