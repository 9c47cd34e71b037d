/**
 * The "Changes" view: every file and hunk the running turn proposes and the user has not
 * decided yet, with the same actions as the editor's lenses (Accept / Reject per hunk
 * and per file, Accept all / Reject all on the view's title) and a click that shows the
 * hunk in its editor (docs/vscode.md, "Inline diffs").
 */
import * as vscode from 'vscode';
import type { PreviewManager } from '../../features/preview/manager';
import { hunkSpan, revealHunk } from '../../features/preview/navigate';
import type { CallView, FileView, HunkView } from '../../features/preview/model';

export const CHANGES_VIEW_ID = 'karyi.changes';

export type ChangeNode =
  | { kind: 'file'; call: CallView; file: FileView }
  | { kind: 'hunk'; call: CallView; file: FileView; hunk: HunkView; index: number };

function hunkCounts(h: HunkView): string {
  const added = h.newText === '' ? 0 : h.newText.replace(/(\r\n|\r|\n)$/, '').split(/\r\n|\r|\n/).length;
  const removed = h.placed ? (h.placed.original === '' ? 0 : h.placed.original.replace(/(\r\n|\r|\n)$/, '').split(/\r\n|\r|\n/).length) : h.range.end.line - h.range.start.line;
  return `+${added} −${removed}`;
}

export class ChangesView implements vscode.TreeDataProvider<ChangeNode>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<ChangeNode | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly previews: PreviewManager) {
    this.disposables.push(
      this.emitter,
      previews.onDidChangePending(() => this.emitter.fire(undefined)),
      vscode.window.registerTreeDataProvider(CHANGES_VIEW_ID, this),
      vscode.commands.registerCommand('karyi.changes.accept', (n: ChangeNode) => this.decide(n, 'accepted')),
      vscode.commands.registerCommand('karyi.changes.reject', (n: ChangeNode) => this.decide(n, 'rejected')),
      vscode.commands.registerCommand('karyi.changes.reveal', (n: ChangeNode) => this.reveal(n)),
    );
  }

  getChildren(node?: ChangeNode): ChangeNode[] {
    if (!node) {
      return this.previews.pending().flatMap((call) =>
        call.files.filter((f) => !f.gone && f.hunks.some((h) => h.state === 'pending')).map((file) => ({ kind: 'file' as const, call, file })),
      );
    }
    if (node.kind === 'hunk') return [];
    return node.file.hunks.flatMap((hunk, index) => (hunk.state === 'pending' ? [{ kind: 'hunk' as const, call: node.call, file: node.file, hunk, index }] : []));
  }

  getTreeItem(node: ChangeNode): vscode.TreeItem {
    if (node.kind === 'file') {
      const pending = node.file.hunks.filter((h) => h.state === 'pending').length;
      const item = new vscode.TreeItem(node.file.proposal.path, vscode.TreeItemCollapsibleState.Expanded);
      item.resourceUri = node.file.uri;
      item.description = `${pending} of ${node.file.hunks.length} to review`;
      item.contextValue = 'file';
      item.command = { title: 'Show', command: 'karyi.changes.reveal', arguments: [node] };
      return item;
    }
    const span = hunkSpan(node.hunk);
    const item = new vscode.TreeItem(`Hunk ${node.index + 1}: line ${span.first + 1}`, vscode.TreeItemCollapsibleState.None);
    item.description = hunkCounts(node.hunk) + (node.hunk.touched ? ' · you edited here' : '');
    item.contextValue = 'hunk';
    item.command = { title: 'Show', command: 'karyi.changes.reveal', arguments: [node] };
    return item;
  }

  private async decide(node: ChangeNode, state: 'accepted' | 'rejected'): Promise<void> {
    if (node.kind === 'hunk') await this.previews.decideHunk(node.call.callId, node.file.key, node.hunk.id, state);
    else await this.previews.decideFile(node.call.callId, node.file.key, state);
  }

  private async reveal(node: ChangeNode): Promise<void> {
    await this.previews.reveal(node.call.callId, node.file.proposal.path);
    const editor = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === node.file.key);
    if (editor && node.kind === 'hunk') revealHunk(editor, [node.call, node.file, node.hunk]);
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
