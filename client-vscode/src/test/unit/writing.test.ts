import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Action, emptyState, reduce } from '../../shared/chat/state';
import type { TurnEvent } from '../../protocol';
import { endOf, isMasked, mask, unmask } from '../../server/syncMask';

const up = (event: TurnEvent): Action => ({ kind: 'update', update: { sessionId: 's', turnId: 't', event } });
const file = { uri: 'file:///w/a.py', path: 'a.py', created: false, added: 2, removed: 1, hunks: [] };

describe('drafts of edits still being written', () => {
  it('the server sees nothing of a masked buffer, then one change to where it is now', () => {
    const uri = 'file:///w/a.py';
    mask(uri, 'a\nb\n');
    mask(uri, 'a\nb\nDRAFT\n'); // masked already: what the server saw is kept
    assert.equal(isMasked(uri), true);
    assert.deepEqual(unmask(uri, 'typed\na\nb\n'), {
      range: { start: { line: 0, character: 0 }, end: { line: 2, character: 0 } },
      text: 'typed\na\nb\n',
    });
    assert.equal(isMasked(uri), false);
    mask(uri, 'same');
    assert.equal(unmask(uri, 'same'), undefined, 'no change when the buffer is back as it was');
    assert.equal(unmask('file:///never', 'x'), undefined);
  });

  it('ends are counted in UTF-16 units over any line break', () => {
    assert.deepEqual(endOf(''), { line: 0, character: 0 });
    assert.deepEqual(endOf('a\r\nbé😀'), { line: 1, character: 4 });
  });

  it('the writing card says how far the edit has come, until the call is complete', () => {
    let s = [
      up({ type: 'turnStarted', sessionId: 's', turnId: 't', message: 'go', mode: 'act' }),
      up({ type: 'step', step: 1, model: 'm' }),
      up({ type: 'toolPending', index: 0, name: 'edit' }),
      up({ type: 'toolDraft', index: 0, tool: 'edit', callId: '', done: false, files: [file] }),
    ].reduce(reduce, emptyState());
    const card = () => Object.values(s.tools)[0];
    assert.equal(card().description, 'Writing a.py (+2 −1 so far)…');
    s = reduce(s, up({ type: 'toolDraft', index: 0, tool: 'edit', callId: 'c1', done: true, files: [] }));
    assert.equal(card().description, 'Writing a.py (+2 −1 so far)…', 'the done draft changes nothing; the queued call does');
  });
});
