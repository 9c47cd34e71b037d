import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyEdits, mapRange, type TextChange } from '../../features/preview/hunks';
import { acceptEdit, coveredLines, decidedText, handBackEdits, type HunkText, type Placed, placeHunks, rejectEdit } from '../../features/preview/inline';

const r = (sl: number, sc: number, el: number, ec: number) => ({ start: { line: sl, character: sc }, end: { line: el, character: ec } });

/** Follow the user's change, as the preview manager does on every document change. */
function follow(p: Placed, change: TextChange): Placed {
  return { ...p, removed: mapRange(p.removed, change).range, added: mapRange(p.added, change).range };
}

/** The text after the user decides every hunk (one edit each), and after the hand-back. */
function decideAll(text: string, placed: Placed[], fates: ('accepted' | 'rejected')[]): { shown: string; handedBack: string } {
  let cur = text;
  let ps = placed;
  fates.forEach((fate, i) => {
    const edit = fate === 'accepted' ? acceptEdit(ps[i]) : rejectEdit(ps[i]);
    const change = { range: edit.range, text: edit.newText };
    cur = applyEdits(cur, [edit]);
    ps = ps.map((p) => follow(p, change));
  });
  const handedBack = applyEdits(cur, handBackEdits(ps.map((placed, i) => ({ placed, fate: fates[i] }))));
  return { shown: cur, handedBack };
}

const BASE = 'one\ntwo\nthree\nfour\nfive\n';

