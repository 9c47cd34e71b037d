/**
 * Inline edit previews. A proposed edit (a `toolAwaitingPermission` whose confirmation
 * lists `files`) opens each file without taking focus and shows each hunk as real lines:
 * its proposed lines are inserted below the lines it removes (green and red; see
 * `inlineBuffer.ts`), with Accept / Reject CodeLens and keys on every hunk and a diff
 * view on demand. The hunks follow the user's own typing. When every hunk is decided
 * (or on Accept all / Reject all) the buffer is handed back as it was plus the user's
 * typing and the answer goes to the server with `karyi/confirmTool` (a task's review: to
 * `karyi/applyTask`); the server applies the accepted hunks (docs/vscode.md, "Inline diffs").
 */
import * as vscode from 'vscode';
import type { FileProposal, TurnUpdate } from '../../protocol';
import { saveSynced } from '../../server/saver';
import type { FileState } from '../../shared/chat/state';
import { fileState, PendingCalls } from './calls';
import { allDecided, confirmation, type FileDecision, type HunkState, mapRangeThrough } from './hunks';
import { heldVersions, InlineBuffer } from './inlineBuffer';
import { hunkAfter, hunkAt, pendingHunks, revealHunk } from './navigate';
import { lensesFor } from './lenses';
import { type CallView, type FileView, fileViews, type ReviewAnswer } from './model';
import { PreviewPainter } from './painter';
import { ProposalDocuments } from './proposals';
import { PROPOSAL_SCHEME } from './scheme';

/** A file's state in the chat's card changed (the chat subscribes: it does not import this). */
export interface FileStateChange {
  callId: string;
  path: string;
  state: FileState;
  note?: string;
}

export class PreviewManager implements vscode.CodeLensProvider, vscode.Disposable {
  private readonly calls = new PendingCalls();
  readonly lensChanged = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.lensChanged.event;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly painter = new PreviewPainter();
  readonly inline = new InlineBuffer();
  readonly documents = new ProposalDocuments((callId) => this.calls.get(callId), this.inline);
  private readonly fileStateChanged = new vscode.EventEmitter<FileStateChange>();
  /** Fires when a file of a pending call is decided, closed or gone (the chat's card shows it). */
  readonly onDidChangeFileState = this.fileStateChanged.event;
  private readonly shown = new Map<string, Promise<void>>();
  private readonly answers = new Map<string, ReviewAnswer>();
  private readonly changed = new vscode.EventEmitter<void>();
  /** Fires when a preview opens, a decision is made or a call is over (the Changes view). */
  readonly onDidChangePending = this.changed.event;
  /** Edits still being written (writing.ts): a proposal waits until their lines are out. */
  writing: { settled(): Promise<void> } | undefined;

  /** `confirm` answers a turn's call (`karyi/confirmTool`, the chat's); a review's answer
   * goes to the function given with it (`openReview`). */
  constructor(private readonly confirm: ReviewAnswer) {
    this.disposables.push(
      vscode.workspace.onDidChangeTextDocument((e) => this.onEdit(e)),
      vscode.window.onDidChangeVisibleTextEditors(() => this.paintAll()),
      vscode.window.onDidChangeActiveTextEditor(() => this.updateContext()),
      vscode.window.tabGroups.onDidChangeTabs((e) => this.onTabs(e)),
      vscode.workspace.onDidDeleteFiles((e) => e.files.forEach((u) => this.onDeleted(u))),
      vscode.languages.registerCodeLensProvider([{ scheme: 'file' }, { scheme: PROPOSAL_SCHEME }, { scheme: 'untitled' }], this),
      this.documents, this.painter, this.lensChanged, this.fileStateChanged, this.changed,
    );
  }

  /** A proposed edit arrived: show it. */
  open(sessionId: string, update: TurnUpdate): void {
    const ev = update.event;
    if (ev.type !== 'toolAwaitingPermission' || !ev.confirmation?.files?.length) return;
    this.show({ sessionId, callId: ev.call.id, files: fileViews(ev.confirmation.files), sent: false });
  }

