import * as assert from 'assert/strict';
import { parseAnalyzeResult, type FunctionReport } from '../src/report';
import { NO_SERVER, StabilityStatus, statusView } from '../src/statusBar';
import { fixture } from './fakes';
import { MockStatusBarItem } from './mock/vscode';

function report(stability: number | undefined, stable: boolean | undefined): FunctionReport {
  const r = parseAnalyzeResult(fixture('analyze-add.json'))!;
  return { ...r, stability, stable };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('status bar', () => {
  it('shows a stable figure with the pulse icon', () => {
    const view = statusView(report(0.9412, true));
    assert.equal(view.text, '$(pulse) 0.94 stable');
    assert.equal(view.warning, false);
    assert.match(view.tooltip, /3 versions \+ your code agree at 0\.94/);
  });

  it('counts the versions in the server\'s words, as the lens does', () => {
    const raw = { ...fixture('analyze-add.json'), compared: '3 versions + your code' };
    const view = statusView(parseAnalyzeResult(raw));
    assert.match(view.tooltip, /, 3 versions \+ your code agree at 0\.80/);
  });

  it('shows an unstable figure with the warning icon and the headline', () => {
    const view = statusView(parseAnalyzeResult(fixture('analyze-add.json')));
    assert.equal(view.text, '$(warning) 0.80 unstable');
    assert.equal(view.warning, true);
    assert.match(view.tooltip, /The current code is far from the consensus/);
  });

  it('escapes names and headlines from the server', () => {
    const raw = { ...fixture('analyze-add.json'), qualifiedName: 'add\u202eevil\x1b[2J' };
    const view = statusView(parseAnalyzeResult(raw));
    assert.match(view.tooltip, /add\\u202eevil\\x1b\[2J/);
    assert.doesNotMatch(view.tooltip, /[\x1b\u202e]/u);
  });

  it('uses 0.8 as the line when the server does not say stable or not', () => {
    assert.equal(statusView(report(0.61, undefined)).text, '$(warning) 0.61 unstable');
    assert.equal(statusView(report(0.85, undefined)).text, '$(pulse) 0.85 stable');
  });

  it('says when the server is not running, and offers to start it', async () => {
    const view = statusView(NO_SERVER);
    assert.equal(view.text, '$(circle-slash) codequorum');
    assert.equal(view.action, 'restart');
    const item = new MockStatusBarItem();
    const status = new StabilityStatus(item, async () => NO_SERVER, {
      delayMs: 1,
      command: 'codequorum.compareVersions',
      regenerateCommand: 'codequorum.regenerateFunction',
      restartCommand: 'codequorum.restartServer',
      warningColor: 'warn',
      log: () => undefined,
    });
    status.cursorMoved('file:///a.py', { line: 0, character: 0 });
    await sleep(15);
    assert.equal(item.command, 'codequorum.restartServer');
    assert.equal(item.visible, true);
    status.dispose();
  });

  it('hides without a function and says so without versions', () => {
    assert.equal(statusView(undefined).visible, false);
    const none = statusView(report(undefined, undefined));
    assert.equal(none.visible, true);
    assert.equal(none.text, '$(pulse) –');
  });

  it('asks once after the cursor rests, and drops answers to older questions', async () => {
    const item = new MockStatusBarItem();
    const asked: number[] = [];
    const status = new StabilityStatus(
      item,
      async (_uri, position) => {
        asked.push(position.line);
        await sleep(position.line === 1 ? 30 : 1);
        return report(position.line === 1 ? 0.5 : 0.95, position.line !== 1);
      },
      { delayMs: 10, command: 'codequorum.compare', regenerateCommand: 'codequorum.regenerateFunction', restartCommand: 'codequorum.restartServer', warningColor: 'warn', log: () => undefined },
    );
    status.cursorMoved('file:///a.py', { line: 1, character: 0 });
    status.cursorMoved('file:///a.py', { line: 2, character: 0 });
    status.cursorMoved('file:///a.py', { line: 3, character: 0 });
    await sleep(40);
    assert.deepEqual(asked, [3]);
    assert.equal(item.text, '$(pulse) 0.95 stable');
    assert.equal(item.command, 'codequorum.compare');
    assert.equal(item.visible, true);

    // A slow answer for line 1 arrives after the answer for line 5: it is dropped.
    status.cursorMoved('file:///a.py', { line: 1, character: 0 });
    await sleep(15);
    status.cursorMoved('file:///a.py', { line: 5, character: 0 });
    await sleep(60);
    assert.deepEqual(asked, [3, 1, 5]);
    assert.equal(item.text, '$(pulse) 0.95 stable');
    assert.equal(item.backgroundColor, undefined);
    status.dispose();
  });

  it('points the item at regenerate when there is nothing to compare, and hides when disabled', async () => {
    const item = new MockStatusBarItem();
    const status = new StabilityStatus(item, async () => report(undefined, undefined), {
      delayMs: 1,
      command: 'codequorum.compare',
      regenerateCommand: 'codequorum.regenerateFunction',
      restartCommand: 'codequorum.restartServer',
      warningColor: 'warn',
      log: () => undefined,
    });
    status.cursorMoved('file:///a.py', { line: 0, character: 0 });
    await sleep(15);
    assert.equal(item.command, 'codequorum.regenerateFunction');
    status.setEnabled(false);
    assert.equal(item.visible, false);
    status.cursorMoved('file:///a.py', { line: 0, character: 0 });
    await sleep(15);
    assert.equal(item.visible, false);
    status.dispose();
  });
});
