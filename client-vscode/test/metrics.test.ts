import * as assert from 'assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { DISTANCE_MATRICES, MATRIX_TITLES, STRUCTURE_MATRIX } from '../src/generated/metrics';

// The generator is plain CommonJS so that `npm run gen-metrics` needs no build.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const gen = require(path.join(__dirname, '..', '..', 'scripts', 'gen-metrics.js')) as {
  generate(shared: unknown): string;
  expectedSource(): string;
  METRICS_TS: string;
};

describe('metric titles generated from the server registry', () => {
  it('src/generated/metrics.ts matches shared/metrics.json (run `npm run gen-metrics` after it changes)', () => {
    assert.equal(fs.readFileSync(gen.METRICS_TS, 'utf8'), gen.expectedSource());
  });

  it('titles the structural matrices and keeps distances apart', () => {
    assert.equal(MATRIX_TITLES.jsd_struct, 'Structure (JSD similarity)');
    assert.equal(MATRIX_TITLES.tsed_08, 'TSED, insertions cost 0.8');
    assert.ok(DISTANCE_MATRICES.has('led') && !DISTANCE_MATRICES.has('jsd_struct'));
    assert.equal(STRUCTURE_MATRIX, 'jsd_struct');
  });

  it('writes a new metric from the shared file alone', () => {
    const source = gen.generate({
      structure: 'jsd_struct',
      matrices: [{ key: 'lines', title: "Lines' count", direction: 'similarity' }, { key: 'far', title: '', direction: 'distance' }],
    });
    assert.match(source, /  lines: 'Lines\\' count',/);
    assert.match(source, /new Set\(\['far'\]\)/);
  });
});
