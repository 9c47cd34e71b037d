/**
 * The CodeLens of a preview: a summary with Accept all / Reject all / Edit / Diff on top
 * of a file, Accept / Reject on each hunk, and Accept / Reject on a proposal document
 * or a draft the user is editing.
 */
import * as vscode from 'vscode';
import { PROPOSAL_SCHEME } from './scheme';
import type { CallView, FileView } from './views';

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
    lenses.push(new vscode.CodeLens(top, { title: 'Accept all', command: 'karyi.acceptAll', arguments: [call.callId] }));
    lenses.push(new vscode.CodeLens(top, { title: 'Reject all', command: 'karyi.rejectAll', arguments: [call.callId] }));
    lenses.push(new vscode.CodeLens(top, { title: 'Edit proposal', command: 'karyi.editProposal', arguments: [call.callId, f.key] }));
    lenses.push(new vscode.CodeLens(top, { title: 'Diff', command: 'karyi.showProposalDiff', arguments: [call.callId, f.key] }));
    f.hunks.forEach((h, i) => {
      const line = Math.min(h.range.start.line, Math.max(doc.lineCount - 1, 0));
      const at = new vscode.Range(line, 0, line, 0);
      if (h.state !== 'pending') {
        lenses.push(new vscode.CodeLens(at, { title: `Hunk ${i + 1}: ${h.state}`, command: '' }));
        return;
      }
      const label = `Hunk ${i + 1}/${f.hunks.length}${h.touched ? ' (you edited here)' : ''}:`;
      lenses.push(new vscode.CodeLens(at, { title: label, command: '' }));
      lenses.push(new vscode.CodeLens(at, { title: 'Accept', command: 'karyi.acceptHunk', arguments: [call.callId, f.key, h.id] }));
      lenses.push(new vscode.CodeLens(at, { title: 'Reject', command: 'karyi.rejectHunk', arguments: [call.callId, f.key, h.id] }));
    });
  }
  return lenses;
}
