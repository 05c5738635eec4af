/**
 * The report page: the similarity matrix as a heatmap and per-version bars. Pure: report in,
 * HTML out. Every text from the server goes through `text` (escaped like the server's
 * safe_text, then HTML-escaped). Colours come from VS Code's theme variables; there are no inline styles and the
 * only script carries the nonce, so the page runs under a strict Content-Security-Policy.
 */
import { STRUCTURE_MATRIX } from './generated/metrics';
import { comparedWords, type FunctionReport, type MatrixView, type VersionView } from './report';
import { safeText } from './safeText';

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** Untrusted text for the page: control and invisible characters escaped, bounded, HTML-escaped. */
export function text(s: string, limit = 500): string {
  return escapeHtml(safeText(s, limit));
}

/** Severities the page has a style for; anything else is shown as information. */
const SEVERITIES = new Set(['error', 'warning', 'information', 'hint']);

export function contentSecurityPolicy(nonce: string, cspSource: string): string {
  return [
    "default-src 'none'",
    `style-src ${cspSource} 'nonce-${nonce}'`,
    `script-src 'nonce-${nonce}'`,
    `img-src ${cspSource} data:`,
    `font-src ${cspSource}`,
  ].join('; ');
}

function fmt(x: number | null | undefined): string {
  return x === null || x === undefined ? 'n/a' : x.toFixed(2);
}

const CELL = 44;
const TOP = 24;
const LEFT = 64;

/**
 * Cell intensity in [0.08, 1]: the lowest similarity in the matrix is lightest and 1.0 darkest,
 * so that differences between versions that are all fairly alike still show.
 */
export function intensity(value: number, lowest: number): number {
  const lo = Math.min(lowest, 0.95);
  const t = Math.max(0, Math.min(1, (value - lo) / (1 - lo)));
  return 0.08 + 0.92 * t;
}

function label(report: FunctionReport, index: number): string {
  return report.versions.find((v) => v.index === index)?.label ?? `v${index + 1}`;
}

/** One matrix as an SVG heatmap: cell opacity = similarity (clipped to [0, 1]). */
export function heatmapSvg(report: FunctionReport, m: MatrixView, hidden: boolean): string {
  const n = m.indices.length;
  const width = Math.max(LEFT + n * CELL, 320);
  const height = TOP + n * CELL + 22;
  const present = m.values.flat().filter((x): x is number => x !== null);
  const lowest = present.length ? Math.min(...present) : 0;
  const parts: string[] = [];
  parts.push(
    `<svg class="heatmap${hidden ? ' hidden' : ''}" data-matrix="${text(m.name)}" role="img" aria-label="${text(m.title)}" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">`,
  );
  m.indices.forEach((idx, k) => {
    const name = text(label(report, idx));
    parts.push(`<text class="axis" x="${LEFT + k * CELL + CELL / 2 - 1}" y="${TOP - 8}" text-anchor="middle">${name}</text>`);
    parts.push(`<text class="axis" x="${LEFT - 8}" y="${TOP + k * CELL + CELL / 2 + 3}" text-anchor="end">${name}</text>`);
  });
  m.values.forEach((row, i) => {
    row.forEach((value, j) => {
      const x = LEFT + j * CELL;
      const y = TOP + i * CELL;
      const level = value === null ? 0 : intensity(value, lowest);
      const title = `${label(report, m.indices[i])} → ${label(report, m.indices[j])}: ${fmt(value)}`;
      parts.push(
        `<g><title>${text(title)}</title><rect class="${value === null ? 'cell missing' : 'cell'}" x="${x}" y="${y}" width="${CELL - 2}" height="${CELL - 2}" fill-opacity="${level.toFixed(3)}"></rect>` +
          `<text class="value${level > 0.55 ? ' strong' : ''}" x="${x + (CELL - 2) / 2}" y="${y + CELL / 2 + 3}" text-anchor="middle">${fmt(value)}</text></g>`,
      );
    });
  });
  parts.push(
    `<text class="legend" x="${LEFT}" y="${TOP + n * CELL + 16}">palest ${fmt(lowest)} · strongest 1.00</text>`,
  );
  parts.push('</svg>');
  return parts.join('');
}

