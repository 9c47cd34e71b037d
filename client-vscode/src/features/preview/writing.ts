/**
 * Edits while the model is still writing them (docs/vscode.md, "Edits while they are
 * written"). Each `toolDraft` puts the lines written so far into the file's buffer, in
 * place, as a proposal's are (`inlineBuffer.ts`), but marked as being written and with
 * nothing to decide; the next draft replaces them. When the call is complete (a `done`
 * draft), at the next step and at the end of the turn (cancelled ones too) they are
 * taken out, before the real proposal is shown. While a draft is in a buffer the server
 * does not see that buffer change (`server/syncMask.ts`), so the proposal it works out is made
 * on the file's own text.
 */
import * as vscode from 'vscode';
import type { DraftFile, FileProposal, TurnEvent, TurnUpdate } from '../../protocol';
import { saveSynced } from '../../server/saver';
import { mask } from '../../server/syncMask';
import { coveredLines } from './inline';
import { InlineBuffer } from './inlineBuffer';
import type { FileView } from './model';

type Draft = Extract<TurnEvent, { type: 'toolDraft' }>;

interface Shown {
  index: number;
  view: FileView;
  doc: vscode.TextDocument;
}

/** A draft's file as the inline buffer's file view (a proposal with nothing to decide). */
function viewOf(file: DraftFile, uri: vscode.Uri): FileView {
  const proposal: FileProposal = {
    uri: file.uri, path: file.path, version: null, created: file.created, deleted: false,
    added: file.added, removed: file.removed, original: '', proposed: '', edits: [], hunks: file.hunks, unified: '',
  };
  const hunks = file.hunks.map((h) => ({ id: h.id, range: h.range, newText: h.newText, state: 'pending' as const, shown: 'pending' as const, touched: false }));
  return { proposal, uri, key: uri.toString(), hunks };
}

export class WritingPreview implements vscode.Disposable {
  private readonly inline = new InlineBuffer();
  private readonly shown = new Map<string, Shown>();
  private readonly latest = new Map<number, Draft>();
  private queue: Promise<void> = Promise.resolve();
  private readonly written = vscode.window.createTextEditorDecorationType({
    isWholeLine: true,
    fontStyle: 'italic',
    opacity: '0.8',
    backgroundColor: new vscode.ThemeColor('diffEditor.insertedLineBackground'),
    overviewRulerColor: new vscode.ThemeColor('editorOverviewRuler.addedForeground'),
    overviewRulerLane: vscode.OverviewRulerLane.Left,
  });
  private readonly replaced = vscode.window.createTextEditorDecorationType({
    isWholeLine: true,
    backgroundColor: new vscode.ThemeColor('diffEditor.removedLineBackground'),
  });
  private readonly cursor = vscode.window.createTextEditorDecorationType({
    after: { contentText: '  ✎ Karyi is writing…', color: new vscode.ThemeColor('editorCodeLens.foreground'), fontStyle: 'italic' },
  });
  private readonly disposables: vscode.Disposable[];

  /**
   * `resync` brings the server up to a buffer again; `pending` says whether a file shows
   * a proposal already (its draft then waits: the proposal's lines are not to be moved).
   */
  constructor(
    private readonly resync: (doc: vscode.TextDocument) => Promise<void>,
    private readonly pending: (key: string) => boolean,
  ) {
    this.disposables = [
      vscode.workspace.onDidChangeTextDocument((e) => this.onEdit(e)),
      vscode.window.onDidChangeVisibleTextEditors(() => this.paintAll()),
      this.written, this.replaced, this.cursor,
    ];
  }

  /** A turn update of the chat's session. */
  onUpdate(u: TurnUpdate): void {
    const ev = u.event;
    if (ev.type === 'toolDraft') {
      if (ev.done) this.run(() => this.clear(ev.index));
      else this.offer(ev);
    } else if (ev.type === 'step' || ev.type === 'turnFinished') this.run(() => this.clear());
  }

