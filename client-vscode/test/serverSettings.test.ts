import * as assert from 'assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { CLIENT_ONLY_SETTINGS, serverSettings } from '../src/serverSettings';

describe('settings sent to the server', () => {
  it('knows exactly the settings of settings.client.schema.json as client-only', () => {
    const schema = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'settings.client.schema.json'), 'utf8')) as {
      properties: Record<string, unknown>;
    };
    assert.deepEqual(
      Object.keys(schema.properties).map((k) => k.replace(/^codequorum\./, '')).sort(),
      [...CLIENT_ONLY_SETTINGS].sort(),
    );
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
