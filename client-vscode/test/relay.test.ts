import * as assert from 'assert/strict';
import { relayTarget } from '../src/relay';

describe('the watch\'s relay', () => {
  it('reads the function, the prompt and the count', () => {
    const params = { uri: 'file:///w/a.py', qualifiedName: 'f', n: 3, messages: [{ role: 'system', content: 's' }, { role: 'user', content: 'u' }] };
    assert.deepEqual(relayTarget(params), {
      target: { uri: 'file:///w/a.py', qualifiedName: 'f' },
      messages: [
        { role: 'system', content: 's' },
        { role: 'user', content: 'u' },
      ],
      count: 3,
    });
    assert.equal(relayTarget({ ...params, n: 1000 })!.count, 50);
    assert.equal(relayTarget({ ...params, n: 'x' })!.count, 5);
  });

  it('refuses what is not a relay', () => {
    assert.equal(relayTarget(null), undefined);
    assert.equal(relayTarget({ uri: 'file:///w/a.py', qualifiedName: 'f', messages: [] }), undefined);
    assert.equal(relayTarget({ uri: 1, qualifiedName: 'f', messages: [{ role: 'user', content: 'u' }] }), undefined);
  });
});
