import * as assert from 'assert/strict';
import { jobView, ServerJobs, type JobItem } from '../src/serverJobs';

class Item implements JobItem {
  text = '';
  tooltip: unknown = '';
  command: unknown = undefined;
  visible = false;
  show(): void {
    this.visible = true;
  }
  hide(): void {
    this.visible = false;
  }
}

describe('the server\'s jobs in the status bar', () => {
  it('shows the newest job with its progress, and a click stops it', () => {
    const item = new Item();
    const cancelled: (string | number)[] = [];
    const jobs = new ServerJobs(item, (t) => cancelled.push(t), 'codequorum.stopJob');
    jobs.created('t1');
    assert.equal(item.visible, false); // nothing begun yet
    jobs.progress('t1', { kind: 'begin', title: 'codequorum: checking parse_duration', cancellable: true, percentage: 0 });
    assert.equal(item.text, '$(sync~spin) checking parse_duration 0%');
    assert.equal(item.command, 'codequorum.stopJob');
    jobs.progress('t1', { kind: 'report', message: '2 of 5 answers, 2 stored', percentage: 40 });
    assert.equal(item.text, '$(sync~spin) checking parse_duration 40%');
    assert.equal(item.tooltip, 'codequorum: checking parse_duration: 2 of 5 answers, 2 stored\nClick to stop it.');
    jobs.created(9);
    jobs.progress(9, { kind: 'begin', title: 'codequorum: running parse_duration versions', cancellable: true });
    assert.equal(item.text, '$(sync~spin) running parse_duration versions (+1)');
    assert.equal(jobs.stopNewest(), true);
    assert.deepEqual(cancelled, [9]);
    jobs.progress(9, { kind: 'end', message: 'cancelled' });
    assert.equal(item.text, '$(sync~spin) checking parse_duration 40%');
    jobs.progress('t1', { kind: 'end', message: 'done' });
    assert.equal(item.visible, false);
    assert.equal(jobs.stopNewest(), false);
  });

  it('offers no click for a job that cannot stop, forgets jobs when the server stops, and escapes text', () => {
    const item = new Item();
    const jobs = new ServerJobs(item, () => undefined, 'stop');
    jobs.created('a');
    jobs.progress('a', { kind: 'begin', title: 'codequorum: x\u202ey', cancellable: false });
    assert.equal(item.command, undefined);
    assert.ok(!item.text.includes('\u202e'));
    jobs.progress('unknown', { kind: 'begin', title: 'not ours' });
    jobs.clear();
    assert.equal(item.visible, false);
    assert.equal(jobView({ title: 'plain', message: '', percentage: undefined, cancellable: false }, 1).text, '$(sync~spin) plain');
  });
});
