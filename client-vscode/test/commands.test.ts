import * as assert from 'assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { ServerCommands } from '../src/constants';
import { ServerApi } from '../src/serverApi';

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
    assert.equal(ServerCommands.addSamples, 'codequorum.addSamples');
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

  it('reads the number of stored versions from `stored`, the field the server sends', async () => {
    const api = new ServerApi(async () => ({ uri: 'u', qualifiedName: 'f', status: 'ok', stored: 4, accepted: 5, requested: 5 }));
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
