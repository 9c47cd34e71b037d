/**
 * Inline diffs as real lines, on the editor's buffer: placing a file's hunks (one edit),
 * applying one decision (one edit, so one undo step), and handing the buffer back as it
 * was plus the user's typing before the server applies the answer (it re-runs the tool
 * on the buffer, so it must not see the preview). The geometry is `inline.ts`.
 */
import * as vscode from 'vscode';
import type { Range } from '../../protocol';
import { isMasked } from '../../server/syncMask';
import { applyEdits, mapRange, type TextChange } from './hunks';
import { acceptEdit, decidedText, handBackEdits, placeHunks, rejectEdit } from './inline';
import type { FileView, HunkView } from './model';

const vsRange = (r: Range) => new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character);

/** What our own edit in flight is: followed by nobody, or followed without "touched". */
type Own = 'none' | 'quiet' | 'decision';

export class InlineBuffer {
  private own: Own = 'none';

  /** The document of a file view, when it is open. */
  doc(f: FileView): vscode.TextDocument | undefined {
    return vscode.workspace.textDocuments.find((d) => d.uri.toString() === f.key);
  }

  /** Put the file's proposed lines into its buffer; false (nothing changed) when it cannot. */
  async place(f: FileView): Promise<boolean> {
    const doc = this.doc(f);
    if (!doc || f.proposal.created || f.proposal.deleted || !f.hunks.length) return false;
    const eol = doc.eol === vscode.EndOfLine.CRLF ? '\r\n' : '\n';
    const placement = placeHunks(doc.getText(), f.hunks, eol);
    const edits = placement.inserts.map((ins) => ({ range: { start: ins.at, end: ins.at }, newText: ins.text }));
    if (!(await this.apply(doc, edits, 'quiet'))) return false;
    f.hunks.forEach((h, i) => {
      h.placed = placement.placed[i];
      h.range = h.placed.removed;
    });
    f.inline = true;
    return true;
  }

  /** Show one decision in the buffer: Accept deletes the old lines, Reject the new ones. */
  async decide(f: FileView, h: HunkView): Promise<void> {
    const doc = this.doc(f);
    if (!f.inline || !doc || !h.placed || h.shown !== 'pending' || h.state === 'pending') return;
    const e = h.state === 'accepted' ? acceptEdit(h.placed) : rejectEdit(h.placed);
    h.shown = h.state;
    await this.apply(doc, [e], 'decision');
  }

  /** The text the user will have once every decision shows (for `modifiedContent`). */
  decided(f: FileView): string | undefined {
    const doc = this.doc(f);
    if (!f.inline || !doc) return undefined;
    return decidedText(doc.getText(), this.placedHunks(f).map(([h, placed]) => ({ placed, shown: h.shown, state: h.state })));
  }

  /** The proposal as the diff view shows it: every hunk not rejected, applied. */
  proposed(f: FileView): string | undefined {
    const doc = this.doc(f);
    if (!f.inline || !doc) return undefined;
    const hunks = this.placedHunks(f).map(([h, placed]) => ({ placed, shown: h.shown, state: h.state === 'pending' ? ('accepted' as const) : h.state }));
    return decidedText(doc.getText(), hunks);
  }

  /** The buffer without the preview: the text before it plus the user's typing. */
  original(f: FileView): string | undefined {
    const doc = this.doc(f);
    if (!f.inline || !doc) return undefined;
    return applyEdits(doc.getText(), handBackEdits(this.placedHunks(f).map(([h, placed]) => ({ placed, fate: h.shown }))));
  }