describe('placeHunks', () => {
  it('puts a replacement\'s new lines below the old ones; accept and reject each give the right text', () => {
    const hunks: HunkText[] = [{ range: r(1, 0, 2, 0), newText: 'TWO\n2\n' }];
    const p = placeHunks(BASE, hunks, '\n');
    assert.equal(p.text, 'one\ntwo\nTWO\n2\nthree\nfour\nfive\n');
    assert.deepEqual(p.placed[0].removed, r(1, 0, 2, 0));
    assert.deepEqual(p.placed[0].added, r(2, 0, 4, 0));
    assert.deepEqual(coveredLines(p.placed[0].added), { first: 2, last: 3 });
    assert.equal(applyEdits(p.text, [acceptEdit(p.placed[0])]), applyEdits(BASE, hunks));
    assert.equal(applyEdits(p.text, [rejectEdit(p.placed[0])]), BASE);
  });

  it('shows a pure insertion as added lines only', () => {
    const hunks: HunkText[] = [{ range: r(2, 0, 2, 0), newText: 'a\nb\n' }];
    const p = placeHunks(BASE, hunks, '\n');
    assert.equal(p.text, 'one\ntwo\na\nb\nthree\nfour\nfive\n');
    assert.equal(coveredLines(p.placed[0].removed), undefined);
    assert.deepEqual(coveredLines(p.placed[0].added), { first: 2, last: 3 });
    assert.deepEqual(decideAll(p.text, p.placed, ['accepted']), { shown: applyEdits(BASE, hunks), handedBack: BASE });
  });

  it('shows a pure deletion as removed lines only', () => {
    const hunks: HunkText[] = [{ range: r(1, 0, 3, 0), newText: '' }];
    const p = placeHunks(BASE, hunks, '\n');
    assert.equal(p.text, BASE);
    assert.deepEqual(coveredLines(p.placed[0].removed), { first: 1, last: 2 });
    assert.equal(coveredLines(p.placed[0].added), undefined);
    assert.deepEqual(decideAll(p.text, p.placed, ['accepted']), { shown: 'one\nfour\nfive\n', handedBack: BASE });
    assert.deepEqual(decideAll(p.text, p.placed, ['rejected']), { shown: BASE, handedBack: BASE });
  });

  it('handles hunks at the start and at the end of the file, several at once', () => {
    const hunks: HunkText[] = [
      { range: r(0, 0, 1, 0), newText: 'ONE\n' },
      { range: r(4, 0, 5, 0), newText: 'FIVE\nsix\n' },
    ];
    const p = placeHunks(BASE, hunks, '\n');
    assert.equal(p.text, 'one\nONE\ntwo\nthree\nfour\nfive\nFIVE\nsix\n');
    const both = decideAll(p.text, p.placed, ['accepted', 'accepted']);
    assert.deepEqual(both, { shown: applyEdits(BASE, hunks), handedBack: BASE });
    assert.deepEqual(decideAll(p.text, p.placed, ['accepted', 'rejected']), { shown: 'ONE\ntwo\nthree\nfour\nfive\n', handedBack: BASE });
    assert.deepEqual(decideAll(p.text, p.placed, ['rejected', 'rejected']), { shown: BASE, handedBack: BASE });
  });

  it('gives a last line without a line break one, so the proposal starts on its own line', () => {
    const base = 'a\nb';
    const hunks: HunkText[] = [{ range: r(1, 0, 1, 1), newText: 'B\nc' }];
    const p = placeHunks(base, hunks, '\n');
    assert.equal(p.text, 'a\nb\nB\nc');
    assert.deepEqual(coveredLines(p.placed[0].removed), { first: 1, last: 1 });
    assert.deepEqual(coveredLines(p.placed[0].added), { first: 2, last: 3 });
    assert.deepEqual(decideAll(p.text, p.placed, ['accepted']), { shown: 'a\nB\nc', handedBack: base });
    assert.deepEqual(decideAll(p.text, p.placed, ['rejected']), { shown: base, handedBack: base });
  });

  it('writes the proposal with the document\'s CRLF line breaks', () => {
    const base = 'one\r\ntwo\r\nthree\r\n';
    const hunks: HunkText[] = [{ range: r(1, 0, 2, 0), newText: 'TWO\nzwei\n' }];
    const p = placeHunks(base, hunks, '\r\n');
    assert.equal(p.text, 'one\r\ntwo\r\nTWO\r\nzwei\r\nthree\r\n');
    assert.deepEqual(p.placed[0].added, r(2, 0, 4, 0));
    assert.deepEqual(decideAll(p.text, p.placed, ['accepted']), { shown: 'one\r\nTWO\r\nzwei\r\nthree\r\n', handedBack: base });
  });

  it('keeps what the user types above, inside and below a pending hunk', () => {
    const hunks: HunkText[] = [{ range: r(2, 0, 3, 0), newText: 'THREE\n' }];
    const p = placeHunks(BASE, hunks, '\n');
    let text = p.text; // one two three THREE four five
    let placed = p.placed[0];
    const type = (change: TextChange) => {
      text = applyEdits(text, [{ range: change.range, newText: change.text }]);
      placed = follow(placed, change);
    };
    type({ range: r(0, 0, 0, 0), text: '# top\n' }); // above
    type({ range: r(5, 4, 5, 4), text: '!' }); // below: "four" -> "four!"
    type({ range: r(4, 5, 4, 5), text: ' 3' }); // inside the proposed line: "THREE 3"
    assert.equal(text, '# top\none\ntwo\nthree\nTHREE 3\nfour!\nfive\n');
    assert.deepEqual(placed.removed, r(3, 0, 4, 0));
    assert.deepEqual(placed.added, r(4, 0, 5, 0));
    const accepted = applyEdits(text, [acceptEdit(placed)]);
    assert.equal(accepted, '# top\none\ntwo\nTHREE 3\nfour!\nfive\n');
    assert.equal(applyEdits(text, [rejectEdit(placed)]), '# top\none\ntwo\nthree\nfour!\nfive\n');
    assert.equal(applyEdits(text, handBackEdits([{ placed, fate: 'pending' }])), '# top\none\ntwo\nthree\nfour!\nfive\n');
  });

  it('keeps text typed at the start of the first proposed line whatever the decision', () => {
    const hunks: HunkText[] = [{ range: r(1, 0, 2, 0), newText: 'TWO\n' }];
    const p = placeHunks(BASE, hunks, '\n');
    const change = { range: r(2, 0, 2, 0), text: 'new line\n' };
    const text = applyEdits(p.text, [{ range: change.range, newText: change.text }]);
    const placed = follow(p.placed[0], change);
    assert.equal(applyEdits(text, [acceptEdit(placed)]), 'one\nnew line\nTWO\nthree\nfour\nfive\n');
    assert.equal(applyEdits(text, [rejectEdit(placed)]), 'one\ntwo\nnew line\nthree\nfour\nfive\n');
  });

  it('decidedText applies the decisions the buffer does not show yet', () => {
    const hunks: HunkText[] = [
      { range: r(0, 0, 1, 0), newText: 'ONE\n' },
      { range: r(3, 0, 4, 0), newText: 'FOUR\n' },
    ];
    const p = placeHunks(BASE, hunks, '\n');
    const out = decidedText(p.text, [
      { placed: p.placed[0], shown: 'pending', state: 'accepted' },
      { placed: p.placed[1], shown: 'pending', state: 'rejected' },
    ]);
    assert.equal(out, 'ONE\ntwo\nthree\nfour\nfive\n');
  });
});
