/**
 * The one place that knows the shape of the server's `codequorum.analyze` answer.
 * Everything else in the extension works on the `FunctionReport` view built here, so a
 * change in the server's JSON is a change in this file only. Text meant only for display
 * (labels, origins, providers, models, verdicts) is escaped here with `safeText`; the
 * qualified name stays as the server sent it (it names the function in later commands) and
 * is escaped where it is shown.
 */
import { DISTANCE_MATRICES, MATRIX_TITLES, STRUCTURE_MATRIX } from './generated/metrics';
import { isObject, type Json } from './json';
import { safeText } from './safeText';

export interface LspPosition {
  line: number;
  character: number;
}

export interface LspRange {
  start: LspPosition;
  end: LspPosition;
}

export interface VersionView {
  /** Position of the version in the server's sample set (what showSample takes). */
  index: number;
  /** Opaque id the server gave the version, when it gave one. */
  id: string | undefined;
  label: string;
  isCurrent: boolean;
  isConsensus: boolean;
  /** The version the server recommends keeping. */
  isRecommended: boolean;
  /** Mean similarity to every other version (higher: closer to the consensus). */
  typicality: number | undefined;
  /** Mean structural (JSD) similarity to the other versions. */
  structure: number | undefined;
  /** Opcodes in the version's compiled code (after a dynamic run). */
  opcodes: number | undefined;
  /** Run-time cost: mean traced opcodes per test input (after a dynamic run). */
  runtimeCost: number | undefined;
  /** Share of the tests passed (after a dynamic run). */
  passRate: number | undefined;
  cluster: number | undefined;
  origin: string | undefined;
  provider: string | undefined;
  model: string | undefined;
  /** True when the version was left out of the scores (syntax error, empty...). */
  skipped: boolean;
}

export interface VerdictView {
  code: string;
  severity: string;
  message: string;
}

export interface MatrixView {
  name: string;
  title: string;
  /** Version indices of the rows and columns, in order. */
  indices: number[];
  values: (number | null)[][];
}

export interface FunctionReport {
  uri: string | undefined;
  qualifiedName: string;
  language: string;
  /** The function's range in the document, in the client's position encoding. */
  range: LspRange | undefined;
  /** The headline figure (structural agreement, 0..1). */
  stability: number | undefined;
  stable: boolean | undefined;
  headline: string | undefined;
  versions: VersionView[];
  matrices: MatrixView[];
  verdicts: VerdictView[];
  /** Which version to keep (a position in the set), and why, in words. */
  recommended: number | undefined;
  recommendation: string | undefined;
  /** After a run, the probability that the recommended version is wrong. */
  risk: number | undefined;
  /** How far to trust the recommended version, in the server's words (its step on the
   * coarse scale and the probability or the held-out range, or what is missing). */
  trust: string | undefined;
  /** How many versions were compared, in the server's words (`4 versions + your code`),
   * as the lens, the hover and the diagnostics count them. */
  compared: string | undefined;
  /** The input where the recommended version and the others part ways, in words. */
  evidence: string | undefined;
}

/** How many versions were compared: the server's words when it sent them, else a count. */
export function comparedWords(report: FunctionReport): string {
  const scored = report.versions.filter((v) => !v.skipped).length;
  return report.compared ?? `${scored} version${scored === 1 ? '' : 's'}`;
}

/** The first of several spellings (snake_case from Python, camelCase) that is present. */
function field(obj: Json | undefined, ...names: string[]): unknown {
  if (!obj) {
    return undefined;
  }
  for (const n of names) {
    if (n in obj && obj[n] !== undefined) {
      return obj[n];
    }
  }
  return undefined;
}

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** A string for display only: escaped and bounded. */
function shown(v: unknown, limit: number): string | undefined {
  return typeof v === 'string' ? safeText(v, limit) : undefined;
}

function numbers(v: unknown): number[] {
  return Array.isArray(v) ? v.filter((x): x is number => typeof x === 'number') : [];
}

