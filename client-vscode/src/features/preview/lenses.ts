/**
 * The CodeLens of a preview: a summary with Accept all / Reject all / Edit / Diff on top
 * of a file, Accept / Reject on each hunk, and Accept / Reject on a proposal document
 * or a draft the user is editing.
 */
import * as vscode from 'vscode';
import { KEYS } from './keys';
import { PROPOSAL_SCHEME } from './scheme';
import type { CallView, FileView, HunkView } from './model';

/** The line a hunk's lenses sit on: its first removed line, else its first proposed one. */
function hunkLine(h: HunkView, doc: vscode.TextDocument): number {
  const p = h.placed;
  let line = h.range.start.line;
  if (p) {
    const empty = (r: typeof p.removed) => r.start.line === r.end.line && r.start.character === r.end.character;
    if (h.shown === 'accepted' || (h.shown === 'pending' && empty(p.removed))) line = p.added.start.line;
    else line = p.removed.start.line;
  }
  return Math.min(line, Math.max(doc.lineCount - 1, 0));
}

/** The lenses of `doc`, given every call and the views of `doc` still pending. */
export function lensesFor(doc: vscode.TextDocument, calls: CallView[], views: [CallView, FileView][]): vscode.CodeLens[] {
  const lenses: vscode.CodeLens[] = [];
  if (doc.uri.scheme === 'untitled') {
    for (const call of calls) {
      for (const f of call.files) {
        if (f.draft === doc && !call.sent) {
          const top = new vscode.Range(0, 0, 0, 0);
          lenses.push(new vscode.CodeLens(top, { title: `$(check) Use this version of ${f.proposal.path}`, command: 'karyi.useDraft', arguments: [call.callId, f.key] }));
          lenses.push(new vscode.CodeLens(top, { title: 'Discard', command: 'karyi.discardDraft', arguments: [call.callId, f.key] }));
        }
      }
    }
    return lenses;
  }
  if (doc.uri.scheme === PROPOSAL_SCHEME) {
    const call = calls.find((c) => c.callId === doc.uri.query);
    const f = call?.files.find((x) => '/' + x.proposal.path === doc.uri.path);
    if (call && f && !call.sent) {
      const top = new vscode.Range(0, 0, 0, 0);
      const what = f.proposal.created ? 'new file' : 'proposal';
      lenses.push(new vscode.CodeLens(top, { title: `$(check) Accept ${what}`, command: 'karyi.acceptFile', arguments: [call.callId, f.key] }));
      lenses.push(new vscode.CodeLens(top, { title: '$(close) Reject', command: 'karyi.rejectFile', arguments: [call.callId, f.key] }));
    }
    return lenses;
  }
  for (const [call, f] of views) {
    const pending = f.hunks.filter((h) => h.state === 'pending').length;
    const top = new vscode.Range(0, 0, 0, 0);
    lenses.push(new vscode.CodeLens(top, { title: `Karyi: ${pending} of ${f.hunks.length} change${f.hunks.length === 1 ? '' : 's'} to review`, command: '' }));
    lenses.push(new vscode.CodeLens(top, { title: `Accept all (${KEYS.acceptAll})`, command: 'karyi.acceptAll', arguments: [call.callId] }));
    lenses.push(new vscode.CodeLens(top, { title: `Reject all (${KEYS.rejectAll})`, command: 'karyi.rejectAll', arguments: [call.callId] }));
    lenses.push(new vscode.CodeLens(top, { title: 'Edit proposal', command: 'karyi.editProposal', arguments: [call.callId, f.key] }));
    lenses.push(new vscode.CodeLens(top, { title: 'Diff', command: 'karyi.showProposalDiff', arguments: [call.callId, f.key] }));
    f.hunks.forEach((h, i) => {
      const line = hunkLine(h, doc);
      const at = new vscode.Range(line, 0, line, 0);
      if (h.state !== 'pending') {
        lenses.push(new vscode.CodeLens(at, { title: `Hunk ${i + 1}: ${h.state}`, command: '' }));
        return;
      }
      const label = `Hunk ${i + 1}/${f.hunks.length}${h.touched ? ' (you edited here)' : ''}:`;
      lenses.push(new vscode.CodeLens(at, { title: label, command: '' }));
      lenses.push(new vscode.CodeLens(at, { title: `Accept (${KEYS.acceptHunk})`, command: 'karyi.acceptHunk', arguments: [call.callId, f.key, h.id] }));
      lenses.push(new vscode.CodeLens(at, { title: `Reject (${KEYS.rejectHunk})`, command: 'karyi.rejectHunk', arguments: [call.callId, f.key, h.id] }));
    });
  }
  return lenses;
}