interface BarSpec {
  key: 'structure' | 'opcodes' | 'runtimeCost';
  title: string;
}

const BARS: BarSpec[] = [
  { key: 'structure', title: 'Structure (agreement with the others)' },
  { key: 'opcodes', title: 'Opcodes in the compiled code (relative to the largest)' },
  { key: 'runtimeCost', title: 'Run-time cost: traced opcodes per input (relative to the most costly)' },
];

/** Bar lengths in [0, 1]: agreement as it is, counts relative to the largest. */
export function barFractions(versions: VersionView[], key: BarSpec['key']): (number | undefined)[] {
  if (key === 'runtimeCost' || key === 'opcodes') {
    const costs = versions.map((v) => v[key]);
    const max = Math.max(0, ...costs.filter((c): c is number => c !== undefined));
    return costs.map((c) => (c === undefined || max <= 0 ? undefined : c / max));
  }
  return versions.map((v) => {
    const x = v[key];
    return x === undefined ? undefined : Math.max(0, Math.min(1, x));
  });
}

function barsSvg(versions: VersionView[], spec: BarSpec): string {
  const width = 420;
  const row = 22;
  const left = 110;
  const fractions = barFractions(versions, spec.key);
  const height = versions.length * row + 4;
  const parts = [`<svg class="bars" role="img" aria-label="${text(spec.title)}" width="${width + left + 90}" height="${height}">`];
  versions.forEach((v, k) => {
    const y = k * row + 2;
    const f = fractions[k];
    const raw = v[spec.key];
    const shown = spec.key === 'structure' ? fmt(raw) : raw === undefined ? 'n/a' : Math.round(raw).toString();
    const marks = `${v.isConsensus ? ' ★' : ''}${v.isRecommended ? ' ✔' : ''}`;
    parts.push(`<text class="axis" x="${left - 8}" y="${y + 14}" text-anchor="end">${text(v.label)}${marks}</text>`);
    parts.push(`<rect class="track" x="${left}" y="${y + 3}" width="${width}" height="${row - 8}"></rect>`);
    if (f !== undefined) {
      parts.push(`<rect class="bar ${v.isCurrent ? 'current' : ''}" x="${left}" y="${y + 3}" width="${(f * width).toFixed(1)}" height="${row - 8}"></rect>`);
    }
    parts.push(`<text class="value" x="${left + width + 8}" y="${y + 14}">${shown}</text>`);
  });
  parts.push('</svg>');
  return parts.join('');
}

const STYLE = `
body { color: var(--vscode-foreground); background: var(--vscode-editor-background); font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); padding: 0 16px 16px; }
h1 { font-size: 1.3em; font-weight: 600; }
h2 { font-size: 1.05em; font-weight: 600; margin-top: 1.6em; }
.verdict { padding: 6px 10px; border-left: 3px solid var(--vscode-charts-blue); background: var(--vscode-textBlockQuote-background); margin: 4px 0; }
.verdict.warning, .verdict.error { border-left-color: var(--vscode-editorWarning-foreground); }
.figure { font-size: 1.6em; font-weight: 600; }
.unstable { color: var(--vscode-editorWarning-foreground); }
svg text { fill: var(--vscode-foreground); font-size: 11px; font-family: var(--vscode-editor-font-family); }
svg text.value.strong { fill: var(--vscode-button-foreground, var(--vscode-editor-background)); }
svg text.legend { fill: var(--vscode-descriptionForeground); }
rect.cell { fill: var(--vscode-charts-blue); }
rect.cell.missing { fill: var(--vscode-disabledForeground); }
rect.track { fill: var(--vscode-editorWidget-background); stroke: var(--vscode-widget-border, transparent); }
rect.bar { fill: var(--vscode-charts-green); }
rect.bar.current { fill: var(--vscode-charts-orange); }
.hidden { display: none; }
select { color: var(--vscode-dropdown-foreground); background: var(--vscode-dropdown-background); border: 1px solid var(--vscode-dropdown-border); padding: 2px 4px; }
table { border-collapse: collapse; }
td, th { padding: 2px 10px; text-align: left; }
.note { color: var(--vscode-descriptionForeground); }
.trust, .evidence { color: var(--vscode-descriptionForeground); margin: 2px 0; }
`;

