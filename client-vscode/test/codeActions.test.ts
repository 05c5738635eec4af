import * as assert from 'assert/strict';
import { isCommandAction, shownCodeActions } from '../src/codeActions';

/** What vscode-languageclient hands the middleware: kinds are objects with a value. */
const kind = (value: string) => ({ value });
const KEEP = { title: 'Keep the recommended version (version 3)', kind: kind('quickfix') };
const REPLACE = { title: 'Replace `f` with version 2', kind: kind('refactor.rewrite') };
const RUN = { title: 'Run the versions of `f` in the sandbox', kind: kind('source.codequorum') };
const CLEAR = { title: 'Clear the 3 stored versions of `f`', kind: kind('source.codequorum') };
const BARE = { title: 'a command without a kind', command: 'x' };

describe('code actions', () => {
  it('knows the server command actions by their kind', () => {
    assert.equal(isCommandAction(RUN), true);
    assert.equal(isCommandAction({ kind: 'source.codequorum' }), true);
    assert.equal(isCommandAction({ kind: kind('source.codequorum.more') }), true);
    assert.equal(isCommandAction({ kind: kind('source.codequorumish') }), false);
    assert.equal(isCommandAction({ kind: kind('source') }), false);
    assert.equal(isCommandAction(KEEP), false);
    assert.equal(isCommandAction(BARE), false);
    assert.equal(isCommandAction(null), false);
  });

  it('leaves the command actions to the extension unless the setting asks for them', () => {
    const all = [KEEP, REPLACE, RUN, CLEAR, BARE];
    assert.deepEqual(shownCodeActions(all, 'auto'), [KEEP, REPLACE, BARE]);
    assert.deepEqual(shownCodeActions(all, undefined), [KEEP, REPLACE, BARE]);
    assert.deepEqual(shownCodeActions(all, 'never'), [KEEP, REPLACE, BARE]);
    assert.deepEqual(shownCodeActions(all, 'always'), all);
    assert.equal(shownCodeActions(null, 'auto'), null);
    assert.equal(shownCodeActions(undefined, 'auto'), undefined);
  });
});
