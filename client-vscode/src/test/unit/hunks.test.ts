import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { allDecided, applyEdits, confirmation, hunkLines, mapRange, mapRangeThrough } from '../../features/preview/hunks';

const r = (sl: number, sc: number, el: number, ec: number) => ({ start: { line: sl, character: sc }, end: { line: el, character: ec } });

describe('mapRange', () => {
  it('moves a hunk down when lines are inserted above it', () => {
    const m = mapRange(r(5, 0, 6, 0), { range: r(1, 0, 1, 0), text: 'a\nb\n' });
    assert.deepEqual(m, { range: r(7, 0, 8, 0), touched: false });
  });
  it('moves a hunk up when lines above it are deleted', () => {
    const m = mapRange(r(5, 0, 6, 0), { range: r(1, 0, 3, 0), text: '' });
    assert.deepEqual(m, { range: r(3, 0, 4, 0), touched: false });
  });
  it('shifts characters when typing on the line where the range starts, before it', () => {
    const m = mapRange(r(2, 4, 2, 9), { range: r(2, 0, 2, 0), text: 'xy' });
    assert.deepEqual(m.range, r(2, 6, 2, 11));
  });
  it('leaves a hunk alone when the change is after it', () => {
    const m = mapRange(r(5, 0, 6, 0), { range: r(8, 2, 8, 2), text: 'zzz' });
    assert.deepEqual(m, { range: r(5, 0, 6, 0), touched: false });
  });
  it('marks a hunk touched when the user types inside it, and stretches it', () => {
    const m = mapRange(r(5, 0, 6, 0), { range: r(5, 3, 5, 3), text: 'abc\n' });
    assert.equal(m.touched, true);
    assert.deepEqual(m.range, r(5, 0, 7, 0));
  });
  it('covers a replacement that overlaps the start', () => {
    const m = mapRange(r(5, 0, 7, 0), { range: r(4, 0, 6, 0), text: 'x\n' });
    assert.equal(m.touched, true);
    assert.deepEqual(m.range, r(4, 0, 6, 0));
  });
  it('maps several changes of one event (given in any order)', () => {
    const changes = [
      { range: r(0, 0, 0, 0), text: 'top\n' },
      { range: r(9, 0, 9, 0), text: 'bottom\n' },
    ];
    assert.deepEqual(mapRangeThrough(r(5, 0, 6, 0), changes), { range: r(6, 0, 7, 0), touched: false });
    assert.deepEqual(mapRangeThrough(r(5, 0, 6, 0), [...changes].reverse()), { range: r(6, 0, 7, 0), touched: false });
  });
  it('keeps the proposal equal to applying the hunk to the edited text', () => {
    const original = 'a\nb\nc\nd\n';
    const hunk = { range: r(2, 0, 3, 0), newText: 'C\n' };
    const edited = 'x\n' + original; // the user adds a line at the top
    const moved = mapRange(hunk.range, { range: r(0, 0, 0, 0), text: 'x\n' }).range;
    assert.equal(applyEdits(edited, [{ range: moved, newText: hunk.newText }]), 'x\na\nb\nC\nd\n');
  });
});

describe('applyEdits', () => {
  it('applies non-overlapping edits in any order, with UTF-16 columns', () => {
    const text = 'héllo 😀 world\nsecond\n';
    const out = applyEdits(text, [
      { range: r(1, 0, 1, 6), newText: 'SECOND' },
      { range: r(0, 9, 0, 14), newText: 'there' },
    ]);
    assert.equal(out, 'héllo 😀 there\nSECOND\n');
  });
  it('handles CRLF line ends and an edit at the very end', () => {
    assert.equal(applyEdits('a\r\nb', [{ range: r(1, 1, 1, 1), newText: '!' }]), 'a\r\nb!');
    assert.equal(applyEdits('a\n', [{ range: r(5, 0, 5, 0), newText: 'z' }]), 'a\nz');
  });
});

describe('confirmation', () => {
  const file = (path: string, ...states: ('pending' | 'accepted' | 'rejected')[]) => ({
    path,
    hunks: states.map((state, i) => ({ id: `h${i + 1}`, state })),
  });
  it('all accepted: allowOnce without acceptedHunks', () => {
    assert.deepEqual(confirmation([file('a.py', 'accepted', 'accepted')]), { outcome: 'allowOnce' });
  });
  it('nothing accepted: a rejection', () => {
    assert.deepEqual(confirmation([file('a.py', 'rejected', 'rejected')]), { outcome: 'reject' });
  });
  it('a subset: the accepted ids, PATH#hN with several files', () => {
    assert.deepEqual(confirmation([file('a.py', 'accepted', 'rejected')]), { outcome: 'allowOnce', acceptedHunks: ['h1'] });
    assert.deepEqual(confirmation([file('a.py', 'accepted', 'rejected'), file('b.py', 'rejected')]), {
      outcome: 'allowOnce',
      acceptedHunks: ['a.py#h1'],
    });
  });
  it('an edited proposal goes as modifiedContent and counts as accepting', () => {
    const out = confirmation([{ ...file('a.py', 'rejected'), modified: 'mine\n' }]);
    assert.deepEqual(out, { outcome: 'allowOnce', acceptedHunks: [], modifiedContent: [{ uri: 'a.py', text: 'mine\n' }] });
  });
  it('a file deleted while previewed contributes nothing', () => {
    assert.deepEqual(confirmation([{ ...file('a.py', 'accepted'), gone: true }, file('b.py', 'accepted')]), {
      outcome: 'allowOnce',
      acceptedHunks: ['b.py#h1'],
    });
  });
  it('knows when everything is decided', () => {
    assert.equal(allDecided([file('a.py', 'accepted', 'pending')]), false);
    assert.equal(allDecided([file('a.py', 'accepted', 'rejected'), { ...file('b.py', 'pending'), gone: true }]), true);
  });
});

describe('hunkLines', () => {
  it('splits a replacement into removed and added lines', () => {
    assert.deepEqual(hunkLines('a\nb\nc\n', r(1, 0, 2, 0), 'B1\nB2\n'), { removed: ['b'], added: ['B1', 'B2'] });
  });
  it('a pure insertion removes nothing; a deletion adds nothing', () => {
    assert.deepEqual(hunkLines('a\nb\n', r(1, 0, 1, 0), 'new\n'), { removed: [], added: ['new'] });
    assert.deepEqual(hunkLines('a\nb\n', r(0, 0, 1, 0), ''), { removed: ['a'], added: [] });
  });
});