const SCRIPT = `
const select = document.getElementById('matrix');
if (select) {
  select.addEventListener('change', () => {
    for (const svg of document.querySelectorAll('svg.heatmap')) {
      svg.classList.toggle('hidden', svg.dataset.matrix !== select.value);
    }
  });
}
`;

/** The "which version to keep" section: the recommendation, how far to trust it, and the
 * input where the recommended version and the others part ways. Empty without one. */
export function recommendationHtml(report: FunctionReport): string {
  if (report.recommended === undefined) {
    return '';
  }
  const keep = report.versions.find((v) => v.index === report.recommended);
  const name = keep ? keep.label : `v${report.recommended + 1}`;
  const trust: string[] = [];
  if (report.trust !== undefined) {
    trust.push(report.trust); // never a figure from shape alone beside it
  }
  const lines = [
    `<p class="keep">Keep <strong>${text(name, 60)}</strong> ✔${report.recommendation ? `: ${text(report.recommendation)}` : ''}</p>`,
  ];
  if (trust.length) {
    lines.push(`<p class="trust">${text(trust.join('; '))}</p>`);
  }
  if (report.evidence) {
    lines.push(`<p class="evidence">${text(report.evidence)}</p>`);
  }
  return `<h2>Which version to keep</h2>\n${lines.join('\n')}`;
}

export function renderReportHtml(report: FunctionReport, options: { nonce: string; cspSource: string }): string {
  const { nonce, cspSource } = options;
  const name = text(report.qualifiedName || 'function');
  const stable = report.stable ?? (report.stability !== undefined && report.stability >= 0.8);
  const headline =
    report.stability === undefined
      ? '<p class="note">Fewer than two versions could be compared.</p>'
      : `<p><span class="figure${stable ? '' : ' unstable'}">${fmt(report.stability)}</span> ${stable ? 'stable' : 'unstable'} · ${text(comparedWords(report), 80)}</p>`;
  const verdicts = report.verdicts
    .map((v) => `<div class="verdict ${SEVERITIES.has(v.severity) ? v.severity : 'information'}">${text(v.message)}</div>`)
    .join('');
  const matrices = report.matrices.filter((m) => m.indices.length > 0);
  const preferred = matrices.find((m) => m.name === STRUCTURE_MATRIX) ?? matrices[0];
  const heatmaps = matrices.length
    ? `<h2>Similarity between versions</h2>
<label for="matrix">Measure </label><select id="matrix">${matrices
        .map((m) => `<option value="${text(m.name)}"${m === preferred ? ' selected' : ''}>${text(m.title)}</option>`)
        .join('')}</select>
<div>${matrices.map((m) => heatmapSvg(report, m, m !== preferred)).join('')}</div>
<p class="note">Row → column; the stronger the colour, the more alike.</p>`
    : '<p class="note">No similarity matrix in this report.</p>';
  const scored = report.versions.filter((v) => !v.skipped);
  const bars = BARS.map((spec) => `<h2>${text(spec.title)}</h2>${barsSvg(scored, spec)}`).join('');
  const skipped = report.versions.filter((v) => v.skipped);
  const skippedNote = skipped.length
    ? `<p class="note">Not scored: ${skipped.map((v) => text(v.label)).join(', ')}.</p>`
    : '';
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${contentSecurityPolicy(nonce, cspSource)}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>codequorum: ${name}</title>
<style nonce="${nonce}">${STYLE}</style>
</head>
<body>
<h1>${name}</h1>
${headline}
${verdicts}
${recommendationHtml(report)}
${heatmaps}
${bars}
${skippedNote}
<script nonce="${nonce}">${SCRIPT}</script>
</body>
</html>`;
}
