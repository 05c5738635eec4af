import * as assert from 'assert/strict';
import { parseAnalyzeResult } from '../src/report';
import { barFractions, contentSecurityPolicy, escapeHtml, intensity, renderReportHtml } from '../src/reportHtml';
import { fixture } from './fakes';

describe('report view', () => {
  const report = parseAnalyzeResult(fixture('analyze-add.json'))!;
  const html = renderReportHtml(report, { nonce: 'N0NCE', cspSource: 'vscode-resource:' });

  it('declares a strict Content-Security-Policy with a nonce for its style and script', () => {
    assert.ok(html.includes(`content="${contentSecurityPolicy('N0NCE', 'vscode-resource:')}"`));
    assert.match(html, /default-src 'none'/);
    assert.doesNotMatch(html, /unsafe-inline|unsafe-eval/);
    const scripts = html.match(/<script[^>]*>/g) ?? [];
    assert.deepEqual(scripts, ['<script nonce="N0NCE">']);
    const styles = html.match(/<style[^>]*>/g) ?? [];
    assert.deepEqual(styles, ['<style nonce="N0NCE">']);
    assert.doesNotMatch(html, /\sstyle="/, 'inline style attributes would be blocked');
    assert.doesNotMatch(html, /\son[a-z]+="/, 'inline handlers would be blocked');
  });

  it('draws one heatmap per similarity matrix, the structural one shown first', () => {
    const n = report.versions.length;
    const svgs = html.match(/<svg class="heatmap[^"]*" data-matrix="([^"]+)"/g)!;
    assert.ok(svgs.length >= 3);
    assert.match(html, /<svg class="heatmap" data-matrix="jsd_struct"/);
    assert.match(html, /<svg class="heatmap hidden" data-matrix="tsed"/);
    const jsd = html.slice(html.indexOf('data-matrix="jsd_struct"'));
    const cells = jsd.slice(0, jsd.indexOf('</svg>')).match(/<rect class="cell"/g)!;
    assert.equal(cells.length, n * n);
    assert.match(html, /<title>v1 → v2: 0\.\d\d<\/title>/);
    assert.match(html, /fill-opacity="1\.000"/); // the diagonal
    assert.match(html, /palest 0\.\d\d · strongest 1\.00/);
  });

  it('uses theme colours only', () => {
    assert.match(html, /var\(--vscode-charts-blue\)/);
    assert.match(html, /var\(--vscode-editor-background\)/);
    assert.doesNotMatch(html, /#[0-9a-fA-F]{3,6}\b(?![^<]*<\/title>)/);
  });

  it('shows the figure, the verdict, and per-version bars', () => {
    assert.match(html, /<span class="figure unstable">0\.80<\/span> unstable · 3 versions \+ your code/);
    assert.match(html, /more stable than 76 % of HumanEval functions/);
    assert.match(html, /<div class="verdict warning">The current code is far from the consensus/);
    assert.match(html, /Structure \(agreement with the others\)/);
    assert.match(html, /Run-time cost/);
  });

  it('counts the versions in the server\'s words, as the lens and the hover do', () => {
    const raw = { ...fixture('analyze-add.json'), compared: '3 versions + your code' };
    const counted = renderReportHtml(parseAnalyzeResult(raw)!, { nonce: 'N', cspSource: 'c' });
    assert.match(counted, /<\/span> unstable · 3 versions \+ your code<\/p>/);
  });

  it('spreads the colour scale between the lowest similarity and 1', () => {
    assert.equal(intensity(1, 0.6), 1);
    assert.equal(intensity(0.6, 0.6), 0.08);
    assert.ok(Math.abs(intensity(0.8, 0.6) - (0.08 + 0.92 * 0.5)) < 1e-12);
    assert.equal(intensity(1, 1), 1, 'a matrix of identical versions does not divide by zero');
  });

  it('scales run-time cost to the most costly version and leaves unknowns empty', () => {
    const versions = report.versions.map((v, i) => ({ ...v, runtimeCost: i === 3 ? undefined : (i + 1) * 100 }));
    assert.deepEqual(barFractions(versions, 'runtimeCost'), [1 / 3, 2 / 3, 1, undefined]);
    assert.deepEqual(barFractions(report.versions, 'opcodes'), [undefined, undefined, undefined, undefined]);
    const sized = report.versions.map((v, i) => ({ ...v, opcodes: [10, 20, 40, 20][i] }));
    assert.deepEqual(barFractions(sized, 'opcodes'), [0.25, 0.5, 1, 0.5]);
  });

  it('escapes names from the document', () => {
    const evil = { ...report, qualifiedName: '<img src=x onerror=alert(1)>' };
    const out = renderReportHtml(evil, { nonce: 'n', cspSource: 's' });
    assert.ok(!out.includes('<img'));
    assert.ok(out.includes(escapeHtml('<img src=x onerror=alert(1)>')));
  });

  it('escapes control, bidi and invisible characters and bounds text from versions', () => {
    const hostile = '\x1b]0;pwned\x07\x1b[2J\u202eevil\u202c\u200b```<script>alert(1)</script>';
    const evil = {
      ...report,
      qualifiedName: `add${hostile}`,
      versions: report.versions.map((v, i) => ({ ...v, label: i === 1 ? `v2${hostile}` : v.label })),
      verdicts: [{ code: 'divergent-outputs', severity: 'warning" onclick="x', message: `raised ${hostile}${'x'.repeat(5000)}` }],
    };
    const out = renderReportHtml(evil, { nonce: 'n', cspSource: 's' });
    assert.doesNotMatch(out, /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/u);
    assert.ok(!out.includes('<script>alert'));
    assert.ok(out.includes('add\\x1b]0;pwned\\x07\\x1b[2J\\u202eevil\\u202c\\u200b```&lt;script&gt;'));
    assert.match(out, /<div class="verdict information">raised \\x1b/);
    assert.doesNotMatch(out, /onclick/);
    assert.match(out, /… \(\d+ chars\)<\/div>/);
    assert.ok(out.includes('v2\\x1b]0;pwned'));
  });
});

describe('report view: which version to keep', () => {
  function recommending(): ReturnType<typeof parseAnalyzeResult> {
    const raw = structuredClone(fixture('analyze-add.json')) as Record<string, unknown>;
    const rep = raw.report as Record<string, unknown>;
    rep.recommended = 2;
    rep.recommended_by = 'behaviour';
    rep.recommendation = 'keep version 3: 3 of 4 versions agree with it on 5 inputs';
    rep.risk = 0.34;
    rep.trust = 'uncertain: about 1 in 3 that it is wrong (30–40 % in held-out tests)';
    rep.stability_percentile = 8;
    raw.evidence = 'on add(1, <b>2</b>) version 3 returns 3; version 4 returns None';
    return parseAnalyzeResult(raw);
  }

  it('reads the recommendation, risk, its words, percentile and evidence from the answer', () => {
    const r = recommending()!;
    assert.equal(r.recommended, 2);
    assert.equal(r.risk, 0.34);
    assert.equal(r.trust, 'uncertain: about 1 in 3 that it is wrong (30–40 % in held-out tests)');
    assert.deepEqual(
      r.versions.map((v) => v.isRecommended),
      r.versions.map((v) => v.index === 2),
    );
  });

  it('marks the recommended version and says how far to trust it, escaped', () => {
    const html = renderReportHtml(recommending()!, { nonce: 'N', cspSource: 'c' });
    assert.match(html, /<h2>Which version to keep<\/h2>/);
    assert.match(html, /<p class="keep">Keep <strong>v3<\/strong> ✔: keep version 3: 3 of 4 versions agree with it on 5 inputs<\/p>/);
    assert.match(html, /<p class="trust">uncertain: about 1 in 3 that it is wrong \(30–40 % in held-out tests\)<\/p>/);
    assert.match(html, /<p class="evidence">on add\(1, &lt;b&gt;2&lt;\/b&gt;\) version 3 returns 3; version 4 returns None<\/p>/);
    assert.equal((html.match(/ ✔<\/text>/g) ?? []).length, 3, 'one mark per bar chart');
    assert.doesNotMatch(html, /<b>2/);
  });

  it('has no such section without a recommendation', () => {
    const html = renderReportHtml(parseAnalyzeResult(fixture('analyze-add.json'))!, { nonce: 'N', cspSource: 'c' });
    assert.doesNotMatch(html, /Which version to keep/);
  });

  it('says what is missing where nothing ran, and no shape-only figure', () => {
    const raw = structuredClone(fixture('analyze-add.json')) as Record<string, unknown>;
    const rep = raw.report as Record<string, unknown>;
    rep.recommended = 0;
    rep.recommendation = 'keep version 1: the most typical in shape';
    rep.risk = null;
    rep.trust = 'not run yet: run the versions to estimate how likely the kept version is wrong';
    rep.stability_percentile = 8;
    const html = renderReportHtml(parseAnalyzeResult(raw)!, { nonce: 'N', cspSource: 'c' });
    assert.match(html, /<p class="trust">not run yet: run the versions to estimate how likely the kept version is wrong<\/p>/);
    assert.doesNotMatch(html, /that it is wrong/);
  });
});
