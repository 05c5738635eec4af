/** `codequorum.showReport`: the report of the function under the cursor in a webview. */
import { randomBytes } from 'crypto';
import * as vscode from 'vscode';
import { renderReportHtml } from '../reportHtml';
import { errorText, noFunctionMessage, requireApi, resolveTarget, type CommandContext } from './context';

let panel: vscode.WebviewPanel | undefined;

export function makeNonce(): string {
  return randomBytes(18).toString('base64').replace(/[^A-Za-z0-9]/g, '');
}

export async function showReport(ctx: CommandContext, arg?: unknown): Promise<void> {
  const target = resolveTarget(arg, vscode.window.activeTextEditor);
  if (!target) {
    return noFunctionMessage();
  }
  const api = requireApi(ctx);
  if (!api) {
    return;
  }
  try {
    const report = await api.analyze(target, { matrices: true });
    if (!report) {
      return noFunctionMessage();
    }
    if (!panel) {
      panel = vscode.window.createWebviewPanel('codequorum.report', 'codequorum report', vscode.ViewColumn.Beside, {
        enableScripts: true,
        localResourceRoots: [],
      });
      panel.onDidDispose(() => {
        panel = undefined;
      });
    }
    panel.title = `codequorum: ${report.qualifiedName}`;
    panel.webview.html = renderReportHtml(report, { nonce: makeNonce(), cspSource: panel.webview.cspSource });
    panel.reveal(vscode.ViewColumn.Beside, true);
  } catch (err) {
    ctx.log(`report failed: ${errorText(err)}`);
    void vscode.window.showErrorMessage(`codequorum: the report failed: ${errorText(err)}`);
  }
}
