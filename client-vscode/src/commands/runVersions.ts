/** `codequorum.runVersions`: the server runs the versions in its sandbox (opcodes, run-time cost, outputs). */
import * as vscode from 'vscode';
import { errorText, noFunctionMessage, requireApi, resolveTarget, type CommandContext } from './context';

export async function runVersions(ctx: CommandContext, arg?: unknown): Promise<void> {
  const target = resolveTarget(arg, vscode.window.activeTextEditor);
  if (!target) {
    return noFunctionMessage();
  }
  const api = requireApi(ctx);
  if (!api) {
    return;
  }
  try {
    const answer = await api.runDynamic(target);
    if (!answer.started && answer.message) {
      void vscode.window.showInformationMessage(`codequorum: ${answer.message}`);
    }
  } catch (err) {
    ctx.log(`run failed: ${errorText(err)}`);
    void vscode.window.showErrorMessage(`codequorum: ${errorText(err)}`);
  }
}
