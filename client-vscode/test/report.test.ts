import * as assert from 'assert/strict';
import { alternatives, byTypicality, parseAnalyzeResult } from '../src/report';
import { fixture } from './fakes';

describe('report access', () => {
  it('reads the analyze answer: name, range, stability, verdict', () => {
    const r = parseAnalyzeResult(fixture('analyze-add.json'))!;
    assert.equal(r.qualifiedName, 'Calc.add');
    assert.equal(r.language, 'python');
    assert.deepEqual(r.range, { start: { line: 4, character: 4 }, end: { line: 8, character: 20 } });
    assert.ok(Math.abs(r.stability! - 0.7954521875023426) < 1e-12);
    assert.equal(r.stable, false);
    // the set's shape is stable (76th percentile); the current code is the outlier
    assert.match(r.headline!, /^The current code is far from the consensus/);
    assert.equal(r.versions.length, 4);
  });

  it('gives each version its typicality, structure figure, group and source', () => {
    const r = parseAnalyzeResult(fixture('analyze-add.json'))!;
    const [v1, v2, v3, current] = r.versions;
    assert.ok(Math.abs(v1.typicality! - 0.8369806629560311) < 1e-12);
    assert.ok(Math.abs(current.typicality! - 0.704602164729481) < 1e-12);
    assert.equal(v1.isConsensus, true);
    assert.equal(v2.isConsensus, false);
    assert.equal(current.isCurrent, true);
    assert.equal(current.label, 'current');
    assert.equal(v1.cluster, 0);
    assert.equal(v3.cluster, 0);
    assert.equal(v2.cluster, 1);
    assert.equal(v1.model, 'gpt-4o');
    assert.equal(v1.provider, 'vscode-lm');
    // structure = mean of the row of jsd_struct without the diagonal
    const m = r.matrices.find((x) => x.name === 'jsd_struct')!;
    const row = m.values[1].filter((_, j) => j !== 1) as number[];
    assert.ok(Math.abs(v2.structure! - row.reduce((a, b) => a + b, 0) / 3) < 1e-12);
    assert.equal(v1.runtimeCost, undefined);
  });

  it('marks no version as the consensus when the server found none', () => {
    const raw = fixture('analyze-add.json');
    raw.consensus = null;
    const r = parseAnalyzeResult(raw)!;
    assert.deepEqual(r.versions.map((v) => v.isConsensus), [false, false, false, false]);
  });

  it('orders by typicality, ties by index, and leaves the current code out of the alternatives', () => {
    const r = parseAnalyzeResult(fixture('analyze-add.json'))!;
    assert.deepEqual(byTypicality(r).map((v) => v.label), ['v1', 'v3', 'v2', 'current']);
    assert.deepEqual(alternatives(r).map((v) => v.label), ['v1', 'v3', 'v2']);
  });

  it('reads a bare StabilityReport too, naming versions itself', () => {
    const raw = fixture('analyze-add.json');
    const r = parseAnalyzeResult(raw.report)!;
    assert.equal(r.qualifiedName, 'add');
    assert.deepEqual(r.versions.map((v) => v.label), ['v1', 'v2', 'v3', 'current']);
    assert.equal(r.stable, false);
    assert.equal(r.range, undefined);
    assert.deepEqual(r.matrices.map((m) => m.name).sort(), ['jsd_struct', 'jsd_value', 'lcs', 'sce_struct', 'sce_value', 'tsed'].sort());
  });

  it('marks skipped versions and keeps them last', () => {
    const raw = fixture('analyze-add.json');
    const report = raw.report as Record<string, unknown>;
    report.skipped = [{ index: 1, reason: 'syntax error' }];
    report.indices = [0, 2, 3];
    report.typicality = [0.5, 0.9, 0.7];
    report.matrices = {};
    const r = parseAnalyzeResult(raw)!;
    assert.equal(r.versions[1].skipped, true);
    assert.deepEqual(byTypicality(r).map((v) => v.label), ['v3', 'current', 'v1', 'v2']);
  });

  it('answers undefined for no function (null)', () => {
    assert.equal(parseAnalyzeResult(null), undefined);
    assert.equal(parseAnalyzeResult('nothing'), undefined);
  });
});
