/** The quick pick of a function's versions, most typical first, with their figures. */
import * as vscode from 'vscode';
import { alternatives, type FunctionReport, type VersionView } from '../report';
import { formatFigure } from '../statusBar';

export interface VersionItem extends vscode.QuickPickItem {
  version: VersionView;
}

function figure(name: string, x: number | undefined): string | undefined {
  return x === undefined ? undefined : `${name} ${formatFigure(x)}`;
}

function cost(x: number | undefined): string | undefined {
  if (x === undefined) {
    return undefined;
  }
  return x >= 10_000 ? `cost ${(x / 1000).toFixed(0)}k ops` : x >= 1000 ? `cost ${(x / 1000).toFixed(1)}k ops` : `cost ${Math.round(x)} ops`;
}

/** One item per version other than the current code, ordered by typicality. */
export function versionItems(report: FunctionReport): VersionItem[] {
  return alternatives(report).map((v) => {
    const figures = [
      figure('structure', v.structure),
      v.opcodes === undefined ? undefined : `${v.opcodes} opcodes`,
      cost(v.runtimeCost),
      v.passRate === undefined ? undefined : `tests ${Math.round(v.passRate * 100)}%`,
    ].filter((s): s is string => s !== undefined);
    const source = [v.model, v.provider ? `via ${v.provider}` : undefined].filter(Boolean).join(' ');
    const tags = [
      v.isConsensus ? 'consensus' : undefined,
      v.cluster !== undefined ? `group ${v.cluster + 1}` : undefined,
      v.skipped ? 'not scored' : undefined,
    ].filter(Boolean);
    return {
      label: `${v.isConsensus ? '$(star-full) ' : ''}${v.label}`,
      description: [v.typicality === undefined ? 'typicality n/a' : `typicality ${formatFigure(v.typicality)}`, ...tags].join(' · '),
      detail: [figures.join(' · '), source].filter(Boolean).join(' — ') || undefined,
      version: v,
    };
  });
}

export async function pickVersion(report: FunctionReport, placeHolder: string): Promise<VersionView | undefined> {
  const items = versionItems(report);
  if (items.length === 0) {
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(items, { placeHolder, matchOnDescription: true, matchOnDetail: true });
  return picked?.version;
}
