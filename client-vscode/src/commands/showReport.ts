/** `codequorum.showReport`: the report of the function under the cursor in a webview. */
import { randomBytes } from 'crypto';
import * as vscode from 'vscode';
import { renderReportHtml } from '../reportHtml';
import { withFunctionReport, type CommandContext } from './context';
import { safeText } from '../safeText';

let panel: vscode.WebviewPanel | undefined;

export function makeNonce(): string {
  return randomBytes(18).toString('base64').replace(/[^A-Za-z0-9]/g, '');
}

export async function showReport(ctx: CommandContext, arg?: unknown): Promise<void> {
  const failure = { log: 'report', show: 'the report failed: ', matrices: true };
  return withFunctionReport(ctx, arg, failure, async (_api, _target, report) => {
    if (!panel) {
      panel = vscode.window.createWebviewPanel('codequorum.report', 'codequorum report', vscode.ViewColumn.Beside, {
        enableScripts: true,
        localResourceRoots: [],
      });
      panel.onDidDispose(() => {
        panel = undefined;
      });
    }
    panel.title = `codequorum: ${safeText(report.qualifiedName, 200)}`;
    panel.webview.html = renderReportHtml(report, { nonce: makeNonce(), cspSource: panel.webview.cspSource });
    panel.reveal(vscode.ViewColumn.Beside, true);
  });
}
