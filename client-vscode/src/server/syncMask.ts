/**
 * Documents the server must not see change for a while: those showing the draft of an
 * edit the model is still writing (docs/vscode.md, "Edits while they are written"). The
 * draft's lines are put into the buffer, but the server goes on seeing the text from
 * before them, so the proposal it works out when the call is complete is made on the
 * file's own text. When the draft is taken out, one change brings the server up to the
 * buffer (the user's typing meanwhile included). A leaf: nothing here imports the rest.
 */
import type { Position } from '../protocol';

/** What the server last saw of each masked document (by URI string). */
const seen = new Map<string, string>();

/** Stop telling the server about `uri`'s changes; `text` is what it has now. */
export function mask(uri: string, text: string): void {
  if (!seen.has(uri)) seen.set(uri, text);
}

/** True while the server must not see `uri`'s changes. */
export function isMasked(uri: string): boolean {
  return seen.has(uri);
}

/** Tell the server about `uri` again: the change from what it saw to `text`, if any. */
export function unmask(uri: string, text: string): { range: { start: Position; end: Position }; text: string } | undefined {
  const before = seen.get(uri);
  seen.delete(uri);
  if (before === undefined || before === text) return undefined;
  return { range: { start: { line: 0, character: 0 }, end: endOf(before) }, text };
}

/** The position after the last character of `text` (LSP: UTF-16 units, any line break). */
export function endOf(text: string): Position {
  const lines = text.split(/\r\n|\r|\n/);
  return { line: lines.length - 1, character: lines[lines.length - 1].length };
}
