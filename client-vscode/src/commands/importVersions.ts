/** `codequorum.importVersions`: versions of the function from a file the user picks. */
import * as vscode from 'vscode';
import { withFunctionReport, type CommandContext } from './context';
import { ServerCommands } from '../generated/commands';
import { readPickedFile } from '../pickedFile';
import { functionArgument } from '../serverApi';
import { plainMessage, safeText } from '../safeText';

export async function importVersions(ctx: CommandContext, arg?: unknown): Promise<void> {
  return withFunctionReport(ctx, arg, { log: 'import', show: '' }, async (api, target, report) => {
    const picked = await vscode.window.showOpenDialog({
      canSelectMany: false,
      openLabel: 'Import Versions',
      title: `Versions of ${safeText(report.qualifiedName, 200)}: JSON, JSON Lines, or one version as code`,
    });
    if (!picked || picked.length === 0) {
      return;
    }
    // the server reads only files inside the workspace folders: this one the user chose, so
    // the extension reads it (a regular file, bounded) and sends its text
    const file = picked[0].fsPath;
    const content = await readPickedFile(file);
    const result = await api.call(ServerCommands.importVersionFile, functionArgument(target, { path: file, content }));
    ctx.refreshStatus();
    void vscode.window.showInformationMessage(
      `codequorum: imported ${result.added} version${result.added === 1 ? '' : 's'} of ${plainMessage(report.qualifiedName, 200)}` +
        ` (${result.total} stored).`,
    );
  });
}
