import * as assert from 'assert/strict';
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const vsix = require(path.join(__dirname, '..', '..', 'scripts', 'vsix-contents.js')) as {
  zipEntries(file: string): string[];
  vsixProblems(entries: string[]): string[];
  bundleProblems(text: string): string[];
};

const GOOD = [
  'extension.vsixmanifest',
  '[Content_Types].xml',
  'extension/package.json',
  'extension/readme.md',
  'extension/LICENSE.txt',
  'extension/media/icon.png',
  'extension/server-wheel/codequorum-0.1.0-py3-none-any.whl',
  'extension/dist/extension.js',
];

describe('VSIX contents check', () => {
  it('accepts a package with the bundle, the wheel and nothing else of ours', () => {
    assert.deepEqual(vsix.vsixProblems(GOOD), []);
  });

  it('names what is missing', () => {
    const problems = vsix.vsixProblems(GOOD.filter((n) => !n.includes('server-wheel') && !n.endsWith('extension.js')));
    assert.deepEqual(problems, ['missing: the bundled extension', 'missing: the server wheel']);
  });

  it('refuses sources, tests, node_modules, tsconfig and maps', () => {
    const problems = vsix.vsixProblems([
      ...GOOD,
      'extension/src/extension.ts',
      'extension/test/report.test.js',
      'extension/node_modules/semver/index.js',
      'extension/tsconfig.json',
      'extension/dist/extension.js.map',
    ]);
    assert.equal(problems.length, 5);
    assert.match(problems.join('\n'), /TypeScript sources: extension\/src\/extension\.ts/);
    assert.match(problems.join('\n'), /tests: extension\/test\/report\.test\.js/);
    assert.match(problems.join('\n'), /node_modules/);
    assert.match(problems.join('\n'), /tsconfig/);
    assert.match(problems.join('\n'), /source maps/);
  });

  it('accepts a bundle that requires only vscode and Node built-ins', () => {
    assert.deepEqual(vsix.bundleProblems('require("vscode");require("child_process");require("node:fs")'), []);
    assert.deepEqual(vsix.bundleProblems('require("vscode");require("semver")'), [
      'the bundle requires semver, which the package does not ship',
    ]);
  });

  it('reads the entry names of a real zip file', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cq-zip-'));
    const file = path.join(dir, 'x.vsix');
    const script = [
      'import sys, zipfile',
      'with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:',
      '    z.writestr("extension/package.json", "{}")',
      '    z.writestr("extension/dist/extension.js", "x" * 5000)',
      '    z.writestr("extension/server-wheel/codequorum-0.1.0-py3-none-any.whl", b"PK")',
    ].join('\n');
    execFileSync('python3', ['-c', script, file]);
    assert.deepEqual(vsix.zipEntries(file), [
      'extension/package.json',
      'extension/dist/extension.js',
      'extension/server-wheel/codequorum-0.1.0-py3-none-any.whl',
    ]);
    fs.writeFileSync(file, 'not a zip');
    assert.throws(() => vsix.zipEntries(file), /not a zip file/);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
