/**
 * What VS Code alone knows of a document change, for the server's watch: that it was an undo
 * or a redo (`TextDocumentChangeEvent.reason`). The watch itself (which changes wrote a whole
 * function) lives in the language server, for every editor; this is the only signal the
 * extension adds, sent as `codequorum/editReason` for the version the change made. It runs on
 * every keystroke, so it does nothing else: `bench/bench_watch_keystroke.mjs` measures it.
 */

import { LANGUAGES } from './constants';

/** The parts of vscode.TextDocumentChangeEvent read here. */
export interface ChangeEvent {
  document: { uri: { scheme: string; toString(): string }; version: number; languageId: string };
  contentChanges: readonly unknown[];
  /** vscode.TextDocumentChangeReason: 1 undo, 2 redo, undefined otherwise. */
  reason?: number;
}

export interface EditReason {
  uri: string;
  version: number;
  reason: 'undo' | 'redo';
}

/** The notification that carries an {@link EditReason} to the server. */
export const EDIT_REASON = 'codequorum/editReason';

const REASONS: Record<number, EditReason['reason']> = { 1: 'undo', 2: 'redo' };

/** The undo or redo that made `event`, when it changed a document the server serves; else undefined. */
export function editReason(event: ChangeEvent, served: (languageId: string, scheme: string) => boolean): EditReason | undefined {
  const reason = event.reason === undefined ? undefined : REASONS[event.reason];
  if (reason === undefined || event.contentChanges.length === 0) {
    return undefined;
  }
  const { document } = event;
  if (!served(document.languageId, document.uri.scheme)) {
    return undefined;
  }
  return { uri: document.uri.toString(), version: document.version, reason };
}

/** A document the server serves: a file or an untitled buffer in one of its languages. */
export function servedDocument(languageId: string, scheme: string): boolean {
  return (scheme === 'file' || scheme === 'untitled') && (LANGUAGES as readonly string[]).includes(languageId);
}

/** The extension's `onDidChangeTextDocument` listener: the reason of an undo or a redo goes to the server by `notify`. */
export function changeListener(notify: (method: string, params: EditReason) => void): (event: ChangeEvent) => void {
  return (event) => {
    const reason = editReason(event, servedDocument);
    if (reason) {
      notify(EDIT_REASON, reason);
    }
  };
}
