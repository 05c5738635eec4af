/** `codequorum.runVersions`: the server runs the versions in its sandbox (opcodes, run-time cost, outputs). */
import * as vscode from 'vscode';
import { ServerCommands } from '../generated/commands';
import { plainMessage } from '../safeText';
import { functionArgument } from '../serverApi';
import { UNTRUSTED_MESSAGE, withTarget, type CommandContext } from './context';

/**
 * Not in an untrusted workspace. Versions of a store codequorum did not make (one that came
 * with a repository) run only after the user says so: the server asks, once per store.
 */
export async function runVersions(ctx: CommandContext, arg?: unknown): Promise<void> {
  if (!ctx.trusted()) {
    void vscode.window.showWarningMessage(UNTRUSTED_MESSAGE);
    return;
  }
  return withTarget(ctx, arg, { log: 'run', show: '' }, async (api, target) => {
    const answer = await api.call(ServerCommands.runDynamic, functionArgument(target));
    if (!answer.started && answer.message && !answer.refused) {
      void vscode.window.showInformationMessage(`codequorum: ${plainMessage(answer.message)}`);
    }
  });
}
