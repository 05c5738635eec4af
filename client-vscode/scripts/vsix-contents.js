// Lists the files of a .vsix (a zip) from its central directory, and checks what the
// package must and must not hold. Plain CommonJS: used by the package script and the tests.
'use strict';
const fs = require('fs');

/** Entry names of a zip file. */
function zipEntries(file) {
  const buf = fs.readFileSync(file);
  // End of central directory: signature 0x06054b50, within the last 64 KiB + 22 bytes.
  let eocd = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 65557); i--) {
    if (buf.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) {
    throw new Error(`${file} is not a zip file`);
  }
  const count = buf.readUInt16LE(eocd + 10);
  let offset = buf.readUInt32LE(eocd + 16);
  const names = [];
  for (let k = 0; k < count; k++) {
    if (buf.readUInt32LE(offset) !== 0x02014b50) {
      throw new Error(`${file}: bad central directory entry ${k}`);
    }
    const nameLength = buf.readUInt16LE(offset + 28);
    const extraLength = buf.readUInt16LE(offset + 30);
    const commentLength = buf.readUInt16LE(offset + 32);
    names.push(buf.toString('utf8', offset + 46, offset + 46 + nameLength));
    offset += 46 + nameLength + extraLength + commentLength;
  }
  return names;
}

const REQUIRED = [
  { what: 'the bundled extension', test: (n) => n === 'extension/dist/extension.js' },
  { what: 'the server wheel', test: (n) => /^extension\/server-wheel\/codequorum-[^/]+-py3-none-any\.whl$/.test(n) },
  { what: 'package.json', test: (n) => n === 'extension/package.json' },
  { what: 'README.md', test: (n) => /^extension\/readme\.md$/i.test(n) },
  { what: 'LICENSE', test: (n) => /^extension\/license(\.txt|\.md)?$/i.test(n) },
  { what: 'the icon', test: (n) => n === 'extension/media/icon.png' },
];

const FORBIDDEN = [
  { what: 'TypeScript sources', test: (n) => /\.ts$/.test(n) && !/\.d\.ts$/.test(n) },
  { what: 'tests', test: (n) => /^extension\/(test|out)\//.test(n) },
  { what: 'node_modules', test: (n) => n.includes('node_modules/') },
  { what: 'tsconfig files', test: (n) => /tsconfig[^/]*\.json$/.test(n) },
  { what: 'source maps', test: (n) => /\.map$/.test(n) },
  { what: 'build scripts', test: (n) => /^extension\/scripts\//.test(n) },
  { what: 'settings schemas (already in package.json)', test: (n) => /schema\.json$/.test(n) },
  { what: 'dot files', test: (n) => /(^|\/)\.[^/]+$/.test(n) },
  { what: 'other packages', test: (n) => /\.vsix$/.test(n) },
];

/** What is wrong with a package of these entries (empty: nothing). */
function vsixProblems(entries) {
  const problems = [];
  for (const rule of REQUIRED) {
    if (!entries.some(rule.test)) {
      problems.push(`missing: ${rule.what}`);
    }
  }
  for (const rule of FORBIDDEN) {
    const hits = entries.filter(rule.test);
    if (hits.length) {
      problems.push(`must not hold ${rule.what}: ${hits.slice(0, 5).join(', ')}`);
    }
  }
  return problems;
}

/**
 * What is wrong with the bundle's text: every require() must be `vscode` (provided by the
 * editor) or a Node built-in, since the package ships no node_modules.
 */
function bundleProblems(text) {
  const builtins = new Set(require('module').builtinModules);
  const required = new Set([...text.matchAll(/require\(["']([^"']+)["']\)/g)].map((m) => m[1]));
  return [...required]
    .filter((name) => name !== 'vscode' && !builtins.has(name.replace(/^node:/, '')))
    .map((name) => `the bundle requires ${name}, which the package does not ship`);
}

module.exports = { zipEntries, vsixProblems, bundleProblems };

if (require.main === module) {
  const file = process.argv[2];
  const entries = zipEntries(file);
  console.log(entries.join('\n'));
  const problems = vsixProblems(entries);
  if (problems.length) {
    console.error(`${file}:\n  ${problems.join('\n  ')}`);
    process.exitCode = 1;
  } else {
    console.log(`${file}: ${entries.length} files, contents as expected`);
  }
}
