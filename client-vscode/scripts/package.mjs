// npm run package: settings check, server wheel, production bundle, .vsix, contents check.
// vsce runs with --no-dependencies (esbuild bundled everything) and needs no network.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const repo = join(root, '..');
const require = createRequire(import.meta.url);
const run = (cmd, args, opts = {}) => execFileSync(cmd, args, { stdio: 'inherit', cwd: root, ...opts });

const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const out = join(root, `${pkg.name}-${pkg.version}.vsix`);

run(process.execPath, [join(root, 'scripts', 'gen-settings.js'), '--check']);
run('bash', [join(repo, 'scripts', 'build-wheel.sh'), join(root, 'server-wheel')]);
run(process.execPath, [join(root, 'scripts', 'build.mjs'), '--production']);
const vsce = join(dirname(require.resolve('@vscode/vsce/package.json')), 'vsce');
run(process.execPath, [vsce, 'package', '--no-dependencies', '--allow-missing-repository', '--out', out]);

const { zipEntries, vsixProblems, bundleProblems } = require('./vsix-contents.js');
const entries = zipEntries(out);
const problems = [...vsixProblems(entries), ...bundleProblems(readFileSync(join(root, 'dist', 'extension.js'), 'utf8'))];
if (problems.length) {
  console.error(`${out} is not right:\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log(`${out}: ${entries.length} files, contents as expected:\n  ${entries.join('\n  ')}`);
