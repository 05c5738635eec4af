import * as assert from 'assert/strict';
import { regenerateWithLanguageModel, regenerateWithServer } from '../src/commands/regenerate';
import { Commands, ServerCommands } from '../src/constants';
import { LM_PROVIDER } from '../src/lmSampler';
import { CALC_LINES, FakeServer, fixture, makeContext, openEditor } from './fakes';
import { CancellationError, LanguageModelChatMessage, LanguageModelError, mock } from './mock/vscode';

const URI = 'file:///work/demo/calc.py';

/** A chat model whose answers stream in fragments; it records what it was sent. */
class FakeModel {
  readonly requests: { messages: unknown[]; options: unknown }[] = [];
  constructor(
    public id: string,
    private readonly answers: (string | Error)[],
    public name = 'Fake GPT',
    public vendor = 'copilot',
    public family = 'gpt-4o',
  ) {}
  async sendRequest(messages: unknown[], options: unknown, token: { isCancellationRequested: boolean }) {
    this.requests.push({ messages, options });
    const answer = this.answers[(this.requests.length - 1) % this.answers.length];
    if (answer instanceof Error) {
      throw answer;
    }
    if (token.isCancellationRequested) {
      throw new CancellationError();
    }
    const full = answer;
    async function* text() {
      // three fragments, cut in the middle of the fence
      const cut1 = Math.floor(full.length / 3);
      const cut2 = Math.floor((2 * full.length) / 3);
      yield full.slice(0, cut1);
      yield full.slice(cut1, cut2);
      yield full.slice(cut2);
    }
    return { text: text() };
  }
}

const ANSWER = (body: string) => `Sure, here it is:\n\n\`\`\`python\ndef add(a, b):\n    ${body}\n\`\`\`\nThis keeps the signature.`;

function serverWith(extra: Record<string, unknown> = {}) {
  return new FakeServer({
    [ServerCommands.analyze]: fixture('analyze-add.json'),
    [ServerCommands.addVersions]: (args: unknown[]) => ({ added: (args[0] as { versions: unknown[] }).versions.length, total: 6 }),
    ...extra,
  });
}

