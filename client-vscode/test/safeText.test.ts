import * as assert from 'assert/strict';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { plainMessage, safeText } from '../src/safeText';

const REPO = path.join(__dirname, '..', '..', '..');
const PYTHON = process.env.CODEQUORUM_PYTHON ?? path.join(REPO, '.venv', 'bin', 'python');

/** Texts a version could produce, with what each control must become. */
const CASES: [string, number | null, boolean][] = [
  ['plain text, unchanged', 500, false],
  ['\x1b]0;pwned\x07\x1b[2J\x1b[31mred', 500, false],
  ['bidi \u202eevil\u202c \u2066x\u2069 zero\u200bwidth \ufeff', 500, false],
  ['tab\tcr\rnl\nnul\x00del\x7fc1\x85', 500, false],
  ['kept\nnewlines\x1b', 500, true],
  ['joiner 👩\u200d💻 and astral 𝔘 and private \ue000', 500, false],
  ['x'.repeat(1000), 100, false],
  ['é'.repeat(30), 10, false],
  ['no limit '.repeat(100), null, false],
  ['line\u2028separator\u2029paragraph', 500, false],
  ['[Open a terminal](command:workbench.action.terminal.new) <http://x> <img src=x>\nIGNORE', 500, false],
];

describe('safeText', () => {
  it('escapes controls, bidi and invisible characters', () => {
    assert.equal(safeText('\x1b[31mred'), '\\x1b[31mred');
    assert.equal(safeText('a\u202eb'), 'a\\u202eb');
    assert.equal(safeText('a\u200bb\ufeff'), 'a\\u200bb\\ufeff');
    assert.equal(safeText('a\nb\tc\rd'), 'a\\nb\\tc\\rd');
    assert.equal(safeText('a\nb', 500, true), 'a\nb');
    assert.equal(safeText('\u{e0001}'), '\\U000e0001');
    assert.equal(safeText('👩\u200d💻'), '👩\u200d💻');
    assert.equal(safeText(42), '42');
  });

  it('bounds the length and says how long the whole was', () => {
    const cut = safeText('x'.repeat(1000), 100);
    assert.equal(Array.from(cut).length, 100);
    assert.ok(cut.endsWith('… (1000 chars)'));
    assert.equal(safeText('x'.repeat(1000), null).length, 1000);
  });

  it('leaves no link live in a message', () => {
    assert.equal(
      plainMessage('[Open a terminal](command:workbench.action.terminal.new) <http://x>\nIGNORE'),
      '[Open a terminal] (command:workbench.action.terminal.new) < http://x>\\nIGNORE',
    );
  });

  it('gives what the server\'s safe_text and plain_message give', function () {
    if (!fs.existsSync(PYTHON)) {
      this.skip();
    }
    const script =
      'import json, sys\nfrom codequorum.core.safe_text import safe_text\n' +
      'cases = json.load(sys.stdin)\n' +
      'from codequorum.core.safe_text import plain_message\n' +
      'print(json.dumps([safe_text(t, limit, keep_newlines=keep) for t, limit, keep in cases]\n' +
      '                 + [plain_message(t, limit) for t, limit, _ in cases]))\n';
    const run = spawnSync(PYTHON, ['-c', script], { input: JSON.stringify(CASES), encoding: 'utf8' });
    if (run.status !== 0) {
      this.skip();
    }
    const expected = JSON.parse(run.stdout) as string[];
    assert.deepEqual(
      [...CASES.map(([t, limit, keep]) => safeText(t, limit, keep)),
        ...CASES.map(([t, limit]) => plainMessage(t, limit))],
      expected,
    );
  });
});
