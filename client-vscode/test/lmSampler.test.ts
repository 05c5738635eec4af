import * as assert from 'assert/strict';
import { buildPrompt, sampleVersions, type ChatModel } from '../src/lmSampler';
import { CancellationTokenSource } from './mock/vscode';

function streamingModel(fragments: string[], onFragment: (i: number) => void, calls: { n: number }): ChatModel {
  return {
    id: 'stream-model',
    name: 'Stream',
    vendor: 'v',
    family: 'f',
    sendRequest: async () => {
      calls.n++;
      async function* text() {
        for (let i = 0; i < fragments.length; i++) {
          yield fragments[i];
          onFragment(i);
        }
      }
      return { text: text() };
    },
  };
}

describe('language-model sampling', () => {
  it('builds a prompt that names the function and carries its code in a fence', () => {
    const [m] = buildPrompt({ language: 'python', qualifiedName: 'Calc.add', code: 'def add(a, b):\n    return a + b\n\n' });
    assert.equal(m.role, 'user');
    assert.match(m.content, /^Write the python function `add` again from scratch/);
    assert.ok(m.content.endsWith('```python\ndef add(a, b):\n    return a + b\n```'));
  });

  it('stops in the middle of a streamed answer when cancelled, dropping the partial answer', async () => {
    const source = new CancellationTokenSource();
    const calls = { n: 0 };
    const model = streamingModel(['```python\ndef add(a, b):\n', '    return a + b\n```'], () => source.cancel(), calls);
    const result = await sampleVersions(model, [{ role: 'user', content: 'x' }], {
      count: 3,
      functionName: 'add',
      token: source.token,
      toChatMessage: (m) => m,
    });
    assert.deepEqual(result, { samples: [], cancelled: true, problems: [] });
    assert.equal(calls.n, 1);
  });

  it('goes on after a failed request that is not a refusal', async () => {
    const source = new CancellationTokenSource();
    let n = 0;
    const model: ChatModel = {
      id: 'flaky',
      name: 'Flaky',
      vendor: 'v',
      family: 'f',
      sendRequest: async () => {
        n++;
        if (n === 1) {
          throw Object.assign(new Error('rate limited'), { code: 'Unknown' });
        }
        async function* text() {
          yield '```python\ndef f():\n    return 1\n```';
        }
        return { text: text() };
      },
    };
    const result = await sampleVersions(model, [{ role: 'user', content: 'x' }], {
      count: 2,
      functionName: 'f',
      token: source.token,
      toChatMessage: (m) => m,
    });
    assert.equal(result.cancelled, false);
    assert.deepEqual(result.problems, ['request 1: rate limited']);
    assert.deepEqual(result.samples, [{ code: 'def f():\n    return 1\n', provider: 'vscode-lm', model: 'flaky' }]);
  });
});
