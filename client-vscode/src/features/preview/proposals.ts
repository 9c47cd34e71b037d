/**
 * The `karyi-proposal:` documents: a proposed file's text as the preview would leave it
 * (the buffer with every hunk not rejected applied), for a created file's preview and
 * the diff view; `#original` is the file's text before the inline lines were put in.
 */
import * as vscode from 'vscode';
import { applyEdits } from './hunks';
import type { InlineBuffer } from './inlineBuffer';
import type { CallView, FileView } from './model';
import { PROPOSAL_SCHEME } from './scheme';

/** Serves the `karyi-proposal:` scheme from the calls the preview shows. */
export class ProposalDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly registration: vscode.Disposable;

  constructor(
    private readonly call: (callId: string) => CallView | undefined,
    private readonly inline: InlineBuffer,
  ) {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(PROPOSAL_SCHEME, this);
  }

  /** The document of file `f` of `call`. */
  static uri(call: CallView, f: FileView): vscode.Uri {
    return vscode.Uri.from({ scheme: PROPOSAL_SCHEME, path: '/' + f.proposal.path, query: call.callId });
  }

  /** The document of file `f` changed (the user typed in the file). */
  fire(call: CallView, f: FileView): void {
    this.changed.fire(ProposalDocuments.uri(call, f));
  }

  /** The proposed text: the current buffer with every hunk not rejected applied. */
  proposedText(f: FileView): string {
    if (f.modified !== undefined) return f.modified;
    if (f.proposal.created) return f.proposal.proposed;
    const inline = this.inline.proposed(f);
    if (inline !== undefined) return inline;
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === f.key);
    if (!doc) return f.proposal.proposed;
    const hunks = f.hunks.filter((h) => h.state !== 'rejected').map((h) => ({ range: h.range, newText: h.newText }));
    return applyEdits(doc.getText(), hunks);
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    const call = this.call(uri.query);
    const f = call?.files.find((x) => '/' + x.proposal.path === uri.path);
    if (f && uri.fragment === 'original') return this.inline.original(f) ?? '';
    return f ? this.proposedText(f) : '(this proposal is no longer pending)';
  }

  dispose(): void {
    this.registration.dispose();
    this.changed.dispose();
  }
}
