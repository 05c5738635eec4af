import * as assert from 'assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { CLIENT_ONLY_SETTINGS, serverSettings } from '../src/serverSettings';

describe('settings sent to the server', () => {
  it('knows exactly the settings the shared schema marks "x-codequorum-scope": "client" as client-only', () => {
    const schema = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', '..', 'shared', 'settings.schema.json'), 'utf8')) as {
      properties: Record<string, Record<string, unknown>>;
    };
    const marked = Object.entries(schema.properties)
      .filter(([, p]) => p['x-codequorum-scope'] === 'client')
      .map(([k]) => k.replace(/^codequorum\./, ''));
    assert.deepEqual([...CLIENT_ONLY_SETTINGS].sort(), marked.sort());
    for (const name of ['interpreter', 'languageModel.vendor', 'languageModel.family', 'statusBar.enable', 'server.command']) {
      assert.ok((CLIENT_ONLY_SETTINGS as readonly string[]).includes(name), name);
    }
    assert.ok(!(CLIENT_ONLY_SETTINGS as readonly string[]).includes('provider.maxRetries'));
  });

  it('drops the client-only keys, nested or flat, and the groups they leave empty', () => {
    const nested = {
      interpreter: '/py',
      languageModel: { vendor: 'copilot', family: '' },
      statusBar: { enable: true, other: 1 },
      provider: { kind: 'client', samples: 3 },
      'codequorum.interpreter': '/py',
    };
    assert.deepEqual(serverSettings(nested), { statusBar: { other: 1 }, provider: { kind: 'client', samples: 3 } });
    assert.deepEqual(nested.languageModel, { vendor: 'copilot', family: '' }, 'the input is not changed');
    assert.equal(serverSettings(null), null);
    assert.deepEqual(serverSettings({ 'languageModel.vendor': 'x', provider: { model: 'm' } }), { provider: { model: 'm' } });
  });
});
