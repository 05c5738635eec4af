/**
 * The extension's server API against the real language server over stdio: argument shapes
 * and answers as the server really has them. Needs the repository's Python environment
 * (scripts/test.sh makes it); skipped, and shown as pending, without it.
 */
import * as assert from 'assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import {
  CodeLensRequest,
  createMessageConnection,
  DidOpenTextDocumentNotification,
  ExecuteCommandRequest,
  ExitNotification,
  InitializedNotification,
  InitializeRequest,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
  type MessageConnection,
} from 'vscode-languageserver-protocol/node';
import { Commands, LENS_COMMANDS, ServerCommands } from '../src/constants';
import { alternatives } from '../src/report';
import { functionArgument, ServerApi } from '../src/serverApi';
import { serverSettings } from '../src/serverSettings';

/** Every contributed setting at its default, nested as VS Code hands the section over. */
function contributedDefaults(): Record<string, unknown> {
  const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
    contributes: { configuration: { properties: Record<string, { default: unknown }> } };
  };
  const out: Record<string, unknown> = {};
  for (const [name, prop] of Object.entries(pkg.contributes.configuration.properties)) {
    const parts = name.replace(/^codequorum\./, '').split('.');
    let node = out;
    for (const part of parts.slice(0, -1)) {
      node = (node[part] ??= {}) as Record<string, unknown>;
    }
    node[parts[parts.length - 1]] = prop.default;
  }
  return out;
}

const REPO = path.join(__dirname, '..', '..', '..');
const PYTHON = process.env.CODEQUORUM_PYTHON ?? path.join(REPO, '.venv', 'bin', 'python');

const SOURCE = [
  'import math',
  '',
  '',
  'class Calc:',
  '    def add(self, a, b):',
  '        total = 0',
  '        for v in (a, b):',
  '            total += v',
  '        return total',
  '',
].join('\n');

