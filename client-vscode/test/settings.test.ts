import * as assert from 'assert/strict';
import * as fs from 'fs';
import * as path from 'path';

// The generator is plain CommonJS so that `npm run gen-settings` needs no build.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const gen = require(path.join(__dirname, '..', '..', 'scripts', 'gen-settings.js')) as {
  buildConfiguration(schema: unknown): { title: string; properties: Record<string, Record<string, unknown>> };
  expectedConfiguration(): { title: string; properties: Record<string, Record<string, unknown>> };
  clientOnlySettings(schema: unknown): string[];
  restrictedSettings(schema: unknown): string[];
  expectedUntrustedWorkspaces(): { supported: string; description: string; restrictedConfigurations: string[] };
  expectedClientOnlySource(): string;
  SHARED_SCHEMA: string;
  CLIENT_ONLY_TS: string;
  PACKAGE_JSON: string;
};

function readJson(file: string): Record<string, unknown> {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
}

describe('settings contributed to VS Code', () => {
  const pkg = readJson(gen.PACKAGE_JSON) as {
    contributes: { configuration: unknown };
    capabilities: { untrustedWorkspaces: { supported: string; restrictedConfigurations: string[] } };
  };
  const shared = readJson(gen.SHARED_SCHEMA) as { properties: Record<string, Record<string, unknown>> };

  it('package.json matches the schema exactly (run `npm run gen-settings` after editing the schema)', () => {
    assert.deepEqual(pkg.contributes.configuration, gen.expectedConfiguration());
  });

  it('package.json restricts in untrusted workspaces exactly the settings the schema marks', () => {
    assert.deepEqual(pkg.capabilities.untrustedWorkspaces, gen.expectedUntrustedWorkspaces());
    assert.equal(pkg.capabilities.untrustedWorkspaces.supported, 'limited');
  });

  it('restricts every setting that chooses what runs, which versions run or where a key goes', () => {
    const restricted = pkg.capabilities.untrustedWorkspaces.restrictedConfigurations;
    const dynamic = Object.keys(shared.properties).filter((name) => name.startsWith('codequorum.dynamic.'));
    assert.ok(dynamic.length >= 3);
    for (const name of [
      ...dynamic,
      'codequorum.provider.baseUrl',
      'codequorum.provider.apiKeyEnv',
      'codequorum.interpreter',
      'codequorum.server.command',
      'codequorum.store.path',
    ]) {
      assert.ok(restricted.includes(name), `${name} is not restricted`);
    }
    assert.ok(!restricted.includes('codequorum.hover.enable'));
    assert.deepEqual(
      gen.restrictedSettings({ properties: { 'codequorum.a': { 'x-codequorum-restricted': true }, 'codequorum.b': {} } }),
      ['codequorum.a'],
    );
  });

  it('src/clientOnlySettings.ts matches the schema exactly', () => {
    assert.equal(fs.readFileSync(gen.CLIENT_ONLY_TS, 'utf8'), gen.expectedClientOnlySource());
  });

  it('lists the settings marked "x-codequorum-scope": "client" as client-only', () => {
    assert.deepEqual(
      gen.clientOnlySettings({
        properties: {
          'codequorum.a': { 'x-codequorum-scope': 'client' },
          'codequorum.b.c': {},
          'codequorum.d.e': { 'x-codequorum-scope': 'client' },
        },
      }),
      ['a', 'd.e'],
    );
  });

  it('contributes every setting of the schema with its type, default and description', () => {
    const contributed = (pkg.contributes.configuration as { properties: Record<string, Record<string, unknown>> }).properties;
    const names = Object.keys(shared.properties);
    assert.deepEqual(Object.keys(contributed), names);
    for (const name of names) {
      const source = shared.properties[name];
      assert.deepEqual(contributed[name].type, source.type, name);
      assert.deepEqual(contributed[name].default, source.default, name);
      assert.equal(contributed[name].description, source.description, name);
      assert.deepEqual(contributed[name].enum, source.enum, name);
    }
    assert.ok('codequorum.interpreter' in contributed);
    assert.equal(contributed['codequorum.interpreter'].scope, 'machine');
    for (const name of names) {
      // a setting only the user may choose is a machine setting: VS Code ignores a workspace's value
      const reach = shared.properties[name]['x-codequorum-reach'];
      assert.ok(typeof reach === 'string', `${name} says what it can do (x-codequorum-reach)`);
      assert.equal(contributed[name].scope === 'machine', !['analysis', 'project-file'].includes(reach), name);
    }
    assert.ok('codequorum.provider.versions' in contributed);
    assert.ok('codequorum.provider.maxRetries' in contributed);
    assert.ok('codequorum.provider.useN' in contributed);
  });

  it('drops schema-only keys and keeps VS Code ones', () => {
    const conf = gen.buildConfiguration({
      properties: {
        'codequorum.a': { type: 'integer', default: 3, minimum: 1, description: 'A.', 'x-codequorum-scope': 'client', $comment: 'internal' },
        'codequorum.b': { type: 'string', default: '', description: 'B.', scope: 'machine-overridable' },
      },
    });
    assert.deepEqual(conf, {
      title: 'codequorum',
      properties: {
        'codequorum.a': { type: 'integer', default: 3, description: 'A.', minimum: 1 },
        'codequorum.b': { type: 'string', default: '', description: 'B.', scope: 'machine-overridable' },
      },
    });
  });

  it('resolves local $ref', () => {
    const conf = gen.buildConfiguration({
      $defs: { level: { type: 'string', enum: ['a', 'b'] } },
      properties: { 'codequorum.level': { $ref: '#/$defs/level', default: 'a', description: 'Level.' } },
    });
    assert.deepEqual(conf.properties['codequorum.level'], { type: 'string', default: 'a', description: 'Level.', enum: ['a', 'b'] });
  });

  it('refuses a setting without prefix, default or description', () => {
    const p = { type: 'string', default: '', description: 'X.' };
    assert.throws(() => gen.buildConfiguration({ properties: { x: p } }), /prefix/);
    assert.throws(() => gen.buildConfiguration({ properties: { 'codequorum.x': { type: 'string', description: 'X.' } } }), /no default/);
    assert.throws(() => gen.buildConfiguration({ properties: { 'codequorum.x': { type: 'string', default: '' } } }), /no description/);
  });
});
