/** The extension's part of the watch and of the server's jobs, through activation. */
import * as assert from 'assert/strict';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Commands, ServerCommands } from '../src/constants';
import { activate, deactivate } from '../src/extension';
import { fixture } from './fakes';
import { LanguageClient } from './mock/languageclient';
import { fire, LanguageModelChatMessage, mock, Uri } from './mock/vscode';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(check: () => boolean, what: string, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) {
      throw new Error(`timed out waiting for ${what}`);
    }
    await sleep(10);
  }
}

describe('the watch and the server\'s jobs in the extension', () => {
  let dir: string;

  beforeEach(() => {
    mock.reset();
    LanguageClient.instances = [];
    LanguageClient.failStart = undefined;
    LanguageClient.handler = () => null;
    mock.state.config['codequorum.server.command'] = ['srv'];
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cq-watch-'));
  });

  afterEach(async () => {
    await deactivate();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function started(): Promise<LanguageClient> {
    const context = { subscriptions: [] as { dispose(): unknown }[], globalStorageUri: Uri.file(path.join(dir, 's')), extensionPath: dir };
    await activate(context as never);
    await until(() => LanguageClient.instances.length === 1 && LanguageClient.instances[0].state === 2, 'the client');
    await sleep(20);
    return LanguageClient.instances[0];
  }

  it('tells the server which changes were an undo or a redo, and nothing else', async () => {
    const client = await started();
    const document = { uri: Uri.parse('file:///w/app.py'), version: 4, languageId: 'python' };
    fire('onDidChangeTextDocument', { document, contentChanges: [{}], reason: undefined });
    fire('onDidChangeTextDocument', { document: { ...document, languageId: 'plaintext' }, contentChanges: [{}], reason: 1 });
    fire('onDidChangeTextDocument', { document: { ...document, version: 5 }, contentChanges: [{}], reason: 1 });
    assert.deepEqual(client.notifications, [{ method: 'codequorum/editReason', params: { uri: 'file:///w/app.py', version: 5, reason: 'undo' } }]);
    const experimental: Record<string, unknown> = {};
    const capabilities = { experimental } as { experimental?: Record<string, unknown> };
    (client.features[0] as { fillClientCapabilities(c: unknown): void }).fillClientCapabilities(capabilities);
    assert.equal(capabilities.experimental!.codequorumRelay, true);
  });

  it('shows the server\'s progress in its own status item, and stops the job on a click', async () => {
    const client = await started();
    const create = client.requestHandlers.get('window/workDoneProgress/create')!;
    assert.equal(create({ token: 'codequorum/1/ab' }), null);
    const progress = client.progressHandlers.get('codequorum/1/ab')!;
    progress({ kind: 'begin', title: 'codequorum: checking parse_duration', cancellable: true, percentage: 0 });
    const item = mock.state.statusItems.find((i) => i.text.includes('checking parse_duration'))!;
    assert.ok(item.visible);
    assert.equal(item.command, Commands.stopJob);
    await mock.state.registeredCommands.get(Commands.stopJob)!();
    assert.deepEqual(client.notifications.at(-1), { method: 'window/workDoneProgress/cancel', params: { token: 'codequorum/1/ab' } });
    progress({ kind: 'end', message: 'cancelled' });
    assert.equal(item.visible, false);
    assert.equal(client.progressHandlers.has('codequorum/1/ab'), false);
  });

  it('writes the versions the watch asks for with a VS Code language model', async () => {
    const added: unknown[] = [];
    LanguageClient.handler = (_method, params) => {
      const { command, arguments: args } = params as { command: string; arguments: unknown[] };
      if (command === ServerCommands.addVersions) {
        added.push(args[0]);
        return { added: 2, total: 3 };
      }
      return command === ServerCommands.analyze ? fixture('analyze-add.json') : null;
    };
    const sent: unknown[][] = [];
    mock.state.chatModels = [
      {
        id: 'lm-1',
        name: 'Local',
        vendor: 'copilot',
        family: 'f',
        async sendRequest(messages: unknown[]) {
          sent.push(messages);
          async function* text() {
            yield '```python\ndef add(a, b):\n    return a + b\n```';
          }
          return { text: text() };
        },
      },
    ];
    const client = await started();
    client.notificationHandlers.get('codequorum/relay')!({
      uri: 'file:///work/demo/calc.py',
      qualifiedName: 'Calc.add',
      n: 2,
      messages: [{ role: 'user', content: 'write add again' }],
    });
    await until(() => added.length === 1, 'the relayed versions');
    assert.equal(sent.length, 2);
    assert.equal((sent[0][0] as LanguageModelChatMessage).content, 'write add again');
    const arg = added[0] as { uri: string; qualifiedName: string; versions: { provider: string }[] };
    assert.equal(arg.qualifiedName, 'Calc.add');
    assert.deepEqual(arg.versions.map((s) => s.provider), ['vscode-lm', 'vscode-lm']);
  });
});
