import * as assert from 'assert/strict';
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { clearVersions } from '../src/commands/clear';
import { compareVersions, diffDocuments } from '../src/commands/compare';
import { versionItems } from '../src/commands/pickVersion';
import { atColumnZero, dedent, indentBefore, replaceWithVersion } from '../src/commands/replace';
import { importVersions } from '../src/commands/importVersions';
import { MAX_IMPORT_BYTES, readPickedFile } from '../src/pickedFile';
import { runVersions } from '../src/commands/runVersions';
import { Commands, SAMPLE_SCHEME, ServerCommands } from '../src/constants';
import { parseAnalyzeResult } from '../src/report';
import { parseSampleUri, SampleContentProvider } from '../src/sampleDocuments';
import { functionArgument } from '../src/serverApi';
import { CALC_LINES, FakeServer, fixture, makeContext, openEditor } from './fakes';
import { mock, Uri, type WorkspaceEdit } from './mock/vscode';

const URI = 'file:///work/demo/calc.py';
const V3 = 'def add(x, y):\n    return x + y\n';
const ADD_RANGE = { start: { line: 5, character: 4 }, end: { line: 7, character: 20 } };

function server(extra: Record<string, unknown> = {}) {
  return new FakeServer({
    [ServerCommands.analyze]: fixture('analyze-add.json'),
    [ServerCommands.showVersion]: (args: unknown[]) => {
      const index = (args[0] as { index: number }).index;
      const code = index === 2 ? V3 : `def add(a, b):\n    return ${index}\n`;
      // the server's edit: the user's docstring kept, laid out for the function's place
      const replacement = `def add(a, b):\n        \"\"\"The user's.\"\"\"\n        return ${index}`;
      return { index, version: index + 1, code, indented: '', range: ADD_RANGE, replacement };
    },
    [ServerCommands.deleteVersions]: { removed: 3 },
    ...extra,
  });
}

describe('compare', () => {
  beforeEach(() => {
    mock.reset();
    openEditor(URI, CALC_LINES, { line: 6, character: 8 });
  });

  it('lists the other versions most typical first, with their figures', () => {
    const items = versionItems(parseAnalyzeResult(fixture('analyze-add.json'))!);
    assert.deepEqual(items.map((i) => i.label), ['$(star-full) v1', 'v3', 'v2']);
    assert.equal(items[0].description, 'typicality 0.84 · consensus · group 1');
    assert.equal(items[2].description, 'typicality 0.80 · group 2');
    assert.match(items[0].detail!, /^structure 0\.\d\d — gpt-4o via vscode-lm$/);
  });

  it('shows run-time figures when the report has them', () => {
    const raw = fixture('analyze-add.json');
    (raw.report as Record<string, unknown>).dynamic = {
      candidates: [{ index: 1, status: 'ok', pass_rate: 0.5, mean_traced_opcodes: 12345, static_opcodes: 42 }],
    };
    const item = versionItems(parseAnalyzeResult(raw)!).find((i) => i.version.index === 1)!;
    assert.match(item.detail!, /^structure 0\.\d\d · 42 opcodes · cost 12k ops · tests 50% — gpt-4o via vscode-lm$/);
  });

  it('opens a diff of the current code against the chosen version, then offers to replace', async () => {
    const s = server();
    const { ctx } = makeContext(s, CALC_LINES);
    mock.state.quickPickAnswer = (items) => items[1]; // v3
    mock.state.messageAnswers = [undefined];
    await compareVersions(ctx);
    const diff = mock.state.executed.find((e) => e.command === 'vscode.diff')!;
    const [left, right, title] = diff.args as [Uri, Uri, string];
    assert.equal(left.scheme, SAMPLE_SCHEME);
    assert.equal(left.path, '/Calc.add (current).py');
    assert.equal(right.path, '/Calc.add (v3).py');
    assert.equal(title, 'Calc.add: current ↔ v3');
    assert.deepEqual(parseSampleUri(right as never), {
      target: { uri: URI, position: { line: 6, character: 8 }, qualifiedName: 'Calc.add' },
      version: 2,
    });
    // the current code is version 4 in the server's set
    assert.equal(parseSampleUri(left as never)!.version, 3);
    assert.equal(mock.state.messages.at(-1)!.text, 'Replace Calc.add with v3?');
    assert.equal(mock.state.appliedEdits.length, 0, 'nothing changes without the user choosing Replace');
  });

  it('replaces the function when the user chooses Replace after the diff', async () => {
    const s = server();
    const { ctx } = makeContext(s, CALC_LINES);
    mock.state.quickPickAnswer = (items) => items[1];
    mock.state.messageAnswers = ['Replace'];
    await compareVersions(ctx);
    assert.equal(mock.state.appliedEdits.length, 1);
    const edit = (mock.state.appliedEdits[0] as WorkspaceEdit).edits[0];
    assert.equal(edit.uri.toString(), URI);
    // the server's edit of the function's range, the user's docstring kept
    assert.deepEqual([edit.range.start.line, edit.range.start.character, edit.range.end.line, edit.range.end.character], [5, 4, 7, 20]);
    assert.equal(edit.newText, 'def add(a, b):\n        """The user\'s."""\n        return 2');
  });

  it('changes nothing when the pick is dismissed', async () => {
    const s = server();
    const { ctx } = makeContext(s, CALC_LINES);
    mock.state.quickPickAnswer = () => undefined;
    await compareVersions(ctx);
    assert.equal(mock.state.executed.length, 0);
    assert.equal(mock.state.appliedEdits.length, 0);
  });

  it('offers to regenerate when there are no other versions', async () => {
    const s = server({
      [ServerCommands.analyze]: { uri: URI, qualifiedName: 'Calc.add', range: { start: { line: 4, character: 4 }, end: { line: 8, character: 20 } }, stored: 0, report: null, message: 'no versions of `Calc.add` yet' },
    });
    const { ctx } = makeContext(s, CALC_LINES);
    mock.state.messageAnswers = ['Regenerate'];
    await compareVersions(ctx);
    assert.equal(mock.state.quickPicks.length, 0);
    assert.equal(mock.state.executed[0].command, Commands.regenerate);
  });

  it('serves the versions to the diff editor from the server', async () => {
    const s = server();
    const provider = new SampleContentProvider(async (ref) => {
      if (ref.version === 'current') {
        return 'current code';
      }
      const version = await s.api.call(ServerCommands.showVersion, functionArgument(ref.target, { index: ref.version }));
      return version.code;
    });
    const report = parseAnalyzeResult(fixture('analyze-add.json'))!;
    const docs = diffDocuments({ uri: URI, qualifiedName: 'Calc.add' }, report, report.versions[2]);
    assert.equal(await provider.provideTextDocumentContent(docs.right as never), V3);
    assert.deepEqual(s.callsOf(ServerCommands.showVersion)[0].args, [{ uri: URI, qualifiedName: 'Calc.add', index: 2 }]);
    assert.equal(await provider.provideTextDocumentContent(Uri.parse(`${SAMPLE_SCHEME}:/x.py?not-json`) as never), '');
  });
});

