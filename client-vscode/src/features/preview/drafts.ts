/**
 * Editing a proposal in a draft: an untitled editor with the proposed text, whose
 * "Use this version" makes the user's text the answer for that file (`modifiedContent`).
 */
import * as vscode from 'vscode';
import type { PreviewManager } from './manager';
import type { FileView } from './model';

/** The user edits the proposal: an untitled editor with the proposed text. */
export async function editProposal(m: PreviewManager, callId: string, key: string): Promise<void> {
  const found = m.find(callId, key);
  const f = found?.[1];
  if (!found || !f) return;
  const source = vscode.workspace.textDocuments.find((d) => d.uri.toString() === f.key);
  const draft = await vscode.workspace.openTextDocument({ content: m.documents.proposedText(f), language: source?.languageId });
  f.draft = draft;
  await vscode.window.showTextDocument(draft, { viewColumn: vscode.ViewColumn.Beside, preview: false });
  m.lensChanged.fire();
}

/** The draft's text becomes the answer for its file. */
export async function useDraft(m: PreviewManager, callId: string, key: string): Promise<void> {
  const found = m.find(callId, key);
  const f = found?.[1];
  if (!found || !f?.draft) return;
  f.modified = f.draft.getText();
  await closeDraft(m, f);
  m.setFileState(found[0], f);
  await m.maybeSend(found[0]);
}

export async function discardDraft(m: PreviewManager, callId: string, key: string): Promise<void> {
  const f = m.find(callId, key)?.[1];
  if (f?.draft) await closeDraft(m, f);
}

async function closeDraft(m: PreviewManager, f: FileView): Promise<void> {
  const draft = f.draft;
  f.draft = undefined;
  m.lensChanged.fire();
  if (!draft) return;
  const editor = vscode.window.visibleTextEditors.find((e) => e.document === draft);
  if (editor) {
    await vscode.window.showTextDocument(draft, { viewColumn: editor.viewColumn, preserveFocus: false });
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
  }
}
