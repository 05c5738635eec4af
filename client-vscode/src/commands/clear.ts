/** Clear the stored versions of the function under the cursor, after a confirmation. */
import * as vscode from 'vscode';
import { errorText, noFunctionMessage, requireApi, resolveTarget, type CommandContext } from './context';

const CLEAR = 'Clear';

export async function clearVersions(ctx: CommandContext, arg?: unknown): Promise<void> {
  const target = resolveTarget(arg, vscode.window.activeTextEditor);
  if (!target) {
    return noFunctionMessage();
  }
  const api = requireApi(ctx);
  if (!api) {
    return;
  }
  try {
    const report = await api.analyze(target);
    if (!report) {
      return noFunctionMessage();
    }
    const stored = report.versions.filter((v) => !v.isCurrent).length;
    if (stored === 0) {
      void vscode.window.showInformationMessage(`codequorum: ${report.qualifiedName} has no stored versions.`);
      return;
    }
    const choice = await vscode.window.showWarningMessage(
      `Delete the ${stored} stored version${stored === 1 ? '' : 's'} of ${report.qualifiedName}?`,
      { modal: true },
      CLEAR,
    );
    if (choice !== CLEAR) {
      return;
    }
    const removed = await api.clearSamples({ ...target, qualifiedName: report.qualifiedName || target.qualifiedName });
    ctx.refreshStatus();
    void vscode.window.showInformationMessage(`codequorum: removed ${removed} version${removed === 1 ? '' : 's'} of ${report.qualifiedName}.`);
  } catch (err) {
    ctx.log(`clear failed: ${errorText(err)}`);
    void vscode.window.showErrorMessage(`codequorum: clearing failed: ${errorText(err)}`);
  }
}
