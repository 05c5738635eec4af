import * as assert from 'assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { ServerCommands } from '../src/constants';
import { ResultChecks } from '../src/generated/commands';
import { BadAnswerError, ServerApi } from '../src/serverApi';

// The generator is plain CommonJS so that `npm run gen-commands` needs no build.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const gen = require(path.join(__dirname, '..', '..', 'scripts', 'gen-commands.js')) as {
  generate(schema: unknown): string;
  expectedSource(): string;
  SHARED_SCHEMA: string;
  COMMANDS_TS: string;
};

describe('server commands generated from the shared schema', () => {
  const schema = JSON.parse(fs.readFileSync(gen.SHARED_SCHEMA, 'utf8')) as { commands: Record<string, unknown> };

  it('src/generated/commands.ts matches the schema exactly (run `npm run gen-commands` after editing it)', () => {
    assert.equal(fs.readFileSync(gen.COMMANDS_TS, 'utf8'), gen.expectedSource());
  });

  it('names every command of the schema, and only those', () => {
    assert.deepEqual(Object.values(ServerCommands).sort(), Object.keys(schema.commands).sort());
    assert.equal(ServerCommands.addVersions, 'codequorum.addVersions');
  });

  it('writes optional argument fields as optional and result fields as present', () => {
    const source = gen.generate({
      commands: { 'codequorum.x': { arguments: { $ref: '#/$defs/XArgs' }, result: { anyOf: [{ $ref: '#/$defs/XResult' }, { type: 'null' }] } } },
      $defs: {
        XArgs: { type: 'object', description: 'Args.', properties: { uri: { type: 'string' }, n: { type: 'integer' } }, required: ['uri'] },
        XResult: {
          type: 'object',
          properties: { status: { enum: ['ok', 'failed'] }, names: { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'null' }] } } },
          required: ['status', 'names'],
        },
      },
    });
    assert.match(source, /x: 'codequorum\.x',/);
    assert.match(source, /\/\*\* Args\. \*\/\nexport interface XArgs \{\n {2}uri: string;\n {2}n\?: number;\n\}/);
    assert.match(source, /status: 'ok' \| 'failed';\n {2}names: \(string \| null\)\[\];/);
    assert.match(source, /'codequorum\.x': \{ args: XArgs; result: XResult \| null \};/);
  });

  it('checks each result at run time: every field there, of its type, nested objects and enums too', () => {
    const stored = { uri: 'u', qualifiedName: 'f', added: 2, total: 5, path: null };
    const check = ResultChecks[ServerCommands.addVersions];
    assert.equal(check(stored), true);
    assert.equal(check({ ...stored, path: '/tmp/v.jsonl' }), true);
    assert.equal(check({ ...stored, added: '2' }), false);
    assert.equal(check({ ...stored, added: 2.5 }), false, 'an integer field');
    const { total: _total, ...noTotal } = stored;
    assert.equal(check(noTotal), false);
    assert.equal(check(null), false);
    assert.equal(check([stored]), false);
    assert.equal(ResultChecks[ServerCommands.analyze](null), true, 'analyze answers null outside a function');
    const run = { uri: 'u', qualifiedName: 'f', started: true, refused: false, message: null, token: 't' };
    assert.equal(ResultChecks[ServerCommands.runDynamic](run), true);
    assert.equal(ResultChecks[ServerCommands.runDynamic]({ ...run, token: 3 }), true);
    assert.equal(ResultChecks[ServerCommands.runDynamic]({ ...run, token: true }), false);
    const regenerated = {
      uri: 'u', qualifiedName: 'f', status: 'relay', requested: 3, accepted: 0, stored: 0, rejected: [], errors: [],
      message: null, n: 3, language: 'python', messages: [{ role: 'user', content: 'write f' }],
    };
    const regenerate = ResultChecks[ServerCommands.regenerate];
    assert.equal(regenerate(regenerated), true);
    assert.equal(regenerate({ ...regenerated, status: 'maybe' }), false, 'a status outside the enum');
    assert.equal(regenerate({ ...regenerated, messages: [{ role: 'tool', content: 'x' }] }), false);
    assert.equal(regenerate({ ...regenerated, errors: ['a', 1] }), false);
  });

  it('refuses an answer that is not the command\'s result, naming the command', async () => {
    const api = new ServerApi(async () => ({ uri: 'u', qualifiedName: 'f', removed: 'all' }));
    await assert.rejects(
      api.call(ServerCommands.deleteVersions, { uri: 'u', qualifiedName: 'f' }),
      (err: unknown) => err instanceof BadAnswerError && /codequorum\.deleteVersions/.test(err.message),
    );
  });

  it('reads the number of stored versions from `stored`, the field the server sends', async () => {
    const api = new ServerApi(async () => ({
      uri: 'u', qualifiedName: 'f', status: 'ok', stored: 4, accepted: 5, requested: 5, rejected: [], errors: [],
      message: null, n: 5, language: 'python', messages: null,
    }));
    const answer = await api.regenerate({ uri: 'u', qualifiedName: 'f' }, 5);
    assert.equal(answer.stored, 4);
    assert.equal(answer.status, 'ok');
  });

  it('takes null from analyze as "no function here"', async () => {
    const sent: unknown[][] = [];
    const api = new ServerApi(async (command, args) => {
      sent.push([command, ...args]);
      return null;
    });
    assert.equal(await api.analyze({ uri: 'file:///a.py', position: { line: 0, character: 0 } }), undefined);
    assert.deepEqual(sent, [[ServerCommands.analyze, { uri: 'file:///a.py', position: { line: 0, character: 0 } }]]);
  });
});