  /**
   * Take the preview out of the buffer: the text before it plus the user's typing; or,
   * when the answer is the user's whole text (`modifiedContent`, which holds their typing
   * everywhere), exactly the text the server proposed on, so no typing is applied twice.
   */
  async handBack(f: FileView, exact?: string): Promise<void> {
    const doc = this.doc(f);
    if (!f.inline) return;
    f.inline = false;
    if (!doc || doc.isClosed) return;
    if (exact !== undefined) {
      const end = doc.lineAt(doc.lineCount - 1).range.end;
      await this.apply(doc, [{ range: { start: { line: 0, character: 0 }, end: { line: end.line, character: end.character } }, newText: exact }], 'quiet');
      return;
    }
    const edits = handBackEdits(this.placedHunks(f).map(([h, placed]) => ({ placed, fate: h.shown })));
    // Undo after the answer first takes back the server's edit, then this hand-back:
    // after decisions that gives the decided text again; with no decision shown (Accept
    // all, Reject all) the hand-back joins the placement's undo step, so it gives the
    // text from before the preview rather than preview lines without their marks.
    const undecided = f.hunks.every((h) => h.shown === 'pending');
    if (edits.length) await this.apply(doc, edits, 'quiet', !undecided);
  }

  /** Move the placed hunks of `f` along with a change of its document. */
  follow(f: FileView, changes: readonly TextChange[]): void {
    if (this.own === 'quiet') return;
    const ordered = [...changes].sort((a, b) => b.range.start.line - a.range.start.line || b.range.start.character - a.range.start.character);
    for (const h of f.hunks) {
      if (!h.placed) continue;
      for (const c of ordered) {
        const removed = mapRange(h.placed.removed, c);
        const added = mapRange(h.placed.added, c);
        h.placed = { ...h.placed, removed: removed.range, added: added.range };
        if (this.own === 'none' && h.shown === 'pending') h.touched ||= removed.touched || added.touched;
      }
      h.range = h.placed.removed;
    }
  }

  private placedHunks(f: FileView): [HunkView, NonNullable<HunkView['placed']>][] {
    return f.hunks.flatMap((h) => (h.placed ? [[h, h.placed] as [HunkView, NonNullable<HunkView['placed']>]] : []));
  }

  /**
   * One undo step: through the document's visible editor (which can join the previous
   * step), else as a workspace edit, so no editor is brought to the front.
   */
  private async apply(doc: vscode.TextDocument, edits: readonly { range: Range; newText: string }[], own: Own, undoStopBefore = true): Promise<boolean> {
    if (!edits.length) return true;
    this.own = own;
    const version = doc.version;
    const asWorkspaceEdit = async () => {
      const edit = new vscode.WorkspaceEdit();
      for (const e of edits) edit.replace(doc.uri, vsRange(e.range), e.newText);
      return vscode.workspace.applyEdit(edit);
    };
    try {
      const editor = vscode.window.visibleTextEditors.find((e) => e.document === doc);
      if (!editor) return await asWorkspaceEdit();
      const done = await editor.edit(
        (b) => {
          for (const e of edits) b.replace(vsRange(e.range), e.newText);
        },
        { undoStopBefore, undoStopAfter: true },
      ).then(
        (ok) => ok,
        () => false,
      );
      // The editor can be replaced while the edit is on its way (another tab shown for the
      // same file): the document is unchanged, so the same edits still apply to it.
      if (!done && !doc.isClosed && doc.version === version) return await asWorkspaceEdit();
      return done;
    } catch {
      return false; // the document went away (its file was deleted or closed meanwhile)
    } finally {
      this.own = 'none';
    }
  }
}

/** The versions of the buffers that showed `files` inline, once their preview is out:
 * the server waits until it has seen them before it runs the tool, so it never takes a
 * preview line for the user's text. */
export function heldVersions(files: readonly FileView[]): { uri: string; version: number }[] {
  return files.flatMap((f) => {
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === f.uri.toString());
    // A masked buffer's changes do not reach the server (server/syncMask.ts): it cannot wait for them.
    return doc && !doc.isClosed && !isMasked(doc.uri.toString()) ? [{ uri: doc.uri.toString(), version: doc.version }] : [];
  });
}