describe('regenerate with a VS Code language model', () => {
  beforeEach(() => {
    mock.reset();
    openEditor(URI, CALC_LINES, { line: 6, character: 10 });
  });

  it('sends N requests, takes the code from the fenced blocks and relays it with addVersions', async () => {
    const server = serverWith();
    const { ctx, refreshes } = makeContext(server, CALC_LINES, { 'provider.versions': 3 });
    const model = new FakeModel('copilot-gpt-4o', [ANSWER('return a + b'), ANSWER('return sum((a, b))'), ANSWER('return b + a')]);
    mock.state.chatModels = [model];

    await regenerateWithLanguageModel(ctx);

    assert.deepEqual(mock.state.selectors, [{ vendor: 'copilot' }]);
    assert.equal(model.requests.length, 3);
    const first = model.requests[0].messages[0] as LanguageModelChatMessage;
    assert.ok(first instanceof LanguageModelChatMessage);
    // the prompt carries the function as it stands in the editor
    assert.match(first.content, /def add\(a, b\):\n        total = 0\n        for v in \(a, b\):/);
    assert.match(first.content, /`add`/);

    const adds = server.callsOf(ServerCommands.addVersions);
    assert.equal(adds.length, 1);
    assert.deepEqual(adds[0].args, [
      {
        uri: URI,
        position: { line: 6, character: 10 },
        qualifiedName: 'Calc.add',
        versions: [
          { code: 'def add(a, b):\n    return a + b\n', provider: LM_PROVIDER, model: 'copilot-gpt-4o' },
          { code: 'def add(a, b):\n    return sum((a, b))\n', provider: LM_PROVIDER, model: 'copilot-gpt-4o' },
          { code: 'def add(a, b):\n    return b + a\n', provider: LM_PROVIDER, model: 'copilot-gpt-4o' },
        ],
      },
    ]);
    assert.deepEqual(mock.state.progressTitles, ['codequorum: 3 versions of Calc.add from Fake GPT']);
    assert.deepEqual(
      mock.state.progressReports.map((r) => r.message),
      ['request 1 of 3', 'request 2 of 3', 'request 3 of 3'],
    );
    assert.equal(refreshes(), 1);
    assert.equal(mock.state.messages.at(-1)?.text, 'codequorum: 3 new versions of Calc.add.');
  });

  it('still reads the older spelling provider.samples, over provider.versions', async () => {
    const server = serverWith();
    const { ctx } = makeContext(server, CALC_LINES, { 'provider.samples': 2, 'provider.versions': 5 });
    const model = new FakeModel('m', [ANSWER('return a + b'), ANSWER('return b + a'), ANSWER('return a - b')]);
    mock.state.chatModels = [model];
    await regenerateWithLanguageModel(ctx);
    assert.equal(model.requests.length, 2);
  });

  it('opens the comparison when the user clicks Compare on the result', async () => {
    const server = serverWith();
    const { ctx } = makeContext(server, CALC_LINES, { 'provider.versions': 1 });
    mock.state.chatModels = [new FakeModel('m', [ANSWER('return a + b')])];
    mock.state.messageAnswers = ['Compare'];
    await regenerateWithLanguageModel(ctx);
    assert.deepEqual(mock.state.executed.map((e) => e.command), [Commands.compare]);
    assert.deepEqual(mock.state.executed[0].args, [{ uri: URI, position: { line: 6, character: 10 }, qualifiedName: 'Calc.add' }]);
  });

  it('stops at cancellation and relays only the versions already complete', async () => {
    const server = serverWith();
    const { ctx } = makeContext(server, CALC_LINES, { 'provider.versions': 5 });
    const model = new FakeModel('m', [ANSWER('return a + b'), ANSWER('return b + a')]);
    mock.state.chatModels = [model];
    // progress is reported before each request: the 3rd report cancels, so request 3 never goes out
    mock.state.cancelAfterReports = 3;
    await regenerateWithLanguageModel(ctx);
    assert.equal(model.requests.length, 2);
    const adds = server.callsOf(ServerCommands.addVersions);
    assert.equal(adds.length, 1);
    assert.deepEqual(
      (adds[0].args[0] as { versions: { code: string }[] }).versions.map((s) => s.code),
      ['def add(a, b):\n    return a + b\n', 'def add(a, b):\n    return b + a\n'],
    );
  });

  it('relays nothing when cancelled before any answer', async () => {
    const server = serverWith();
    const { ctx } = makeContext(server, CALC_LINES, { 'provider.versions': 4 });
    const model = new FakeModel('m', [ANSWER('return a + b')]);
    mock.state.chatModels = [model];
    mock.state.cancelAfterReports = 1;
    await regenerateWithLanguageModel(ctx);
    assert.equal(model.requests.length, 0);
    assert.equal(server.callsOf(ServerCommands.addVersions).length, 0);
    assert.equal(mock.state.messages.length, 0);
  });

  it('stops when the user refuses the model access, and says why', async () => {
    const server = serverWith();
    const { ctx, logged } = makeContext(server, CALC_LINES, { 'provider.versions': 3 });
    const model = new FakeModel('m', [LanguageModelError.NoPermissions('the user declined')]);
    mock.state.chatModels = [model];
    await regenerateWithLanguageModel(ctx);
    assert.equal(model.requests.length, 1);
    assert.equal(server.callsOf(ServerCommands.addVersions).length, 0);
    assert.equal(mock.state.messages[0].level, 'warning');
    assert.match(mock.state.messages[0].text, /request 1: the user declined/);
    assert.deepEqual(logged, ['language model: request 1: the user declined']);
  });

  it('skips answers without code and keeps going', async () => {
    const server = serverWith();
    const { ctx, logged } = makeContext(server, CALC_LINES, { 'provider.versions': 2 });
    mock.state.chatModels = [new FakeModel('m', ['```python\n```', ANSWER('return a + b')])];
    await regenerateWithLanguageModel(ctx);
    const adds = server.callsOf(ServerCommands.addVersions);
    assert.equal((adds[0].args[0] as { versions: unknown[] }).versions.length, 1);
    assert.deepEqual(logged, ['language model: request 1: the answer held no code']);
  });

  it('lets the user pick among several models, and uses the family setting', async () => {
    const server = serverWith();
    const { ctx } = makeContext(server, CALC_LINES, { 'provider.versions': 1, 'languageModel.family': 'gpt-4o' });
    const a = new FakeModel('a', [ANSWER('return a + b')], 'Model A');
    const b = new FakeModel('b', [ANSWER('return b + a')], 'Model B');
    mock.state.chatModels = [a, b];
    mock.state.quickPickAnswer = (items) => items[1];
    await regenerateWithLanguageModel(ctx);
    assert.deepEqual(mock.state.selectors, [{ vendor: 'copilot', family: 'gpt-4o' }]);
    assert.deepEqual((mock.state.quickPicks[0].items as { label: string }[]).map((i) => i.label), ['Model A', 'Model B']);
    assert.equal(a.requests.length, 0);
    assert.equal(b.requests.length, 1);
  });

  it('says so when no model is available, without sending anything', async () => {
    const server = serverWith();
    const { ctx } = makeContext(server, CALC_LINES);
    mock.state.chatModels = [];
    await regenerateWithLanguageModel(ctx);
    assert.equal(server.callsOf(ServerCommands.addVersions).length, 0);
    assert.match(mock.state.messages[0].text, /no VS Code language model is available from "copilot"/);
  });

  it('asks for a function when the cursor is outside any', async () => {
    const server = new FakeServer({ [ServerCommands.analyze]: new Error("codequorum.analyze: no function 'line 1' in file:///work/demo/calc.py") });
    const { ctx } = makeContext(server, CALC_LINES);
    mock.state.chatModels = [new FakeModel('m', [ANSWER('return 1')])];
    await regenerateWithLanguageModel(ctx);
    assert.match(mock.state.messages[0].text, /place the cursor inside a function/);
    assert.deepEqual(mock.state.selectors, []);
  });
});

