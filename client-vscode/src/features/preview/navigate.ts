/**
 * The keyboard side of inline previews: which pending hunk the cursor is on (or the next
 * one after it), and moving between hunks, for the Accept / Reject / Next / Previous
 * hunk keys (docs/vscode.md, "Inline diffs").
 */
import * as vscode from 'vscode';
import { coveredLines } from './inline';
import type { CallView, FileView, HunkView } from './model';

export type HunkRef = [CallView, FileView, HunkView];

/** The first and last line of a pending hunk as the buffer shows it. */
export function hunkSpan(h: HunkView): { first: number; last: number } {
  const p = h.placed;
  if (!p) return coveredLines(h.range) ?? { first: h.range.start.line, last: h.range.start.line };
  const a = coveredLines(p.removed);
  const b = coveredLines(p.added);
  const first = Math.min(a?.first ?? Infinity, b?.first ?? Infinity);
  const last = Math.max(a?.last ?? -Infinity, b?.last ?? -Infinity);
  return Number.isFinite(first) ? { first, last } : { first: p.removed.start.line, last: p.removed.start.line };
}

/** The pending hunks of `views`, top to bottom. */
export function pendingHunks(views: [CallView, FileView][]): HunkRef[] {
  const out: HunkRef[] = [];
  for (const [call, f] of views) for (const h of f.hunks) if (h.state === 'pending') out.push([call, f, h]);
  return out.sort((x, y) => hunkSpan(x[2]).first - hunkSpan(y[2]).first);
}

/** The hunk under `line`, else the first one below it, else the first one. */
export function hunkAt(hunks: HunkRef[], line: number): HunkRef | undefined {
  return hunks.find((r) => hunkSpan(r[2]).first <= line && line <= hunkSpan(r[2]).last) ?? hunks.find((r) => hunkSpan(r[2]).first > line) ?? hunks[0];
}

/** The hunk after (or before) the one at `line`, wrapping around. */
export function hunkAfter(hunks: HunkRef[], line: number, direction: 1 | -1): HunkRef | undefined {
  if (!hunks.length) return undefined;
  if (direction === 1) return hunks.find((r) => hunkSpan(r[2]).first > line) ?? hunks[0];
  return [...hunks].reverse().find((r) => hunkSpan(r[2]).first < line) ?? hunks[hunks.length - 1];
}

/** Put the cursor on the first line of `ref` and show it. */
export function revealHunk(editor: vscode.TextEditor, ref: HunkRef | undefined): void {
  if (!ref) return;
  const line = Math.min(hunkSpan(ref[2]).first, editor.document.lineCount - 1);
  const pos = new vscode.Position(line, 0);
  editor.selection = new vscode.Selection(pos, pos);
  editor.revealRange(new vscode.Range(pos, pos), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
}
