/** Replace the function with one of its versions: the server's edit of the function's range (the user's docstring kept), on the user's choice. */
import * as vscode from 'vscode';
import type { LspRange, VersionView } from '../report';
import { ServerCommands } from '../generated/commands';
import { functionArgument, type FunctionTarget } from '../serverApi';
import { requireApi, withFunctionReport, type CommandContext } from './context';
import { pickVersion } from './pickVersion';
import { plainMessage, safeText } from '../safeText';

/** Removes the indentation common to every non-blank line. */
export function dedent(code: string): string {
  const lines = code.replace(/\r\n/g, '\n').split('\n');
  const widths = lines.filter((l) => l.trim() !== '').map((l) => /^[ \t]*/.exec(l)![0].length);
  const common = widths.length ? Math.min(...widths) : 0;
  return lines.map((l) => (l.trim() === '' ? '' : l.slice(common))).join('\n');
}

/**
 * A function's text as it stands in the document (its first line starts at the function's
 * column, after `lineHead`), moved to column 0 like the stored versions.
 */
export function atColumnZero(lineHead: string, text: string): string {
  return dedent(indentBefore(lineHead) + text);
}

/** The whitespace before the function on its first line ('' when code precedes it). */
export function indentBefore(lineHead: string): string {
  return lineHead.trim() === '' ? lineHead : '';
}

export function toVscodeRange(r: LspRange): vscode.Range {
  return new vscode.Range(new vscode.Position(r.start.line, r.start.character), new vscode.Position(r.end.line, r.end.character));
}

/**
 * Applies the server's replacement: the text and range `showVersion` gives, the edit the
 * language server's own code actions make (the user's docstring and the comments above the
 * body kept), so the rule lives in one place. True when the editor took the edit.
 */
export async function applyReplacement(
  ctx: CommandContext,
  target: FunctionTarget,
  version: VersionView,
): Promise<boolean> {
  const api = requireApi(ctx);
  if (!api) {
    return false;
  }
  const shown = await api.call(ServerCommands.showVersion, functionArgument(target, { index: version.index }));
  const edit = new vscode.WorkspaceEdit();
  edit.replace(vscode.Uri.parse(target.uri), toVscodeRange(shown.range), shown.replacement);
  const applied = await vscode.workspace.applyEdit(edit);
  if (!applied) {
    void vscode.window.showErrorMessage('codequorum: the editor did not accept the replacement (was the file changed meanwhile?).');
  }
  ctx.refreshStatus();
  return applied;
}

/** `codequorum.replaceWithVersion`: pick a version (or take the one passed) and put it in place. */
export async function replaceWithVersion(ctx: CommandContext, arg?: unknown, versionIndex?: number): Promise<void> {
  const failure = { log: 'replace', show: 'replacing failed: ', needsRange: true };
  return withFunctionReport(ctx, arg, failure, async (_api, named, report) => {
    const index = versionIndex ?? (typeof (arg as { version?: unknown } | undefined)?.version === 'number' ? (arg as { version: number }).version : undefined);
    const version =
      index !== undefined
        ? report.versions.find((v) => v.index === index)
        : await pickVersion(report, `Replace ${safeText(report.qualifiedName, 200)} with…`);
    if (!version) {
      if (index === undefined && report.versions.filter((v) => !v.isCurrent).length === 0) {
        void vscode.window.showInformationMessage(`codequorum: ${plainMessage(report.qualifiedName, 200)} has no other versions yet.`);
      }
      return;
    }
    await applyReplacement(ctx, named, version);
  });
}