describe('regenerate with the server provider', () => {
  beforeEach(() => {
    mock.reset();
    openEditor(URI, CALC_LINES, { line: 5, character: 2 });
  });

  it('asks the server to regenerate the function at the cursor', async () => {
    const server = serverWith({
      [ServerCommands.regenerate]: { status: 'ok', stored: 5, accepted: 5, message: '5 of 5 versions' },
    });
    const { ctx, refreshes } = makeContext(server, CALC_LINES);
    await regenerateWithServer(ctx);
    assert.deepEqual(server.calls.map((c) => c.command), [ServerCommands.regenerate]);
    assert.deepEqual(server.calls[0].args, [{ uri: URI, position: { line: 5, character: 2 }, endpointConfirmed: true }]);
    assert.equal(refreshes(), 1);
  });

  it('in an untrusted workspace sends nothing to an endpoint', async () => {
    mock.state.trusted = false;
    const server = serverWith({ [ServerCommands.regenerate]: { status: 'ok', stored: 1 } });
    const { ctx, endpointQuestions } = makeContext(server, CALC_LINES);
    await regenerateWithServer(ctx);
    assert.deepEqual(server.calls, []);
    assert.equal(endpointQuestions(), 0);
    assert.equal(mock.state.messages.length, 1);
    assert.match(mock.state.messages[0].text, /not trusted/);
  });

  it('in an untrusted workspace still relays with provider.kind "client" (no endpoint, no key)', async () => {
    mock.state.trusted = false;
    const server = serverWith({ [ServerCommands.regenerate]: { status: 'relay', n: 1, messages: [] } });
    const { ctx, endpointQuestions } = makeContext(server, CALC_LINES, { 'provider.kind': 'client' });
    await regenerateWithServer(ctx);
    assert.deepEqual(server.callsOf(ServerCommands.regenerate)[0].args, [{ uri: URI, position: { line: 5, character: 2 } }]);
    assert.equal(endpointQuestions(), 0);
  });

  it('sends nothing when the user does not approve the endpoint the workspace chose', async () => {
    mock.state.endpointApproved = false;
    const server = serverWith({ [ServerCommands.regenerate]: { status: 'ok', stored: 1 } });
    const { ctx, endpointQuestions } = makeContext(server, CALC_LINES);
    await regenerateWithServer(ctx);
    assert.equal(endpointQuestions(), 1);
    assert.deepEqual(server.calls, []);
    assert.match(mock.state.messages[0].text, /nothing was sent/);
  });

  it('passes a code lens argument through', async () => {
    const server = serverWith({ [ServerCommands.regenerate]: { status: 'ok', stored: 1 } });
    const { ctx } = makeContext(server, CALC_LINES);
    await regenerateWithServer(ctx, { uri: 'file:///other.py', qualifiedName: 'f' });
    assert.deepEqual(server.calls[0].args, [{ uri: 'file:///other.py', qualifiedName: 'f', endpointConfirmed: true }]);
  });

  it('with provider.kind "client", sends the server\'s prompt to a VS Code model and relays the answers', async () => {
    const messages = [
      { role: 'system', content: 'You write Python.' },
      { role: 'user', content: 'Rewrite add.' },
    ];
    const server = serverWith({ [ServerCommands.regenerate]: { status: 'relay', n: 2, language: 'python', messages } });
    const { ctx } = makeContext(server, CALC_LINES);
    const model = new FakeModel('vendor-model', [ANSWER('return a + b')]);
    mock.state.chatModels = [model];
    await regenerateWithServer(ctx);
    assert.equal(model.requests.length, 2);
    assert.deepEqual(
      (model.requests[0].messages as LanguageModelChatMessage[]).map((m) => m.content),
      ['You write Python.', 'Rewrite add.'],
    );
    const adds = server.callsOf(ServerCommands.addVersions);
    assert.equal((adds[0].args[0] as { versions: unknown[] }).versions.length, 2);
  });

  it('logs a failure the server has already shown, without showing it twice', async () => {
    const server = serverWith({ [ServerCommands.regenerate]: new Error('codequorum.regenerate: no API key in OPENAI_API_KEY') });
    const { ctx, logged } = makeContext(server, CALC_LINES);
    await regenerateWithServer(ctx);
    assert.deepEqual(mock.state.messages, []);
    assert.deepEqual(logged, ['regenerate failed: codequorum.regenerate: no API key in OPENAI_API_KEY']);
  });

  it('asks for a function when the cursor is outside any', async () => {
    const server = serverWith({ [ServerCommands.regenerate]: new Error("codequorum.regenerate: no function 'line 1' in file:///work/demo/calc.py") });
    const { ctx } = makeContext(server, CALC_LINES);
    await regenerateWithServer(ctx);
    assert.match(mock.state.messages[0].text, /place the cursor inside a function/);
  });

  it('tells the user when the server is not running', async () => {
    const { ctx } = makeContext(undefined, CALC_LINES);
    await regenerateWithServer(ctx);
    assert.match(mock.state.messages[0].text, /language server is not running/);
  });
});
