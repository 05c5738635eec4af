/** Clear the stored versions of the function under the cursor, after a confirmation. */
import * as vscode from 'vscode';
import { withFunctionReport, type CommandContext } from './context';
import { ServerCommands } from '../generated/commands';
import { plainMessage } from '../safeText';
import { functionArgument } from '../serverApi';

const CLEAR = 'Clear';

export async function clearVersions(ctx: CommandContext, arg?: unknown): Promise<void> {
  return withFunctionReport(ctx, arg, { log: 'clear', show: 'clearing failed: ' }, async (api, target, report) => {
    const stored = report.versions.filter((v) => !v.isCurrent).length;
    if (stored === 0) {
      void vscode.window.showInformationMessage(`codequorum: ${plainMessage(report.qualifiedName, 200)} has no stored versions.`);
      return;
    }
    const choice = await vscode.window.showWarningMessage(
      `Delete the ${stored} stored version${stored === 1 ? '' : 's'} of ${plainMessage(report.qualifiedName, 200)}?`,
      { modal: true },
      CLEAR,
    );
    if (choice !== CLEAR) {
      return;
    }
    const { removed } = await api.call(ServerCommands.deleteVersions, functionArgument(target));
    ctx.refreshStatus();
    void vscode.window.showInformationMessage(`codequorum: removed ${removed} version${removed === 1 ? '' : 's'} of ${plainMessage(report.qualifiedName, 200)}.`);
  });
}
