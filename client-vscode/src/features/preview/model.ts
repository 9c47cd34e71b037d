/** What the preview keeps of each proposed edit: calls, their files, their hunks. */
import * as vscode from 'vscode';
import type { ConfirmParams, FileProposal, Range } from '../../protocol';
import type { HunkState } from './hunks';
import type { Placed } from './inline';

export interface HunkView {
  id: string;
  range: Range;
  newText: string;
  state: HunkState;
  touched: boolean;
  /** Where the hunk is shown as real lines in the buffer (docs/vscode.md, "Inline diffs"). */
  placed?: Placed;
  /** What the buffer shows of the hunk: its decision once that decision was applied. */
  shown: HunkState;
}

export interface FileView {
  proposal: FileProposal;
  uri: vscode.Uri;
  key: string;
  hunks: HunkView[];
  modified?: string;
  gone?: boolean;
  closed?: boolean;
  draft?: vscode.TextDocument;
  /** The proposal is in the buffer as real lines (until it is handed back). */
  inline?: boolean;
}

export interface CallView {
  sessionId: string;
  callId: string;
  files: FileView[];
  sent: boolean;
}

/** The preview's view of proposed files, every hunk pending. */
export function fileViews(proposals: readonly FileProposal[]): FileView[] {
  return proposals.map((p) => {
    const uri = vscode.Uri.parse(p.uri);
    const hunks = p.hunks.map((h) => ({ id: h.id, range: h.range, newText: h.newText, state: 'pending' as HunkState, shown: 'pending' as HunkState, touched: false }));
    return { proposal: p, uri, key: uri.toString(), hunks };
  });
}

/** Where the answer to a preview that is not a turn's goes (a background task's review). */
export type ReviewAnswer = (answer: Omit<ConfirmParams, 'sessionId'>) => Promise<boolean>;

export const toVs = (r: Range) => new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character);
