/**
 * The geometry of inline diffs shown as real lines (docs/vscode.md, "Inline diffs"): a
 * hunk's proposed lines are inserted into the buffer right below the lines it removes,
 * so the editor colours them like any code; the removed lines stay, marked red. Accept
 * deletes the red lines, Reject the green ones: each one edit, so one undo step. Before
 * the answer goes to the server the buffer is handed back as it was plus the user's own
 * typing (the server applies the accepted hunks itself). No vscode import: unit-tested
 * in plain Node.
 */
import type { Position, Range } from '../../protocol';
import { applyEdits, comparePos, lineStarts, offsetAt } from './hunks';

/**
 * Where one hunk sits in the buffer while it is shown. `removed` holds the lines it
 * replaces (as they were), `added` its proposed lines; between them there may be a line
 * break the preview added (`sep`: a hunk that ends on a last line without one). Text the
 * user types at the boundary (the start of the first proposed line) belongs to neither
 * and survives either decision.
 */
export interface Placed {
  removed: Range;
  added: Range;
  /** The text `removed` held when the preview was placed. */
  original: string;
  /** A line break was put between `removed` and `added`. */
  sep: boolean;
}

export interface Placement {
  /** The buffer text with every hunk's proposed lines inserted. */
  text: string;
  /** The insertions, on the text before (what to apply to the editor). */
  inserts: { at: Position; text: string }[];
  /** Per hunk, in the order given. */
  placed: Placed[];
}

export interface HunkText {
  range: Range;
  newText: string;
}

/** The position of offset `off` in a text whose line starts are `starts`. */
export function positionAt(starts: readonly number[], off: number): Position {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= off) lo = mid;
    else hi = mid - 1;
  }
  return { line: lo, character: off - starts[lo] };
}

/** `text` with its line breaks written as `eol`. */
export function withEol(text: string, eol: string): string {
  return text.replace(/\r\n|\r|\n/g, eol);
}

/**
 * Insert each hunk's proposed text below the lines it removes. Ranges must not overlap
 * (a diff's hunks never do). `eol` is the document's line break.
 */
export function placeHunks(text: string, hunks: readonly HunkText[], eol: string): Placement {
  const starts = lineStarts(text);
  const order = hunks.map((_, i) => i).sort((a, b) => comparePos(hunks[a].range.start, hunks[b].range.start));
  const spans: { rs: number; re: number; sep: string; ins: string }[] = new Array(hunks.length);
  const inserts: { at: Position; text: string }[] = [];
  let out = '';
  let cursor = 0;
  let delta = 0;
  const offsets: [number, number, number, number][] = new Array(hunks.length);
  for (const i of order) {
    const h = hunks[i];
    const rs = offsetAt(starts, text.length, h.range.start);
    const re = offsetAt(starts, text.length, h.range.end);
    const ins = withEol(h.newText, eol);
    // A hunk ending inside a line (the file's last line has no line break) gets one
    // before its proposed lines, so they start on a line of their own.
    const last = text.charCodeAt(re - 1);
    const sep = re > 0 && last !== 10 && last !== 13 && ins !== '' ? eol : '';
    spans[i] = { rs, re, sep, ins };
    out += text.slice(cursor, re) + sep + ins;
    cursor = re;
    offsets[i] = [rs + delta, re + delta, re + delta + sep.length, re + delta + sep.length + ins.length];
    delta += sep.length + ins.length;
    if (sep || ins) inserts.push({ at: h.range.end, text: sep + ins });
  }
  out += text.slice(cursor);
  const outStarts = lineStarts(out);
  const pos = (o: number) => positionAt(outStarts, o);
  const placed = hunks.map((_, i) => {
    const [a, b, c, d] = offsets[i];
    return { removed: { start: pos(a), end: pos(b) }, added: { start: pos(c), end: pos(d) }, original: text.slice(spans[i].rs, spans[i].re), sep: spans[i].sep !== '' };
  });
  return { text: out, inserts, placed };
}

/** The edit that accepts a placed hunk (delete what it removes). */
export function acceptEdit(p: Placed): { range: Range; newText: string } {
  return { range: { start: p.removed.start, end: p.sep ? p.added.start : p.removed.end }, newText: '' };
}

/** The edit that rejects a placed hunk (delete what it proposed). */
export function rejectEdit(p: Placed): { range: Range; newText: string } {
  return { range: { start: p.sep ? p.removed.end : p.added.start, end: p.added.end }, newText: '' };
}

export type Fate = 'pending' | 'accepted' | 'rejected';

/**
 * The edits that take the buffer back to the text before the preview plus whatever the
 * user typed outside the hunks: a pending hunk loses its proposed lines, an accepted
 * one gets its original lines back, a rejected one is already so.
 */
export function handBackEdits(hunks: readonly { placed: Placed; fate: Fate }[]): { range: Range; newText: string }[] {
  const edits: { range: Range; newText: string }[] = [];
  for (const { placed, fate } of hunks) {
    if (fate === 'pending') edits.push(rejectEdit(placed));
    else if (fate === 'accepted') edits.push({ range: placed.added, newText: placed.original });
  }
  return edits;
}

/**
 * The text the user will have once every decision is shown: `shown` is what the buffer
 * reflects of a hunk, `state` what the user decided (Accept all decides without editing).
 */
export function decidedText(text: string, hunks: readonly { placed: Placed; shown: Fate; state: Fate }[]): string {
  const edits = hunks
    .filter((h) => h.shown === 'pending' && h.state !== 'pending')
    .map((h) => (h.state === 'accepted' ? acceptEdit(h.placed) : rejectEdit(h.placed)));
  return applyEdits(text, edits);
}

/** The whole lines a range covers, for whole-line decorations (`end` exclusive). */
export function coveredLines(r: Range): { first: number; last: number } | undefined {
  if (comparePos(r.start, r.end) === 0) return undefined;
  const last = r.end.character === 0 ? r.end.line - 1 : r.end.line;
  return last < r.start.line ? undefined : { first: r.start.line, last };
}