describe('replace', () => {
  beforeEach(() => {
    mock.reset();
    openEditor(URI, CALC_LINES, { line: 5, character: 8 });
  });

  it('moves a function’s text to column 0', () => {
    assert.equal(dedent('  a\n\n    b'), 'a\n\n  b');
    assert.equal(indentBefore('    '), '    ');
    assert.equal(atColumnZero('    ', 'def add(a, b):\n        total = 0\n\n        return total'), 'def add(a, b):\n    total = 0\n\n    return total');
    assert.equal(atColumnZero('x = 1; ', 'def f(): pass'), 'def f(): pass');
    assert.equal(indentBefore('x = 1; '), '');
  });

  it('replaces with the version passed by index without asking', async () => {
    const s = server();
    const { ctx, refreshes } = makeContext(s, CALC_LINES);
    await replaceWithVersion(ctx, undefined, 2);
    assert.equal(mock.state.quickPicks.length, 0);
    // the edit is the server's: its text and range, not the version's code laid out here
    const [edit] = (mock.state.appliedEdits[0] as WorkspaceEdit).edits;
    assert.equal(edit.newText, 'def add(a, b):\n        """The user\'s."""\n        return 2');
    assert.deepEqual([edit.range.start.line, edit.range.start.character, edit.range.end.line, edit.range.end.character], [5, 4, 7, 20]);
    assert.equal(refreshes(), 1);
  });

  it('asks which version, most typical first, when none is given', async () => {
    const s = server();
    const { ctx } = makeContext(s, CALC_LINES);
    mock.state.quickPickAnswer = (items) => items[0];
    await replaceWithVersion(ctx);
    assert.equal(s.callsOf(ServerCommands.showVersion)[0].args[0] && (s.callsOf(ServerCommands.showVersion)[0].args[0] as { index: number }).index, 0);
    assert.equal((mock.state.appliedEdits[0] as WorkspaceEdit).edits[0].newText, 'def add(a, b):\n        """The user\'s."""\n        return 0');
  });

  it('reports an edit the editor refused', async () => {
    const s = server();
    const { ctx } = makeContext(s, CALC_LINES);
    mock.state.applyEditResult = false;
    await replaceWithVersion(ctx, undefined, 1);
    assert.equal(mock.state.messages.at(-1)!.level, 'error');
  });
});

