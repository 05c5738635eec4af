/** `codequorum.runVersions`: the server runs the versions in its sandbox (opcodes, run-time cost, outputs). */
import * as vscode from 'vscode';
import { withTarget, type CommandContext } from './context';

export async function runVersions(ctx: CommandContext, arg?: unknown): Promise<void> {
  return withTarget(ctx, arg, { log: 'run', show: '' }, async (api, target) => {
    const answer = await api.runDynamic(target);
    if (!answer.started && answer.message) {
      void vscode.window.showInformationMessage(`codequorum: ${answer.message}`);
    }
  });
}
