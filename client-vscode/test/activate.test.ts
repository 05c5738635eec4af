import * as assert from 'assert/strict';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Commands, LANGUAGES, SAMPLE_SCHEME, ServerCommands } from '../src/constants';
import { sampleUri } from '../src/sampleDocuments';
import { activate, deactivate } from '../src/extension';
import { CALC_LINES, fixture, openEditor } from './fakes';
import { LanguageClient } from './mock/languageclient';
import { ConfigurationTarget, env, fire, mock, Uri } from './mock/vscode';

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

describe('activation', () => {
  let dir: string;
  const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
    contributes: { commands: { command: string }[]; menus: Record<string, { when?: string }[]> };
    activationEvents: string[];
  };

  it('activates for, and offers its menus in, exactly the languages the server knows', () => {
    assert.deepEqual(pkg.activationEvents, LANGUAGES.map((l) => `onLanguage:${l}`));
    const when = pkg.contributes.menus['editor/context'][0].when!;
    const listed = /\^\(([^)]+)\)\$/.exec(when)![1].split('|');
    assert.deepEqual(listed, [...LANGUAGES]);
  });

  beforeEach(() => {
    mock.reset();
    LanguageClient.instances = [];
    LanguageClient.failStart = undefined;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cq-activate-'));
  });

  afterEach(async () => {
    await deactivate();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  function context() {
    return { subscriptions: [] as { dispose(): unknown }[], globalStorageUri: Uri.file(path.join(dir, 'storage')), extensionPath: dir };
  }

  it('registers exactly the contributed commands and starts the configured server command', async () => {
    mock.state.config['codequorum.server.command'] = ['/opt/cq/bin/codequorum-lsp', '--stdio'];
    await activate(context() as never);
    await until(() => LanguageClient.instances.length === 1, 'the client');
    const contributed = pkg.contributes.commands.map((c) => c.command).sort();
    assert.deepEqual([...mock.state.registeredCommands.keys()].sort(), contributed);
    const client = LanguageClient.instances[0];
    assert.equal(client.id, 'codequorum');
    assert.deepEqual(client.serverOptions.command, '/opt/cq/bin/codequorum-lsp');
    assert.deepEqual(client.serverOptions.args, ['--stdio']);
    assert.deepEqual(client.clientOptions.synchronize, { configurationSection: 'codequorum' });
    assert.ok((client.clientOptions.documentSelector as { language: string }[]).some((s) => s.language === 'python'));
  });

  it('serves the code lenses\' Compare, Regenerate and summary commands with its own views', async () => {
    mock.state.config['codequorum.server.command'] = ['srv'];
    await activate(context() as never);
    await until(() => LanguageClient.instances.length === 1, 'the client');
    const middleware = LanguageClient.instances[0].clientOptions.middleware!.executeCommand!;
    const passed: string[] = [];
    const next = (c: string) => {
      passed.push(c);
      return 'from server';
    };
    const arg = { uri: 'file:///a.py', qualifiedName: 'f' };
    await middleware(ServerCommands.compare, [arg], next);
    await middleware(ServerCommands.regenerate, [arg], next);
    await middleware(ServerCommands.analyze, [arg], next);
    assert.equal(await middleware(ServerCommands.showVersion, [arg], next), 'from server');
    assert.deepEqual(passed, [ServerCommands.showVersion]);
    assert.deepEqual(
      mock.state.executed.map((e) => [e.command, e.args]),
      [
        [Commands.compare, [arg]],
        [Commands.regenerate, [arg]],
        [Commands.showReport, [arg]],
      ],
    );
  });

  it('shows the stability of the function under the cursor in the status bar', async () => {
    mock.state.config['codequorum.server.command'] = ['srv'];
    const asked: unknown[] = [];
    LanguageClient.handler = (_method, params) => {
      asked.push(params);
      return fixture('analyze-add.json');
    };
    await activate(context() as never);
    await until(() => LanguageClient.instances.length === 1, 'the client');
    openEditor('file:///work/demo/calc.py', CALC_LINES, { line: 6, character: 9 });
    fire('onDidChangeTextEditorSelection', { textEditor: mock.state.activeTextEditor });
    const item = mock.state.statusItems[0];
    await until(() => item.visible, 'the status item', 2000);
    assert.equal(item.text, '$(warning) 0.80 unstable');
    assert.equal(item.command, Commands.compare);
    assert.deepEqual(asked.at(-1), {
      command: ServerCommands.analyze,
      arguments: [{ uri: 'file:///work/demo/calc.py', position: { line: 6, character: 9 } }],
    });
  });

  it('asks about the function under the cursor as soon as the server is up, after a restart too', async () => {
    mock.state.config['codequorum.server.command'] = ['srv'];
    LanguageClient.handler = () => fixture('analyze-add.json');
    openEditor('file:///work/demo/calc.py', CALC_LINES, { line: 6, character: 9 });
    await activate(context() as never);
    const item = mock.state.statusItems[0];
    await until(() => item.visible && item.text !== '$(circle-slash) codequorum', 'the figure', 2000);
    assert.equal(item.text, '$(warning) 0.80 unstable');
    // after a restart the figure comes back without the cursor moving
    fire('onDidChangeConfiguration', { affectsConfiguration: (key: string) => key === 'codequorum.interpreter' });
    await until(() => LanguageClient.instances.length === 2, 'the second client');
    await until(() => item.text === '$(warning) 0.80 unstable', 'the figure again', 2000);
    await sleep(50);
    assert.equal(item.text, '$(warning) 0.80 unstable');
    assert.equal(item.command, Commands.compare);
  });

  it('fills the diff editor\'s documents: stored versions from the server, the current code from the editor', async () => {
    mock.state.config['codequorum.server.command'] = ['srv'];
    const asked: unknown[] = [];
    LanguageClient.handler = (_method, params) => {
      const { command, arguments: args } = params as { command: string; arguments: { index?: number }[] };
      asked.push(command);
      if (command !== ServerCommands.showVersion) {
        return fixture('analyze-add.json');
      }
      const index = args[0].index!;
      const code = `version ${index + 1}\n`;
      return {
        uri: 'file:///work/demo/calc.py', qualifiedName: 'Calc.add', index, version: index + 1, label: `v${index + 1}`,
        origin: 'relayed', provider: null, model: null, language: 'python', code, indented: code,
        range: { start: { line: 4, character: 4 }, end: { line: 8, character: 20 } }, replacement: code,
      };
    };
    mock.state.documents.set('file:///work/demo/calc.py', CALC_LINES.join('\n'));
    await activate(context() as never);
    await until(() => LanguageClient.instances.length === 1, 'the client');
    const provider = mock.state.contentProviders.get(SAMPLE_SCHEME) as { provideTextDocumentContent(u: unknown): Promise<string> };
    const target = { uri: 'file:///work/demo/calc.py', qualifiedName: 'Calc.add' };
    assert.equal(await provider.provideTextDocumentContent(sampleUri({ target, version: 1 }, 'v2', 'python')), 'version 2\n');
    assert.equal(
      await provider.provideTextDocumentContent(sampleUri({ target, version: 'current' }, 'current', 'python')),
      'def add(a, b):\n    total = 0\n    for v in (a, b):\n        total += v\n    return total',
    );
    assert.deepEqual(asked, [ServerCommands.showVersion, ServerCommands.analyze]);
  });

  it('restarts the server when a setting that needs it changes, not for others', async () => {
    mock.state.config['codequorum.server.command'] = ['srv-1'];
    await activate(context() as never);
    await until(() => LanguageClient.instances.length === 1, 'the client');
    fire('onDidChangeConfiguration', { affectsConfiguration: (key: string) => key === 'codequorum.hover.enable' });
    await sleep(30);
    assert.equal(LanguageClient.instances.length, 1);
    mock.state.config['codequorum.server.command'] = ['srv-2'];
    fire('onDidChangeConfiguration', { affectsConfiguration: (key: string) => key === 'codequorum.server.command' });
    await until(() => LanguageClient.instances.length === 2, 'the second client');
    assert.equal(LanguageClient.instances[0].stopped, true);
    assert.equal(LanguageClient.instances[1].serverOptions.command, 'srv-2');
  });

  it('tells the server the workspace is not trusted, and starts it again once it is', async () => {
    mock.state.config['codequorum.server.command'] = ['srv'];
    mock.state.trusted = false;
    await activate(context() as never);
    await until(() => LanguageClient.instances.length === 1, 'the client');
    const options = (c: LanguageClient) => (c.clientOptions as { initializationOptions?: { trusted?: boolean } }).initializationOptions;
    assert.equal(options(LanguageClient.instances[0])?.trusted, false);
    mock.state.trusted = true;
    fire('onDidGrantWorkspaceTrust', undefined);
    await until(() => LanguageClient.instances.length === 2, 'the restarted client');
    assert.equal(LanguageClient.instances[0].stopped, true);
    assert.equal(options(LanguageClient.instances[1])?.trusted, true);
  });

  it('starts nothing and says why when codequorum is missing and no wheel is shipped', async () => {
    mock.state.config['codequorum.interpreter'] = path.join(dir, 'no-python');
    await activate(context() as never);
    await until(() => mock.state.messages.length > 0, 'a message');
    assert.equal(LanguageClient.instances.length, 0);
    assert.equal(mock.state.messages[0].level, 'error');
    assert.match(mock.state.messages[0].text, /codequorum is not installed for .*no-python, and this extension carries no server wheel/);
  });

  it('offers the private environment when a wheel is shipped, and starts nothing when declined', async () => {
    mock.state.config['codequorum.interpreter'] = path.join(dir, 'no-python');
    fs.mkdirSync(path.join(dir, 'server-wheel'));
    fs.writeFileSync(path.join(dir, 'server-wheel', 'codequorum-0.1.0-py3-none-any.whl'), '');
    mock.state.messageAnswers = ['Not Now'];
    await activate(context() as never);
    await until(() => mock.state.messages.length > 0, 'the offer');
    await sleep(20);
    assert.deepEqual(mock.state.messages[0].items, ['Create Environment', 'Choose Interpreter', 'Not Now']);
    assert.equal(LanguageClient.instances.length, 0);
    assert.ok(!fs.existsSync(path.join(dir, 'storage')), 'nothing is created without consent');
  });

  describe('Choose Interpreter', () => {
    const remoteBefore = env.remoteName;
    afterEach(() => {
      env.remoteName = remoteBefore;
    });

    function offerWithChoose(): void {
      mock.state.config['codequorum.interpreter'] = path.join(dir, 'no-python');
      fs.mkdirSync(path.join(dir, 'server-wheel'));
      fs.writeFileSync(path.join(dir, 'server-wheel', 'codequorum-0.1.0-py3-none-any.whl'), '');
      mock.state.messageAnswers = ['Choose Interpreter'];
    }

    it('writes the picked file as a User setting (which VS Code keeps in the Remote settings of a remote window)', async () => {
      env.remoteName = 'ssh-remote';
      offerWithChoose();
      const picked = path.join(dir, 'venv', 'bin', 'python');
      mock.state.openDialogAnswer = [Uri.file(picked)];
      await activate(context() as never);
      await until(() => mock.state.configUpdates.length > 0, 'the setting written');
      assert.deepEqual(mock.state.configUpdates, [{ key: 'codequorum.interpreter', value: picked, target: ConfigurationTarget.Global }]);
      assert.equal(mock.state.openDialogs.length, 1);
      assert.deepEqual(mock.state.executed, []);
      assert.match(mock.state.messages[0].text, /answer Choose Interpreter, or set codequorum\.interpreter in the Remote settings \("Preferences: Open Remote Settings \(JSON\)"/);
      assert.match(mock.state.messages[0].text, /in this remote window \(ssh-remote\) a value in User settings is ignored\.$/);
    });

    it('without a file, shows the setting in the Remote tab of the Settings editor in a remote window', async () => {
      env.remoteName = 'ssh-remote';
      offerWithChoose();
      await activate(context() as never);
      await until(() => mock.state.executed.length > 0, 'the settings opened');
      assert.deepEqual(mock.state.executed, [{ command: 'workbench.action.openRemoteSettings', args: [{ query: 'codequorum.interpreter' }] }]);
      assert.deepEqual(mock.state.configUpdates, []);
    });

    it('without a file, shows the setting in the Settings editor in a local window', async () => {
      offerWithChoose();
      await activate(context() as never);
      await until(() => mock.state.executed.length > 0, 'the settings opened');
      assert.deepEqual(mock.state.executed, [{ command: 'workbench.action.openSettings', args: ['codequorum.interpreter'] }]);
      assert.match(mock.state.messages[0].text, /answer Choose Interpreter, or set codequorum\.interpreter in your User settings\.$/);
    });
  });
});
