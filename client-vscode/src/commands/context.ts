/** What every command handler needs, passed in so the handlers can be tested with fakes. */
import * as vscode from 'vscode';
import { errorText, isObject } from '../json';
import type { FunctionReport, LspRange } from '../report';
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
  /** False in an untrusted workspace (Restricted Mode): nothing runs, nothing is sent. */
  trusted(): boolean;
  /** Whether the API key may go to the configured endpoint (asks when the workspace chose it). */
  confirmEndpoint(): Promise<boolean>;
}

export const UNTRUSTED_MESSAGE =
  'codequorum: this workspace is not trusted, so codequorum runs no versions and sends nothing to an endpoint in it. Trust the workspace to use this command.';

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

/**
 * The target function and the running server, or undefined after telling the user which of
 * the two is missing.
 */
export function commandTarget(ctx: CommandContext, arg: unknown): { api: ServerApi; target: FunctionTarget } | undefined {
  const target = resolveTarget(arg, vscode.window.activeTextEditor);
  if (!target) {
    noFunctionMessage();
    return undefined;
  }
  const api = requireApi(ctx);
  return api ? { api, target } : undefined;
}

/** How a command reports an error thrown by its body. */
export interface Failure {
  /** Names the command in the log line "<log> failed: <error>". */
  log: string;
  /**
   * What the user sees: "codequorum: " + this + the error text, or a handler that replaces
   * the error message (called after the log line).
   */
  show: string | ((err: unknown) => void);
}

/**
 * The preamble every command shares: the target function (else "place the cursor inside a
 * function"), the running server (else a warning), then `body`; an error it throws is logged
 * and shown as `failure` says.
 */
export async function withTarget(
  ctx: CommandContext,
  arg: unknown,
  failure: Failure,
  body: (api: ServerApi, target: FunctionTarget) => Promise<void>,
): Promise<void> {
  const resolved = commandTarget(ctx, arg);
  if (!resolved) {
    return;
  }
  const { api, target } = resolved;
  try {
    await body(api, target);
  } catch (err) {
    ctx.log(`${failure.log} failed: ${errorText(err)}`);
    if (typeof failure.show === 'string') {
      void vscode.window.showErrorMessage(`codequorum: ${failure.show}${errorText(err)}`);
    } else {
      failure.show(err);
    }
  }
}

/** Options of `withFunctionReport`. */
export interface ReportFailure extends Failure {
  /** Ask for the metric matrices too. */
  matrices?: boolean;
  /** Only a function with a source range will do (the command edits or reads its text). */
  needsRange?: boolean;
}

/**
 * `withTarget`, then the server's report of the function: `body` runs with the report and
 * the target named after it, or the user hears there is no function there.
 */
export async function withFunctionReport(
  ctx: CommandContext,
  arg: unknown,
  failure: ReportFailure,
  body: (api: ServerApi, target: FunctionTarget, report: FunctionReport) => Promise<void>,
): Promise<void> {
  return withTarget(ctx, arg, failure, async (api, target) => {
    const report = failure.matrices ? await api.analyze(target, { matrices: true }) : await api.analyze(target);
    if (!report || (failure.needsRange && !report.range)) {
      return noFunctionMessage();
    }
    await body(api, { ...target, qualifiedName: report.qualifiedName || target.qualifiedName }, report);
  });
}

export { errorText };
