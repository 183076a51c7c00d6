/**
 * GeoAgent's inline completion provider for JupyterLab's inline completer.
 *
 * JupyterLab owns the user-facing behaviour and its settings (Settings >
 * Inline Completer: enabled, debounce delay, timeout, widget): it calls
 * `fetch` after a pause in typing, shows the ghost text and accepts it with
 * Tab. This provider asks the server for a suggestion built from the kernel's
 * variables, the notebook's earlier cells and the API docs, returns its first
 * text, and streams the rest through `stream`. A new `fetch` means the user
 * typed on, so the previous suggestion is cancelled on the server at once.
 */
import {
  CompletionHandler,
  IInlineCompletionContext,
  IInlineCompletionItem,
  IInlineCompletionList,
  IInlineCompletionProvider
} from '@jupyterlab/completer';
import { Text } from '@jupyterlab/coreutils';
import type { ISettingRegistry } from '@jupyterlab/settingregistry';
import type { JSONValue } from '@lumino/coreutils';
import { Widget } from '@lumino/widgets';

import { geoagentIcon } from '../icons';
import { CompletionSocket, ICompletionRequest, Suggestion } from './socket';

export const PROVIDER_ID = 'geoagent';

/** Python code cells, consoles and files (not markdown's text/x-ipythongfm). */
const PYTHON_MIME = /^text\/(x-)?i?python3?$/i;

/** At most this many earlier code cells (the server clips them further). */
const MAX_PREVIOUS_CELLS = 8;

/** What a notebook panel offers; consoles and editors have less. */
interface INotebookLikeWidget {
  context?: { path?: string };
  content?: {
    widgets?: ReadonlyArray<{
      model: { type: string; sharedModel: { getSource(): string } };
    }>;
    activeCellIndex?: number;
  };
}

/** Sources of the code cells above the active cell, oldest first. */
export function previousCells(widget: Widget | INotebookLikeWidget): string[] {
  const content = (widget as INotebookLikeWidget).content;
  const cells = content?.widgets;
  if (!cells || typeof content?.activeCellIndex !== 'number') {
    return [];
  }
  return cells
    .slice(0, Math.max(0, content.activeCellIndex))
    .filter(cell => cell.model.type === 'code')
    .map(cell => cell.model.sharedModel.getSource())
    .filter(source => source.trim().length > 0)
    .slice(-MAX_PREVIOUS_CELLS);
}

/** The completion request for the cursor in `request.text`. */
export function buildRequest(
  request: CompletionHandler.IRequest,
  context: IInlineCompletionContext
): ICompletionRequest {
  // `offset` counts characters (code points); slicing needs a JS index.
  const at = Text.charIndexToJsIndex(request.offset, request.text);
  const body: ICompletionRequest = {
    cell_text_before: request.text.slice(0, at),
    cell_text_after: request.text.slice(at),
    previous_cells: previousCells(context.widget)
  };
  const path = (context.widget as INotebookLikeWidget).context?.path;
  if (path) {
    body.notebook_path = path;
  }
  const kernelId = context.session?.kernel?.id;
  if (kernelId) {
    body.kernel_id = kernelId;
  }
  return body;
}

export class GeoAgentInlineProvider implements IInlineCompletionProvider {
  constructor(socket: CompletionSocket) {
    this._socket = socket;
  }

  readonly identifier = PROVIDER_ID;
  readonly name = 'GeoAgent';
  readonly icon = geoagentIcon.bindprops({ width: 16 });
  /**
   * Off until the user enables it (Settings > Inline Completer > GeoAgent):
   * every pause in typing then costs a model call, which on a laptop's CPU
   * competes with the agent's own runs. The timeout leaves a local model
   * time to read the prompt.
   */
  readonly schema: ISettingRegistry.IProperty = {
    default: { enabled: false, debouncerDelay: 250, timeout: 20000 }
  };

  /**
   * JupyterLab's settings for this provider, at start-up and on every change.
   * Turning suggestions on asks the server to load its inline model now, so
   * the first pause in typing does not wait for it; while they are off, the
   * server loads nothing for them.
   */
  configure(settings: { [property: string]: JSONValue }): void {
    const enabled = settings?.enabled === true;
    if (enabled && !this._enabled) {
      this._socket.warm();
    }
    this._enabled = enabled;
  }

  /** The suggestion being generated, if any (tests and debugging). */
  get current(): Suggestion | null {
    return this._current;
  }

  async fetch(
    request: CompletionHandler.IRequest,
    context: IInlineCompletionContext
  ): Promise<IInlineCompletionList<IInlineCompletionItem>> {
    // Typing on makes the previous suggestion stale: stop it on the server.
    this._current?.cancel();
    this._current = null;
    if (!PYTHON_MIME.test(request.mimeType ?? '')) {
      return { items: [] }; // markdown cells (text/x-ipythongfm), other languages
    }
    const body = buildRequest(request, context);
    if (!body.cell_text_before.trim()) {
      return { items: [] };
    }
    const suggestion = this._socket.complete(body);
    this._current = suggestion;
    let first: string;
    try {
      first = await suggestion.first;
    } catch (error) {
      if (suggestion.cancelled) {
        return { items: [] };
      }
      // Shown by the inline completer next to the (empty) suggestion.
      return {
        items: [
          {
            insertText: '',
            error: { message: `GeoAgent: ${(error as Error).message}` }
          }
        ]
      };
    }
    if (suggestion.cancelled || !first) {
      return { items: [] };
    }
    const item: IInlineCompletionItem = { insertText: first };
    if (!suggestion.done) {
      item.isIncomplete = true;
      item.token = suggestion.id;
      this._streams.set(suggestion.id, { suggestion, shown: first });
    }
    return { items: [item] };
  }

  async *stream(
    token: string
  ): AsyncGenerator<{ response: IInlineCompletionItem }> {
    const entry = this._streams.get(token);
    this._streams.delete(token);
    if (!entry) {
      return;
    }
    const { suggestion, shown } = entry;
    for await (const text of suggestion.updates(shown)) {
      yield { response: { insertText: text, isIncomplete: !suggestion.done } };
    }
    if (suggestion.error !== null && !suggestion.cancelled) {
      yield {
        response: {
          insertText: suggestion.text,
          error: { message: `GeoAgent: ${suggestion.error}` }
        }
      };
    }
  }

  private _socket: CompletionSocket;
  private _current: Suggestion | null = null;
  private _enabled = false;
  private _streams = new Map<
    string,
    { suggestion: Suggestion; shown: string }
  >();
}