describe('clear', () => {
  beforeEach(() => {
    mock.reset();
    openEditor(URI, CALC_LINES, { line: 5, character: 8 });
  });

  it('clears after a modal confirmation', async () => {
    const s = server();
    const { ctx, refreshes } = makeContext(s, CALC_LINES);
    mock.state.messageAnswers = ['Clear'];
    await clearVersions(ctx);
    assert.equal(mock.state.messages[0].modal, true);
    assert.equal(mock.state.messages[0].text, 'Delete the 3 stored versions of Calc.add?');
    assert.deepEqual(s.callsOf(ServerCommands.deleteVersions)[0].args, [{ uri: URI, position: { line: 5, character: 8 }, qualifiedName: 'Calc.add' }]);
    assert.equal(mock.state.messages[1].text, 'codequorum: removed 3 versions of Calc.add.');
    assert.equal(refreshes(), 1);
  });

  it('keeps the versions when the user cancels', async () => {
    const s = server();
    const { ctx } = makeContext(s, CALC_LINES);
    mock.state.messageAnswers = [undefined];
    await clearVersions(ctx);
    assert.equal(s.callsOf(ServerCommands.deleteVersions).length, 0);
  });
});

describe('run versions', () => {
  beforeEach(() => {
    mock.reset();
    openEditor(URI, CALC_LINES, { line: 5, character: 8 });
  });

  it('asks the server to run the versions of the function at the cursor', async () => {
    const s = server({ [ServerCommands.runDynamic]: { started: true, token: 't' } });
    const { ctx } = makeContext(s, CALC_LINES);
    await runVersions(ctx);
    assert.deepEqual(s.callsOf(ServerCommands.runDynamic)[0].args, [{ uri: URI, position: { line: 5, character: 8 } }]);
    assert.equal(mock.state.messages.length, 0, 'the server reports progress and the result itself');
  });

  it('passes on why nothing started', async () => {
    const s = server({ [ServerCommands.runDynamic]: { started: false, message: 'already running' } });
    const { ctx } = makeContext(s, CALC_LINES);
    await runVersions(ctx);
    assert.equal(mock.state.messages[0].text, 'codequorum: already running');
  });
});

describe('import versions', () => {
  beforeEach(() => {
    mock.reset();
    openEditor(URI, CALC_LINES, { line: 5, character: 8 });
  });

  it('stores the versions of the file the user picks, for the function at the cursor: the extension reads it and sends its text', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cq-import-'));
    const file = path.join(dir, 'add.jsonl');
    const text = '{"code": "def add(a, b):\\n    return a + b\\n"}\n';
    fs.writeFileSync(file, text);
    const s = server({ [ServerCommands.importVersionFile]: { added: 4, total: 7, path: file } });
    const { ctx, refreshes } = makeContext(s, CALC_LINES);
    mock.state.openDialogAnswer = [Uri.file(file)];
    await importVersions(ctx);
    assert.deepEqual(s.callsOf(ServerCommands.importVersionFile)[0].args, [
      { uri: URI, position: { line: 5, character: 8 }, qualifiedName: 'Calc.add', path: file, content: text },
    ]);
    assert.equal(mock.state.messages[0].text, 'codequorum: imported 4 versions of Calc.add (7 stored).');
    assert.equal(refreshes(), 1);
  });

  it('reads only a regular file of at most 16 MB the user picks, and says why not', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cq-import-'));
    const big = path.join(dir, 'big.jsonl');
    fs.closeSync(fs.openSync(big, 'w'));
    fs.truncateSync(big, MAX_IMPORT_BYTES + 1);
    const fifo = path.join(dir, 'pipe');
    execFileSync('mkfifo', [fifo]);
    const cases: [string, string][] = [
      [big, `${big} is larger than 16 MB`],
      [dir, `${dir} is a folder, not a regular file`],
      [fifo, `${fifo} is a FIFO, not a regular file`],
      ['/dev/zero', '/dev/zero is a device, not a regular file'],
    ];
    for (const [file, said] of cases) {
      const started = Date.now();
      await assert.rejects(readPickedFile(file), { message: said });
      assert.ok(Date.now() - started < 1000, file);
    }
    const s = server({ [ServerCommands.importVersionFile]: { added: 1 } });
    const { ctx } = makeContext(s, CALC_LINES);
    mock.state.openDialogAnswer = [Uri.file(fifo)];
    await importVersions(ctx);
    assert.equal(s.callsOf(ServerCommands.importVersionFile).length, 0);
    assert.equal(mock.state.messages.at(-1)?.text, `codequorum: ${fifo} is a FIFO, not a regular file`);
  });

  it('imports nothing when the dialog is dismissed', async () => {
    const s = server({ [ServerCommands.importVersionFile]: { added: 1 } });
    const { ctx } = makeContext(s, CALC_LINES);
    mock.state.openDialogAnswer = undefined;
    await importVersions(ctx);
    assert.equal(mock.state.openDialogs.length, 1);
    assert.equal(s.callsOf(ServerCommands.importVersionFile).length, 0);
  });
});
