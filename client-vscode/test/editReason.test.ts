import * as assert from 'assert/strict';
import { editReason, type ChangeEvent } from '../src/editReason';

const served = (languageId: string, scheme: string): boolean => languageId === 'python' && scheme === 'file';

function change(reason: number | undefined, languageId = 'python', scheme = 'file', changes = 1): ChangeEvent {
  const uri = { scheme, toString: () => `${scheme}:///w/app.py` };
  return { document: { uri, version: 7, languageId }, contentChanges: Array(changes).fill({}), reason };
}

describe('edit reasons for the watch', () => {
  it('names an undo or a redo of a served document, with the version it made', () => {
    assert.deepEqual(editReason(change(1), served), { uri: 'file:///w/app.py', version: 7, reason: 'undo' });
    assert.deepEqual(editReason(change(2), served), { uri: 'file:///w/app.py', version: 7, reason: 'redo' });
  });

  it('says nothing of typing, of other documents, or of a change that changed nothing', () => {
    assert.equal(editReason(change(undefined), served), undefined);
    assert.equal(editReason(change(1, 'markdown'), served), undefined);
    assert.equal(editReason(change(1, 'python', 'git'), served), undefined);
    assert.equal(editReason(change(1, 'python', 'file', 0), served), undefined);
    assert.equal(editReason(change(3), served), undefined);
  });
});