describe('server API against the real language server', function () {
  this.timeout(60_000);
  let child: ChildProcess | undefined;
  let connection: MessageConnection | undefined;
  let api: ServerApi;
  let dir: string;
  let uri: string;
  const messages: string[] = [];
  let serverCommands: string[] = [];

  before(async function () {
    if (!fs.existsSync(PYTHON) || spawnSync(PYTHON, ['-c', 'import codequorum.lsp.server']).status !== 0) {
      this.skip();
    }
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cq-e2e-'));
    const file = path.join(dir, 'calc.py');
    fs.writeFileSync(file, SOURCE);
    uri = `file://${file}`;
    // Approvals go to a configuration folder of the test's own, never the user's.
    const env = { ...process.env, XDG_CONFIG_HOME: path.join(dir, 'user-config') };
    child = spawn(PYTHON, ['-m', 'codequorum', 'lsp'], { cwd: dir, env, stdio: ['pipe', 'pipe', 'pipe'] });
    child.stderr!.resume();
    connection = createMessageConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
    // Answer whatever the server asks of the client (configuration, progress, registrations).
    connection.onRequest(() => null);
    connection.onNotification((method: string, params: unknown) => {
      if (method === 'window/showMessage' || method === 'window/logMessage') {
        messages.push(String((params as { message?: unknown }).message));
      }
    });
    connection.listen();
    const init = await connection.sendRequest(InitializeRequest.type, {
      processId: process.pid,
      rootUri: `file://${dir}`,
      capabilities: {},
      workspaceFolders: [{ uri: `file://${dir}`, name: 'e2e' }],
      initializationOptions: { ...(serverSettings(contributedDefaults()) as object), dynamic: { enable: false, auto: false, timeout: 10 } },
    });
    serverCommands = init.capabilities.executeCommandProvider?.commands ?? [];
    await connection.sendNotification(InitializedNotification.type, {});
    await connection.sendNotification(DidOpenTextDocumentNotification.type, {
      textDocument: { uri, languageId: 'python', version: 1, text: SOURCE },
    });
    const conn = connection;
    api = new ServerApi((command, args) => conn.sendRequest(ExecuteCommandRequest.type, { command, arguments: args }));
  });

  after(async () => {
    if (connection) {
      await connection.sendRequest(ShutdownRequest.type).catch(() => undefined);
      await connection.sendNotification(ExitNotification.type).catch(() => undefined);
      connection.dispose();
    }
    if (child && child.exitCode === null) {
      await new Promise((resolve) => {
        const timer = setTimeout(() => {
          child!.kill();
          resolve(undefined);
        }, 3000);
        child!.on('exit', () => {
          clearTimeout(timer);
          resolve(undefined);
        });
      });
    }
    if (dir) {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('offers the commands the extension calls, none of them named like the extension\'s own', () => {
    for (const command of Object.values(ServerCommands)) {
      assert.ok(serverCommands.includes(command), `the server lacks ${command}`);
    }
    // The language client registers a VS Code command per server command: a clash would fail its start.
    const own = new Set<string>(Object.values(Commands));
    assert.deepEqual(serverCommands.filter((c) => own.has(c)), []);
  });

  it('accepts every contributed setting the extension sends it, without a warning', async () => {
    await api.analyze({ uri, position: { line: 6, character: 10 } });
    assert.deepEqual(messages.filter((m) => /setting/.test(m)), []);
  });

  it('finds the function at the cursor, with its range, before there are versions', async () => {
    const report = await api.analyze({ uri, position: { line: 6, character: 10 } });
    assert.ok(report);
    assert.equal(report.qualifiedName, 'Calc.add');
    assert.deepEqual(report.range, { start: { line: 4, character: 4 }, end: { line: 8, character: 20 } });
    assert.equal(report.stability, undefined);
    assert.equal(report.versions.length, 0);
  });

  it('answers undefined outside any function', async () => {
    assert.equal(await api.analyze({ uri, position: { line: 0, character: 3 } }), undefined);
  });

  it('stores relayed versions, then reports on them, shows them and clears them', async () => {
    const target = { uri, position: { line: 6, character: 10 }, qualifiedName: 'Calc.add' };
    const { added } = await api.call(ServerCommands.addVersions, functionArgument(target, { versions: [
      { code: 'def add(self, a, b):\n    return a + b\n', provider: 'vscode-lm', model: 'test-model' },
      { code: 'def add(self, a, b):\n    return b + a\n', provider: 'vscode-lm', model: 'test-model' },
      { code: 'def add(self, x, y):\n    s = x + y\n    return s\n', provider: 'vscode-lm', model: 'test-model' },
    ] }));
    assert.equal(added, 3);

    const report = await api.analyze(target, { matrices: true });
    assert.ok(report);
    assert.equal(report.versions.length, 4, 'three stored versions and the current code');
    assert.equal(report.versions.filter((v) => v.isCurrent).length, 1);
    assert.ok(report.stability !== undefined && report.stability > 0 && report.stability <= 1);
    assert.equal(typeof report.stable, 'boolean');
    assert.deepEqual(report.versions[0].model, 'test-model');
    assert.equal(report.versions[0].provider, 'vscode-lm');
    const jsd = report.matrices.find((m) => m.name === 'jsd_struct');
    assert.ok(jsd, 'the structural matrix comes with {matrices: true}');
    assert.equal(jsd.values.length, 4);
    const order = alternatives(report);
    assert.equal(order.length, 3);
    for (let i = 1; i < order.length; i++) {
      assert.ok(order[i - 1].typicality! >= order[i].typicality!);
    }

    // every command the server's code lenses run is one the extension serves with a view
    const lenses = (await connection!.sendRequest(CodeLensRequest.type, { textDocument: { uri } })) ?? [];
    const lensCommands = lenses.map((l) => l.command?.command).filter((c): c is string => c !== undefined);
    assert.ok(lensCommands.length >= 2);
    assert.deepEqual(lensCommands.filter((c) => !(c in LENS_COMMANDS)), []);

    const { code } = await api.call(ServerCommands.showVersion, functionArgument(target, { index: order[0].index }));
    assert.match(code, /^def add\(self, /);

    const { removed } = await api.call(ServerCommands.deleteVersions, functionArgument(target));
    assert.equal(removed, 3);
    const after = await api.analyze(target);
    assert.equal(after!.versions.length, 0);
  });

  it('imports versions from a JSON Lines file', async () => {
    const file = path.join(dir, 'versions.jsonl');
    fs.writeFileSync(
      file,
      ['def add(self, a, b):\n    return a + b\n', 'def add(self, a, b):\n    return sum((a, b))\n']
        .map((code) => JSON.stringify({ code, model: 'imported-model' }))
        .join('\n'),
    );
    const target = { uri, qualifiedName: 'Calc.add' };
    const stored = await api.call(ServerCommands.importVersionFile, functionArgument(target, { path: file }));
    assert.deepEqual([stored.added, stored.total], [2, 2]);
    assert.equal((await api.call(ServerCommands.deleteVersions, functionArgument(target))).removed, 2);
  });

  it('hands the prompt to the client when provider.kind is "client"', async () => {
    await connection!.sendNotification('workspace/didChangeConfiguration', { settings: { codequorum: { provider: { kind: 'client', samples: 3 } } } });
    const answer = await api.regenerate({ uri, position: { line: 6, character: 10 } }, undefined);
    assert.equal(answer.status, 'relay');
    assert.equal(answer.count, 3);
    assert.ok(answer.messages && answer.messages.length >= 1);
    assert.ok(answer.messages.some((m) => m.content.includes('add')));
    assert.equal(ServerCommands.regenerate, 'codequorum.regenerate');
  });
});
