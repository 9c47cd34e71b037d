/** What the preview keeps of each proposed edit: calls, their files, their hunks. */
import * as vscode from 'vscode';
import type { FileProposal, Range } from '../protocol';
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

export const toVs = (r: Range) => new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character);
