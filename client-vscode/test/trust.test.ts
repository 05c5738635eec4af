import * as assert from 'assert/strict';
import { runVersions } from '../src/commands/runVersions';
import { ServerCommands } from '../src/constants';
import { withTrust } from '../src/serverSettings';
import { CALC_LINES, FakeServer, makeContext, openEditor } from './fakes';
import { mock } from './mock/vscode';

const URI = 'file:///work/demo/calc.py';

describe('workspace trust', () => {
  beforeEach(() => {
    mock.reset();
    openEditor(URI, CALC_LINES, { line: 5, character: 2 });
  });

  it('runs no versions in an untrusted workspace', async () => {
    mock.state.trusted = false;
    const server = new FakeServer({ [ServerCommands.runDynamic]: { started: true } });
    await runVersions(makeContext(server, CALC_LINES).ctx);
    assert.deepEqual(server.calls, []);
    assert.equal(mock.state.messages[0].level, 'warning');
    assert.match(mock.state.messages[0].text, /not trusted/);
  });

  it('leaves the message about a refused store to the server, and shows other reasons', async () => {
    const refused = new FakeServer({ [ServerCommands.runDynamic]: { started: false, refused: true, message: 'not approved' } });
    await runVersions(makeContext(refused, CALC_LINES).ctx);
    assert.equal(refused.calls.length, 1);
    assert.equal(mock.state.messages.length, 0);
    const busy = new FakeServer({ [ServerCommands.runDynamic]: { started: false, message: 'already running\x1b[2J' } });
    await runVersions(makeContext(busy, CALC_LINES).ctx);
    assert.equal(mock.state.messages[0].text, 'codequorum: already running\\x1b[2J');
  });

  it('tells the server whether the workspace is trusted, whatever the settings files say', () => {
    const settings = { provider: { model: 'm' }, trusted: true, 'codequorum.trusted': true };
    assert.deepEqual(withTrust(settings, false), { provider: { model: 'm' }, trusted: false });
    assert.deepEqual(withTrust(undefined, true), { trusted: true });
    assert.equal(settings.trusted, true, 'the input is not changed');
  });
});
