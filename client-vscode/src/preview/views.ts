/** What the preview keeps of each proposed edit: calls, their files, their hunks. */
import * as vscode from 'vscode';
import type { FileProposal, Range } from '../protocol';
import type { HunkState } from './hunks';

export interface HunkView {
  id: string;
  range: Range;
  newText: string;
  state: HunkState;
  touched: boolean;
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
}

export interface CallView {
  sessionId: string;
  callId: string;
  files: FileView[];
  sent: boolean;
}

export const toVs = (r: Range) => new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character);