  /** Proposals of no turn (a background task's, features/agents/review.ts): the answer goes to `answer`. */
  openReview(callId: string, proposals: readonly FileProposal[], answer: ReviewAnswer): void {
    this.answers.set(callId, answer);
    this.show({ sessionId: '', callId, files: fileViews(proposals), sent: false });
  }

  private show(call: CallView): void {
    this.calls.set(call.callId, call);
    for (const f of call.files) this.watchDeletion(call, f);
    this.shown.set(call.callId, this.showFiles(call));
  }

  /** Resolves once the call's files are open and its hunks shown (for tests). */
  async whenShown(callId: string): Promise<void> {
    await this.shown.get(callId);
  }

  private watchDeletion(call: CallView, f: FileView): void {
    if (f.proposal.created) return;
    const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.joinPath(f.uri, '..'), f.uri.path.split('/').pop() ?? ''), true, true, false);
    watcher.onDidDelete(() => this.onDeleted(f.uri));
    this.disposables.push(watcher);
    const stop = setInterval(() => {
      if (!this.calls.has(call.callId)) {
        watcher.dispose();
        clearInterval(stop);
      }
    }, 2000);
  }

  private async showFiles(call: CallView): Promise<void> {
    await this.writing?.settled();
    for (const f of call.files) {
      try {
        if (f.proposal.created) {
          await vscode.window.showTextDocument(this.proposalUri(call, f), { preserveFocus: true, preview: false });
        } else {
          await vscode.window.showTextDocument(f.uri, { preserveFocus: true, preview: false });
          if (!call.sent) await this.inline.place(f);
        }
      } catch (err) {
        this.setFileState(call, f, 'gone', `cannot open: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    this.paintAll();
    this.updateContext();
    this.changed.fire();
  }

  proposalUri(call: CallView, f: FileView): vscode.Uri {
    return ProposalDocuments.uri(call, f);
  }

  // ---- painting ------------------------------------------------------------------------

  private paintAll(): void {
    for (const editor of vscode.window.visibleTextEditors) this.paint(editor);
    this.lensChanged.fire();
  }

  private paint(editor: vscode.TextEditor): void {
    const files = this.calls.filesOf(editor.document.uri).map(([, f]) => f);
    for (const f of files) f.closed = false;
    this.painter.paint(editor, files);
  }

  private updateContext(): void {
    const uri = vscode.window.activeTextEditor?.document.uri;
    const active = !!uri && (this.calls.filesOf(uri).length > 0 || (uri.scheme === PROPOSAL_SCHEME && this.calls.has(uri.query)));
    void vscode.commands.executeCommand('setContext', 'karyi.previewActive', active);
    void vscode.commands.executeCommand('setContext', 'karyi.hasPendingEdits', [...this.calls.values()].some((c) => !c.sent));
  }

  provideCodeLenses(doc: vscode.TextDocument): vscode.CodeLens[] {
    return lensesFor(doc, [...this.calls.values()], this.calls.filesOf(doc.uri));
  }

  // ---- following the user ------------------------------------------------------------

  private onEdit(e: vscode.TextDocumentChangeEvent): void {
    if (!e.contentChanges.length) return;
    const views = this.calls.filesOf(e.document.uri);
    if (!views.length) return;
    for (const [call, f] of views) {
      if (f.inline) {
        this.inline.follow(f, e.contentChanges.map((c) => ({ range: c.range, text: c.text })));
        this.documents.fire(call, f);
        continue;
      }
      for (const h of f.hunks) {
        const m = mapRangeThrough(h.range, e.contentChanges.map((c) => ({ range: c.range, text: c.text })));
        h.range = m.range;
        h.touched ||= m.touched;
      }
      this.documents.fire(call, f);
    }
    for (const editor of vscode.window.visibleTextEditors) if (editor.document === e.document) this.paint(editor);
    this.lensChanged.fire();
  }

  private onTabs(e: vscode.TabChangeEvent): void {
    for (const tab of e.closed) {
      const input = tab.input;
      if (!(input instanceof vscode.TabInputText)) continue;
      const stillOpen = vscode.window.tabGroups.all.some((g) => g.tabs.some((t) => t.input instanceof vscode.TabInputText && t.input.uri.toString() === input.uri.toString()));
      if (stillOpen) continue;
      for (const [call, f] of this.calls.filesOf(input.uri)) {
        f.closed = true;
        this.setFileState(call, f, 'closed', 'the preview was closed; the decision is still yours (Show, or the buttons here)');
      }
    }
  }

  private onDeleted(uri: vscode.Uri): void {
    for (const [call, f] of this.calls.filesOf(uri)) {
      f.gone = true;
      this.setFileState(call, f, 'gone', 'the file was deleted while its edit was previewed; nothing of it will be applied');
      void vscode.window.showWarningMessage(`Karyi: ${f.proposal.path} was deleted while its proposed edit was open; that part of the edit is rejected.`);
      void this.maybeSend(call, `The user deleted ${f.proposal.path} while the edit was being reviewed.`);
    }
    this.paintAll();
  }

  // ---- decisions -----------------------------------------------------------------------

  /** The pending call `callId` and its file `key` (drafts.ts too). */
  find(callId: string, key?: string): [CallView, FileView | undefined] | undefined {
    return this.calls.find(callId, key);
  }

  setFileState(call: CallView, f: FileView, state?: FileState, note?: string): void {
    this.fileStateChanged.fire({ callId: call.callId, path: f.proposal.path, state: state ?? fileState(f), note });
  }

  async decideHunk(callId: string, key: string, hunkId: string, state: HunkState): Promise<void> {
    const found = this.find(callId, key);
    const f = found?.[1];
    const h = f?.hunks.find((x) => x.id === hunkId);
    if (!found || !f || !h || h.state !== 'pending') return;
    h.state = state;
    await this.inline.decide(f, h);
    this.setFileState(found[0], f);
    this.paintAll();
    this.changed.fire();
    await this.maybeSend(found[0]);
  }

  /** Accept or reject the hunk under the cursor (or the next one), then go to the next. */
  async decideAtCursor(state: HunkState): Promise<void> {
    const editor = vscode.window.activeTextEditor;
    if (!editor) return;
    const ref = hunkAt(pendingHunks(this.calls.filesOf(editor.document.uri)), editor.selection.active.line);
    if (!ref) return;
    await this.decideHunk(ref[0].callId, ref[1].key, ref[2].id, state);
    revealHunk(editor, hunkAt(pendingHunks(this.calls.filesOf(editor.document.uri)), editor.selection.active.line));
  }

  /** Move the cursor to the next (or previous) pending hunk of the active editor. */
  goToHunk(direction: 1 | -1): void {
    const editor = vscode.window.activeTextEditor;
    if (editor) revealHunk(editor, hunkAfter(pendingHunks(this.calls.filesOf(editor.document.uri)), editor.selection.active.line, direction));
  }

  async decideFile(callId: string, key: string, state: HunkState): Promise<void> {
    const found = this.find(callId, key);
    if (!found?.[1]) return;
    for (const h of found[1].hunks) {
      if (h.state !== 'pending') continue;
      h.state = state;
      await this.inline.decide(found[1], h);
    }
    this.setFileState(found[0], found[1]);
    this.paintAll();
    this.changed.fire();
    await this.maybeSend(found[0]);
  }

  async acceptAll(callId?: string): Promise<void> {
    const calls = this.calls.targets(callId);
    if (!calls.length && callId) {
      await this.confirm({ toolCallId: callId, outcome: 'allowOnce' });
      return;
    }
    for (const call of calls) {
      for (const f of call.files) for (const h of f.hunks) if (h.state === 'pending') h.state = 'accepted';
      await this.send(call);
    }
  }

  async rejectAll(callId?: string, feedback?: string): Promise<void> {
    const calls = this.calls.targets(callId);
    if (!calls.length && callId) {
      await this.confirm({ toolCallId: callId, outcome: 'reject', feedback });
      return;
    }
    for (const call of calls) {
      for (const f of call.files) for (const h of f.hunks) if (h.state === 'pending') h.state = 'rejected';
      await this.send(call, feedback);
    }
  }

  async maybeSend(call: CallView, feedback?: string): Promise<void> {
    if (!call.sent && allDecided(this.decisions(call))) await this.send(call, feedback);
  }

  private decisions(call: CallView): FileDecision[] {
    return call.files.map((f) => ({ path: f.proposal.path, hunks: f.hunks.map((h) => ({ id: h.id, state: h.state })), modified: f.modified, gone: f.gone }));
  }

  private async send(call: CallView, feedback?: string): Promise<void> {
    if (call.sent) return;
    call.sent = true;
    await this.shown.get(call.callId); // a preview still being placed lands before it is taken out
    const exact = new Set<FileView>();
    for (const f of call.files) {
      if (f.inline && f.modified === undefined && f.hunks.some((h) => h.touched && h.state === 'accepted')) {
        f.modified = this.inline.decided(f);
        exact.add(f);
      }
    }
    const held = call.files.filter((f) => f.inline); // the hand-back below clears `inline`
    await this.handBackCall(call, exact);
    const answer = confirmation(this.decisions(call));
    for (const f of call.files) this.setFileState(call, f);
    this.paintAll();
    this.updateContext();
    const documents = heldVersions(held);
    const params = { toolCallId: call.callId, ...answer, feedback: answer.outcome === 'reject' ? feedback?.trim() || undefined : undefined, ...(documents.length ? { documents } : {}) };
    const own = this.answers.get(call.callId);
    const ok = own ? await own(params) : await this.confirm(params);
    if (ok && own) this.forget(call.callId);
    if (!ok) {
      call.sent = false;
      this.paintAll();
      this.updateContext();
    }
  }

  async reveal(callId: string, path?: string): Promise<void> {
    const call = this.calls.get(callId);
    const f = call?.files.find((x) => !path || x.proposal.path === path);
    if (!call || !f) return;
    if (f.proposal.created) await vscode.window.showTextDocument(this.proposalUri(call, f), { preserveFocus: true });
    else await vscode.window.showTextDocument(f.uri, { preserveFocus: true, preview: false });
    f.closed = false;
    if (!call.sent) this.setFileState(call, f);
    this.paintAll();
  }

  async showDiff(callId: string, key: string): Promise<void> {
    const found = this.find(callId, key);
    const f = found?.[1];
    if (!found || !f) return;
    const left = f.inline ? this.proposalUri(found[0], f).with({ fragment: 'original' }) : f.uri;
    await vscode.commands.executeCommand('vscode.diff', left, this.proposalUri(found[0], f), `${f.proposal.path} ↔ Karyi's proposal`, { preserveFocus: true, preview: true });
  }

  /** Take the call's preview lines out of the buffers (before the server runs the tool). */
  async handBack(callId: string): Promise<void> {
    const call = this.calls.get(callId);
    if (call) await this.handBackCall(call);
  }

  private async handBackCall(call: CallView, exact = new Set<FileView>()): Promise<void> {
    const inline = call.files.filter((f) => f.inline);
    for (const f of inline) await this.inline.handBack(f, exact.has(f) ? f.proposal.original : undefined);
    if (inline.length) {
      this.paintAll();
      await saveSynced(); // a buffer back to the disk's text is clean again
    }
  }

  /** The call is over (done or abandoned): drop its preview. */
  forget(callId: string): void {
    const call = this.calls.get(callId);
    if (!call) return;
    const shown = this.shown.get(callId);
    this.calls.delete(callId);
    this.shown.delete(callId);
    this.answers.delete(callId);
    call.sent = true; // nothing more is placed
    void Promise.resolve(shown).then(() => this.handBackCall(call));
    this.paintAll();
    this.updateContext();
    this.changed.fire();
  }

  forgetAll(): void {
    for (const callId of [...this.calls.keys()]) this.forget(callId);
  }

  /** Every call still waiting for the user (the Changes view). */
  pending(): CallView[] {
    return this.calls.pending();
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