function position(v: unknown): LspPosition | undefined {
  if (!isObject(v)) {
    return undefined;
  }
  const line = num(v.line);
  const character = num(v.character);
  return line !== undefined && character !== undefined ? { line, character } : undefined;
}

function range(v: unknown): LspRange | undefined {
  if (!isObject(v)) {
    return undefined;
  }
  const start = position(v.start);
  const end = position(v.end);
  return start && end ? { start, end } : undefined;
}

function matrix(v: unknown): (number | null)[][] | undefined {
  if (!Array.isArray(v) || !v.every(Array.isArray)) {
    return undefined;
  }
  return (v as unknown[][]).map((row) => row.map((x) => (typeof x === 'number' && Number.isFinite(x) ? x : null)));
}

/** Mean of a row without its diagonal entry and missing values. */
function rowMean(values: (number | null)[][], row: number): number | undefined {
  const xs = values[row].filter((x, j): x is number => j !== row && x !== null);
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : undefined;
}

/**
 * Reads the answer of `codequorum.analyze`. `undefined` when there is no function at the
 * position (the server answers null).
 */
export function parseAnalyzeResult(raw: unknown): FunctionReport | undefined {
  if (!isObject(raw)) {
    return undefined;
  }
  const report = isObject(raw.report) ? raw.report : raw;
  const indices = numbers(field(report, 'indices'));
  const typicality = (field(report, 'typicality') as unknown[] | undefined) ?? [];
  const clusters = (field(report, 'clusters') as unknown[] | undefined) ?? [];
  const skipped = new Set(
    (((field(report, 'skipped') as unknown[] | undefined) ?? []) as unknown[]).map((s) =>
      isObject(s) ? num(s.index) : num(s),
    ),
  );
  // null: the server found no consensus (no two of the versions compared share a shape)
  const named = field(raw, 'consensus', 'medoid');
  const medoid = named === null ? undefined : num(named ?? field(report, 'medoid'));
  const currentIndex = num(field(raw, 'current_index', 'currentIndex') ?? field(report, 'current_index'));
  const recommended = num(field(report, 'recommended'));

  const matrices: MatrixView[] = [];
  const rawMatrices = field(report, 'matrices');
  if (isObject(rawMatrices)) {
    for (const [name, value] of Object.entries(rawMatrices)) {
      const values = matrix(value);
      const similarity = values?.every((row) => row.every((x) => x === null || (x >= -1e-9 && x <= 1 + 1e-9)));
      if (values && similarity && !DISTANCE_MATRICES.has(name) && values.length === indices.length) {
        matrices.push({ name, title: MATRIX_TITLES[name] ?? name, indices, values });
      }
    }
  }
  const structural = matrices.find((m) => m.name === STRUCTURE_MATRIX);

  const dynamic = isObject(field(report, 'dynamic')) ? (field(report, 'dynamic') as Json) : undefined;
  const perSample = (field(dynamic, 'per_sample', 'perSample', 'candidates') as unknown[] | undefined) ?? [];

  const rawVersions = (field(raw, 'versions', 'samples') as unknown[] | undefined) ?? [];
  const count = Math.max(rawVersions.length, num(field(report, 'n_total', 'nTotal')) ?? 0, indices.length);
  const versions: VersionView[] = [];
  for (let index = 0; index < count; index++) {
    const rv = isObject(rawVersions[index]) ? (rawVersions[index] as Json) : undefined;
    const versionIndex = num(field(rv, 'index')) ?? index;
    const pos = indices.indexOf(versionIndex);
    const dyn = perSample.find((p) => isObject(p) && num(p.index) === versionIndex) as Json | undefined;
    const clusterNo = clusters.findIndex((c) => Array.isArray(c) && c.includes(versionIndex));
    versions.push({
      index: versionIndex,
      id: str(field(rv, 'id', 'sample_id', 'sampleId')) ?? (num(field(rv, 'id')) !== undefined ? String(field(rv, 'id')) : undefined),
      label: shown(field(rv, 'label'), 60) ?? (versionIndex === currentIndex ? 'current' : `v${versionIndex + 1}`),
      isCurrent: (field(rv, 'current', 'is_current', 'isCurrent') as boolean | undefined) ?? versionIndex === currentIndex,
      isConsensus: versionIndex === medoid,
      isRecommended: versionIndex === recommended,
      typicality: num(field(rv, 'typicality')) ?? (pos >= 0 ? num(typicality[pos]) : undefined),
      structure: num(field(rv, 'structure')) ?? (structural && pos >= 0 ? rowMean(structural.values, pos) : undefined),
      opcodes: num(field(rv, 'static_opcodes', 'staticOpcodes', 'opcodes')) ?? num(field(dyn, 'static_opcodes')),
      runtimeCost:
        num(field(rv, 'mean_traced_opcodes', 'runtimeCost', 'runtime_cost')) ?? num(field(dyn, 'mean_traced_opcodes')),
      passRate: num(field(rv, 'pass_rate', 'passRate')) ?? num(field(dyn, 'pass_rate', 'passRate')),
      cluster: num(field(rv, 'cluster')) ?? (clusterNo >= 0 ? clusterNo : undefined),
      origin: shown(field(rv, 'origin'), 40),
      provider: shown(field(rv, 'provider'), 120),
      model: shown(field(rv, 'model'), 120),
      skipped: skipped.has(versionIndex) || (indices.length > 0 && pos < 0),
    });
  }

  const verdicts: VerdictView[] = [];
  for (const v of (field(report, 'verdicts') as unknown[] | undefined) ?? []) {
    if (isObject(v)) {
      verdicts.push({
        code: shown(v.code, 60) ?? '',
        severity: shown(v.severity, 20) ?? 'information',
        message: shown(v.message, 500) ?? '',
      });
    }
  }
  const headlineVerdict = verdicts.find((v) => v.severity === 'error' || v.severity === 'warning') ?? verdicts[0];
  const summary = isObject(field(report, 'summary')) ? (field(report, 'summary') as Json) : undefined;
  const jsdSummary = field(summary, STRUCTURE_MATRIX);
  const stability =
    num(field(raw, 'stability')) ?? (isObject(jsdSummary) ? num(jsdSummary.ordered) : num(jsdSummary));
  const stableField = field(raw, 'stable');
  const stable =
    typeof stableField === 'boolean'
      ? stableField
      : verdicts.length
        ? !verdicts.some((v) => v.severity === 'error' || v.severity === 'warning')
        : undefined;

  return {
    uri: str(field(raw, 'uri')),
    qualifiedName: str(field(raw, 'qualified_name', 'qualifiedName', 'function', 'name')) ?? str(field(report, 'task_id')) ?? '',
    language: str(field(raw, 'language')) ?? str(field(report, 'language')) ?? '',
    range: range(field(raw, 'range')),
    stability,
    stable,
    headline: headlineVerdict?.message,
    versions,
    matrices,
    verdicts,
    recommended,
    recommendation: shown(field(report, 'recommendation'), 300),
    risk: num(field(report, 'risk')),
    trust: shown(field(report, 'trust'), 300),
    compared: shown(field(raw, 'compared'), 80),
    evidence: shown(field(raw, 'evidence'), 500),
  };
}

/** Versions that were scored, most typical first (ties: lower index first). */
export function byTypicality(report: FunctionReport): VersionView[] {
  const score = (v: VersionView): number => v.typicality ?? Number.NEGATIVE_INFINITY;
  return report.versions
    .filter((v) => !v.skipped)
    .sort((a, b) => score(b) - score(a) || a.index - b.index)
    .concat(report.versions.filter((v) => v.skipped));
}

/** The versions other than the current code. */
export function alternatives(report: FunctionReport): VersionView[] {
  return byTypicality(report).filter((v) => !v.isCurrent);
}
