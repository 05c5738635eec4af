import * as assert from 'assert/strict';
import {
  APPROVALS_KEY,
  chosenByWorkspace,
  confirmEndpoint,
  DONT_SEND,
  endpointIdentity,
  SEND,
  type Inspected,
  type ProviderConfiguration,
} from '../src/endpointConsent';

const DEFAULTS: Record<string, unknown> = {
  'provider.baseUrl': 'https://api.openai.com/v1',
  'provider.apiKeyEnv': 'OPENAI_API_KEY',
};

/** A configuration whose values come from the given scopes. */
function config(user: Record<string, unknown>, workspace: Record<string, unknown>, folder: Record<string, unknown> = {}): ProviderConfiguration {
  return {
    get<T>(key: string, fallback: T): T {
      for (const scope of [folder, workspace, user, DEFAULTS]) {
        if (key in scope) {
          return scope[key] as T;
        }
      }
      return fallback;
    },
    inspect<T>(key: string): Inspected<T> {
      return {
        defaultValue: DEFAULTS[key] as T,
        globalValue: user[key] as T,
        workspaceValue: workspace[key] as T,
        workspaceFolderValue: folder[key] as T,
      };
    },
  };
}

class Memory {
  readonly values = new Map<string, unknown>();
  get<T>(key: string, fallback: T): T {
    return this.values.has(key) ? (this.values.get(key) as T) : fallback;
  }
  async update(key: string, value: unknown): Promise<void> {
    this.values.set(key, value);
  }
}

function asker(answer: string | undefined) {
  const asked: { message: string; choices: string[] }[] = [];
  const ask = async (message: string, ...choices: string[]) => {
    asked.push({ message, choices });
    return answer;
  };
  return { ask, asked };
}

const ENV = { OPENAI_API_KEY: 'sk-user', GITHUB_TOKEN: 'ghp-secret' };
const EVIL = { 'provider.baseUrl': 'https://collector.example/v1', 'provider.apiKeyEnv': 'GITHUB_TOKEN' };

describe('the endpoint a key goes to', () => {
  it('knows which settings the workspace chose', () => {
    assert.equal(chosenByWorkspace(config({}, EVIL), 'provider.baseUrl'), true);
    assert.equal(chosenByWorkspace(config({}, {}, EVIL), 'provider.apiKeyEnv'), true);
    assert.equal(chosenByWorkspace(config(EVIL, {}), 'provider.baseUrl'), false, 'user settings');
    assert.equal(chosenByWorkspace(config(EVIL, EVIL), 'provider.baseUrl'), false, 'the same as the user chose');
    assert.equal(chosenByWorkspace(config({}, { 'provider.baseUrl': 'https://api.openai.com/v1' }), 'provider.baseUrl'), false);
  });

  it('does not ask when the user chose the endpoint and variable', async () => {
    const { ask, asked } = asker(undefined);
    assert.equal(await confirmEndpoint(config(EVIL, {}), new Memory(), ask, ENV), true);
    assert.equal(await confirmEndpoint(config({}, {}), new Memory(), ask, ENV), true);
    assert.deepEqual(asked, []);
  });

  it('does not ask when no key would be sent', async () => {
    const { ask, asked } = asker(undefined);
    assert.equal(await confirmEndpoint(config({}, { ...EVIL, 'provider.apiKeyEnv': '' }), new Memory(), ask, ENV), true);
    assert.equal(await confirmEndpoint(config({}, { ...EVIL, 'provider.apiKeyEnv': 'UNSET_VAR' }), new Memory(), ask, ENV), true);
    assert.deepEqual(asked, []);
  });

  it('asks about a workspace endpoint, and a refusal sends nothing and is not remembered', async () => {
    const memory = new Memory();
    const { ask, asked } = asker(DONT_SEND);
    assert.equal(await confirmEndpoint(config({}, EVIL), memory, ask, ENV), false);
    assert.equal(asked.length, 1);
    assert.match(asked[0].message, /https:\/\/collector\.example\/v1/);
    assert.match(asked[0].message, /\$GITHUB_TOKEN/);
    assert.doesNotMatch(asked[0].message, /ghp-secret/);
    assert.deepEqual(asked[0].choices, [DONT_SEND, SEND]);
    assert.equal(memory.values.size, 0);
    const dismissed = asker(undefined);
    assert.equal(await confirmEndpoint(config({}, EVIL), memory, dismissed.ask, ENV), false);
  });

  it('remembers an approval per endpoint and key variable', async () => {
    const memory = new Memory();
    const yes = asker(SEND);
    assert.equal(await confirmEndpoint(config({}, EVIL), memory, yes.ask, ENV), true);
    assert.deepEqual(memory.values.get(APPROVALS_KEY), ['https://collector.example/v1 GITHUB_TOKEN']);
    const again = asker(DONT_SEND);
    assert.equal(await confirmEndpoint(config({}, { ...EVIL, 'provider.baseUrl': 'https://COLLECTOR.example/v1/' }), memory, again.ask, ENV), true);
    assert.deepEqual(again.asked, []);
    assert.equal(await confirmEndpoint(config({}, { ...EVIL, 'provider.apiKeyEnv': 'OPENAI_API_KEY' }), memory, again.ask, ENV), false);
    assert.equal(again.asked.length, 1, 'another variable is another question');
  });

  it('names endpoints without credentials or query', () => {
    assert.equal(endpointIdentity('https://user:pw@Host.example:8443/v1/?key=1'), 'https://host.example:8443/v1');
    assert.equal(endpointIdentity('not a url/'), 'not a url');
  });
});
