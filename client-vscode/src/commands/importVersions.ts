/** `codequorum.importVersions`: versions of the function from a file the user picks. */
import * as vscode from 'vscode';
import { errorText, noFunctionMessage, requireApi, resolveTarget, type CommandContext } from './context';

export async function importVersions(ctx: CommandContext, arg?: unknown): Promise<void> {
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
    const picked = await vscode.window.showOpenDialog({
      canSelectMany: false,
      openLabel: 'Import Versions',
      title: `Versions of ${report.qualifiedName}: JSON, JSON Lines, or one version as code`,
    });
    if (!picked || picked.length === 0) {
      return;
    }
    const result = await api.importSamples({ ...target, qualifiedName: report.qualifiedName || target.qualifiedName }, picked[0].fsPath);
    ctx.refreshStatus();
    void vscode.window.showInformationMessage(
      `codequorum: imported ${result.added} version${result.added === 1 ? '' : 's'} of ${report.qualifiedName}` +
        (result.total !== undefined ? ` (${result.total} stored).` : '.'),
    );
  } catch (err) {
    ctx.log(`import failed: ${errorText(err)}`);
    void vscode.window.showErrorMessage(`codequorum: ${errorText(err)}`);
  }
}