  /** Take every draft out (the server stopped: no `turnFinished` will come). */
  clearAll(): void {
    this.run(() => this.clear());
  }

  /** Resolves once every draft received so far is in (or out of) the buffers. */
  settled(): Promise<void> {
    return this.queue;
  }

  /** The files that show a draft now (for tests and the status). */
  files(): string[] {
    return [...this.shown.keys()];
  }

  /** Drafts arriving faster than they can be shown are skipped to the latest. */
  private offer(ev: Draft): void {
    const queued = this.latest.has(ev.index);
    this.latest.set(ev.index, ev);
    if (queued) return;
    this.run(async () => {
      const latest = this.latest.get(ev.index);
      this.latest.delete(ev.index);
      if (latest) await this.show(latest);
    });
  }

  private run(job: () => Promise<void>): void {
    this.queue = this.queue.then(job).catch(() => undefined);
  }

  private async show(ev: Draft): Promise<void> {
    for (const file of ev.files) {
      const uri = vscode.Uri.parse(file.uri);
      const key = uri.toString();
      if (file.created || this.pending(key)) continue;
      const old = this.shown.get(key);
      if (old) await this.inline.handBack(old.view);
      else {
        await vscode.window.showTextDocument(uri, { preserveFocus: true, preview: false });
        const opened = vscode.workspace.textDocuments.find((d) => d.uri.toString() === key);
        if (!opened) continue;
        mask(key, opened.getText());
      }
      const doc = old?.doc ?? vscode.workspace.textDocuments.find((d) => d.uri.toString() === key);
      if (!doc) continue;
      const view = viewOf(file, uri);
      if (await this.inline.place(view)) this.shown.set(key, { index: ev.index, view, doc });
      else {
        this.shown.delete(key);
        await this.resync(doc);
      }
    }
    this.paintAll();
  }

  /** Take the drafts of call `index` (all when undefined) out of their buffers. */
  private async clear(index?: number): Promise<void> {
    if (index === undefined) this.latest.clear();
    else this.latest.delete(index);
    const gone = [...this.shown].filter(([, s]) => index === undefined || s.index === index);
    for (const [key, s] of gone) {
      this.shown.delete(key);
      try {
        await this.inline.handBack(s.view);
      } finally {
        await this.resync(s.doc); // the server follows the buffer again, whatever happened
      }
    }
    if (!gone.length) return;
    this.paintAll();
    await saveSynced(); // a buffer back to the disk's text is clean again
  }

  private onEdit(e: vscode.TextDocumentChangeEvent): void {
    const s = this.shown.get(e.document.uri.toString());
    if (!s || !e.contentChanges.length) return;
    this.inline.follow(s.view, e.contentChanges.map((c) => ({ range: c.range, text: c.text })));
    this.paintAll();
  }

  private paintAll(): void {
    for (const editor of vscode.window.visibleTextEditors) {
      const s = this.shown.get(editor.document.uri.toString());
      const written: vscode.DecorationOptions[] = [];
      const replaced: vscode.DecorationOptions[] = [];
      const cursor: vscode.DecorationOptions[] = [];
      for (const h of s?.view.hunks ?? []) {
        if (!h.placed) continue;
        const added = coveredLines(h.placed.added);
        const removed = coveredLines(h.placed.removed);
        const hover = 'Karyi is still writing this edit: its proposal follows when the call is complete';
        if (added) written.push({ range: new vscode.Range(added.first, 0, added.last, 0), hoverMessage: hover });
        if (removed) replaced.push({ range: new vscode.Range(removed.first, 0, removed.last, 0), hoverMessage: hover });
        const last = added?.last ?? removed?.last;
        if (last !== undefined && last < editor.document.lineCount) {
          const end = editor.document.lineAt(last).range.end;
          cursor.push({ range: new vscode.Range(end, end) });
        }
      }
      editor.setDecorations(this.written, written);
      editor.setDecorations(this.replaced, replaced);
      editor.setDecorations(this.cursor, cursor.slice(-1));
    }
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
