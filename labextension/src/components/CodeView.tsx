/**
 * A CodeMirror 6 view for Python: read-only code, an editable editor, or a
 * unified diff against `original` (@codemirror/merge). Styled with
 * JupyterLab's editor theme, so it matches cells in light and dark themes.
 */
import {
  defaultKeymap,
  history,
  historyKeymap,
  indentWithTab
} from '@codemirror/commands';
import { python } from '@codemirror/lang-python';
import { unifiedMergeView } from '@codemirror/merge';
import { EditorState, Extension } from '@codemirror/state';
import { EditorView, keymap } from '@codemirror/view';
import { jupyterTheme } from '@jupyterlab/codemirror';
import * as React from 'react';

export interface ICodeViewProps {
  /** The code (the initial code when editable: later changes of this prop reset it). */
  value: string;
  /** Show `value` as a diff against this code (read-only). */
  original?: string;
  editable?: boolean;
  onChange?: (value: string) => void;
  /** Ctrl/Cmd+Enter in an editable view. */
  onSubmit?: () => void;
  ariaLabel: string;
  testid?: string;
  className?: string;
}

export function CodeView(props: ICodeViewProps): JSX.Element {
  const host = React.useRef<HTMLDivElement>(null);
  // Latest callbacks without recreating the editor on every render.
  const callbacks = React.useRef(props);
  callbacks.current = props;

  React.useEffect(() => {
    if (!host.current) {
      return;
    }
    const extensions: Extension[] = [
      python(),
      jupyterTheme,
      EditorView.lineWrapping,
      EditorView.contentAttributes.of({ 'aria-label': props.ariaLabel })
    ];
    if (props.editable) {
      extensions.push(
        history(),
        keymap.of([
          {
            key: 'Mod-Enter',
            run: () => {
              callbacks.current.onSubmit?.();
              return true;
            }
          },
          ...defaultKeymap,
          ...historyKeymap,
          indentWithTab
        ]),
        EditorView.updateListener.of(update => {
          if (update.docChanged) {
            callbacks.current.onChange?.(update.state.doc.toString());
          }
        })
      );
    } else {
      extensions.push(
        EditorState.readOnly.of(true),
        EditorView.editable.of(false)
      );
    }
    if (props.original !== undefined) {
      extensions.push(
        unifiedMergeView({
          original: props.original,
          mergeControls: false,
          gutter: true,
          syntaxHighlightDeletions: true
        })
      );
    }
    const view = new EditorView({
      state: EditorState.create({ doc: props.value, extensions }),
      parent: host.current
    });
    return () => view.destroy();
  }, [props.value, props.original, props.editable]);

  return (
    <div
      ref={host}
      className={`jp-GeoAgent-code ${props.className ?? ''}`}
      data-testid={props.testid}
    />
  );
}
