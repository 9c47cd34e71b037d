/**
 * Pure logic of inline edit previews: keeping hunk ranges on the right lines while the
 * user types, applying hunks to a text, and turning per-hunk decisions into the
 * `karyi/confirmTool` answer. No vscode import: unit-tested in plain Node.
 */
import type { ConfirmParams, Position, Range } from '../../protocol';

/** One edit of the document, as VS Code reports it (`contentChanges`). */
export interface TextChange {
  range: Range;
  text: string;
}

export function comparePos(a: Position, b: Position): number {
  return a.line - b.line || a.character - b.character;
}

/** Where the end of `text` lands when it is inserted at `start`. */
export function endOfInsert(start: Position, text: string): Position {
  const lines = text.split(/\r\n|\r|\n/);
  if (lines.length === 1) return { line: start.line, character: start.character + text.length };
  return { line: start.line + lines.length - 1, character: lines[lines.length - 1].length };
}

/** A position at or after `change.range.end`, moved by the change. */
function shift(p: Position, change: TextChange, newEnd: Position): Position {
  const end = change.range.end;
  if (p.line === end.line) return { line: newEnd.line, character: newEnd.character + (p.character - end.character) };
  return { line: p.line + (newEnd.line - end.line), character: p.character };
}

export interface MappedRange {
  range: Range;
  /** The change edited text inside the range (the user changed the hunk's own lines). */
  touched: boolean;
}

/**
 * `range` after `change`. A change before the range moves it; a change after it leaves
 * it; a change overlapping it (or inserting strictly inside it) stretches it to cover
 * the new text and marks it touched.
 */
export function mapRange(range: Range, change: TextChange): MappedRange {
  const cs = change.range.start;
  const ce = change.range.end;
  const newEnd = endOfInsert(cs, change.text);
  if (comparePos(ce, range.start) <= 0) {
    return { range: { start: shift(range.start, change, newEnd), end: shift(range.end, change, newEnd) }, touched: false };
  }
  if (comparePos(cs, range.end) >= 0) return { range, touched: false };
  const start = comparePos(range.start, cs) <= 0 ? range.start : cs;
  const end = comparePos(range.end, ce) >= 0 ? shift(range.end, change, newEnd) : newEnd;
  return { range: { start, end }, touched: true };
}

/** `range` after several changes applied one after the other (VS Code's order). */
export function mapRangeThrough(range: Range, changes: readonly TextChange[]): MappedRange {
  let touched = false;
  let r = range;
  // VS Code reports the changes of one event against the document before the event,
  // sorted so that applying them last-to-first keeps earlier offsets valid.
  const ordered = [...changes].sort((a, b) => comparePos(b.range.start, a.range.start));
  for (const c of ordered) {
    const m = mapRange(r, c);
    r = m.range;
    touched ||= m.touched;
  }
  return { range: r, touched };
}

/** Offsets of the starts of the lines of `text` (UTF-16, as LSP positions count). */
export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 13 /* \r */) {
      if (text.charCodeAt(i + 1) === 10) i++;
      starts.push(i + 1);
    } else if (ch === 10) starts.push(i + 1);
  }
  return starts;
}

export function offsetAt(starts: number[], textLength: number, p: Position): number {
  if (p.line >= starts.length) return textLength;
  return Math.min(starts[p.line] + p.character, p.line + 1 < starts.length ? starts[p.line + 1] : textLength);
}

/** `text` with the edits applied (their ranges are on `text`; they must not overlap). */
export function applyEdits(text: string, edits: readonly { range: Range; newText: string }[]): string {
  const starts = lineStarts(text);
  const withOffsets = edits.map((e) => ({
    from: offsetAt(starts, text.length, e.range.start),
    to: offsetAt(starts, text.length, e.range.end),
    newText: e.newText,
  }));
  withOffsets.sort((a, b) => b.from - a.from);
  let out = text;
  for (const e of withOffsets) out = out.slice(0, e.from) + e.newText + out.slice(e.to);
  return out;
}

export type HunkState = 'pending' | 'accepted' | 'rejected';

export interface HunkDecision {
  id: string;
  state: HunkState;
}

export interface FileDecision {
  path: string;
  hunks: HunkDecision[];
  /** The user's own final text (they edited the proposal). */
  modified?: string;
  /** The file went away while previewed: nothing of it can be accepted. */
  gone?: boolean;
}

/** Every hunk of every file has been decided (or the file is gone). */
export function allDecided(files: readonly FileDecision[]): boolean {
  return files.every((f) => f.gone || f.modified !== undefined || f.hunks.every((h) => h.state !== 'pending'));
}

/**
 * The `karyi/confirmTool` fields for the decisions: everything accepted → `allowOnce`
 * (no `acceptedHunks`); nothing → `reject`; otherwise `allowOnce` with the accepted
 * ids (`PATH#hN` when the call changes several files) and `modifiedContent` for the
 * files the user rewrote. Undecided hunks count as accepted (Accept All semantics).
 */
export function confirmation(files: readonly FileDecision[]): Pick<ConfirmParams, 'outcome' | 'acceptedHunks' | 'modifiedContent'> {
  const several = files.length > 1;
  const accepted: string[] = [];
  let total = 0;
  const modified: { uri: string; text: string }[] = [];
  for (const f of files) {
    if (f.modified !== undefined && !f.gone) modified.push({ uri: f.path, text: f.modified });
    for (const h of f.hunks) {
      total++;
      if (!f.gone && h.state !== 'rejected') accepted.push(several ? `${f.path}#${h.id}` : h.id);
    }
  }
  const hasModified = modified.length > 0;
  if (accepted.length === 0 && !hasModified) return { outcome: 'reject' };
  const out: Pick<ConfirmParams, 'outcome' | 'acceptedHunks' | 'modifiedContent'> = { outcome: 'allowOnce' };
  if (accepted.length !== total) out.acceptedHunks = accepted;
  if (hasModified) out.modifiedContent = modified;
  return out;
}

/** The lines a hunk removes and adds, for rendering it. */
export function hunkLines(currentText: string, range: Range, newText: string): { removed: string[]; added: string[] } {
  const lines = currentText.split(/\r\n|\r|\n/);
  const last = range.end.character === 0 && range.end.line > range.start.line ? range.end.line - 1 : range.end.line;
  const removed = comparePos(range.start, range.end) === 0 ? [] : lines.slice(range.start.line, last + 1);
  const added = newText === '' ? [] : newText.replace(/(\r\n|\r|\n)$/, '').split(/\r\n|\r|\n/);
  return { removed, added };
}
