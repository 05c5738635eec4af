/** Compare: pick a version (most typical first) and open a diff against the current code. */
import * as vscode from 'vscode';
import { Commands } from '../constants';
import type { FunctionReport, VersionView } from '../report';
import { sampleUri, type SampleRef } from '../sampleDocuments';
import type { FunctionTarget } from '../serverApi';
import { withFunctionReport, type CommandContext } from './context';
import { pickVersion } from './pickVersion';
import { applyReplacement } from './replace';
import { plainMessage, safeText } from '../safeText';

const REGENERATE = 'Regenerate';
const REPLACE = 'Replace';

/** The left and right documents of the diff and its title. */
export function diffDocuments(
  target: FunctionTarget,
  report: FunctionReport,
  chosen: VersionView,
): { left: vscode.Uri; right: vscode.Uri; title: string } {
  const current = report.versions.find((v) => v.isCurrent);
  const leftRef: SampleRef = { target, version: current ? current.index : 'current' };
  const rightRef: SampleRef = { target, version: chosen.index };
  const name = safeText(report.qualifiedName || 'function', 200);
  return {
    left: sampleUri(leftRef, 'current', report.language),
    right: sampleUri(rightRef, chosen.label, report.language),
    title: `${name}: current ↔ ${chosen.label}`,
  };
}

/** `codequorum.compare` (also what the server's "Compare" code lens runs). */
export async function compareVersions(ctx: CommandContext, arg?: unknown): Promise<void> {
  return withFunctionReport(ctx, arg, { log: 'compare', show: 'comparing failed: ' }, async (_api, named, report) => {
    if (report.versions.filter((v) => !v.isCurrent).length === 0) {
      const choice = await vscode.window.showInformationMessage(
        `codequorum: ${plainMessage(report.qualifiedName, 200)} has no other versions yet.`,
        REGENERATE,
      );
      if (choice === REGENERATE) {
        await vscode.commands.executeCommand(Commands.regenerate, named);
      }
      return;
    }
    const chosen = await pickVersion(report, `Compare ${safeText(report.qualifiedName, 200)} with… (most typical first)`);
    if (!chosen) {
      return;
    }
    const docs = diffDocuments(named, report, chosen);
    await vscode.commands.executeCommand('vscode.diff', docs.left, docs.right, docs.title, { preview: true });
    const choice = await vscode.window.showInformationMessage(
      `Replace ${plainMessage(report.qualifiedName, 200)} with ${chosen.label}?`,
      REPLACE,
    );
    if (choice === REPLACE) {
      await applyReplacement(ctx, named, chosen);
    }
  });
}
