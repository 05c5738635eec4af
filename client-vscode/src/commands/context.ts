/** What every command handler needs, passed in so the handlers can be tested with fakes. */
import * as vscode from 'vscode';
import { errorText, isObject } from '../json';
import type { LspRange } from '../report';
import type { FunctionTarget, ServerApi } from '../serverApi';

export interface CommandContext {
  /** The running server's API; undefined while it is not running. */
  api(): ServerApi | undefined;
  log(line: string): void;
  /** Ask the status bar to look again (new versions arrived or went). */
  refreshStatus(): void;
  /** Text of `range` in the document `uri` (opened if needed). */
  documentText(uri: string, range: LspRange): Promise<string>;
  /** The language id of an open document, if it is open. */
  languageOf(uri: string): string | undefined;
  /** Configuration value of a codequorum.* setting. */
  setting<T>(key: string, fallback: T): T;
}

/**
 * The function a command is about: the argument a code lens passed (`{uri, qualifiedName}`),
 * else the cursor in the active editor.
 */
export function resolveTarget(arg: unknown, editor: vscode.TextEditor | undefined): FunctionTarget | undefined {
  if (isObject(arg) && typeof arg.uri === 'string') {
    const target: FunctionTarget = { uri: arg.uri };
    if (typeof arg.qualifiedName === 'string') {
      target.qualifiedName = arg.qualifiedName;
    }
    const p = arg.position;
    if (isObject(p) && typeof p.line === 'number' && typeof p.character === 'number') {
      target.position = { line: p.line, character: p.character };
    }
    if (target.qualifiedName || target.position) {
      return target;
    }
  }
  if (!editor) {
    return undefined;
  }
  const active = editor.selection.active;
  return { uri: editor.document.uri.toString(), position: { line: active.line, character: active.character } };
}

/** The server's API, or undefined after telling the user it is not running. */
export function requireApi(ctx: CommandContext): ServerApi | undefined {
  const api = ctx.api();
  if (!api) {
    void vscode.window.showWarningMessage('The codequorum language server is not running. See the codequorum log, or run "codequorum: Restart Language Server".');
  }
  return api;
}

export function noFunctionMessage(): void {
  void vscode.window.showInformationMessage('codequorum: place the cursor inside a function first.');
}

export { errorText };
