/**
 * The decorations of an inline preview. A hunk shown as real lines (`inlineBuffer.ts`)
 * gets its removed lines red and its proposed lines green, whole lines, in the overview
 * ruler too. A hunk that could not be placed in the buffer falls back to text after the
 * removed lines (and the full hunk in the hover).
 */
import * as vscode from 'vscode';
import { hunkLines } from './hunks';
import { coveredLines } from './inline';
import { type FileView, toVs } from './model';

/** One set of decoration types, shared by every editor that shows a preview. */
export class PreviewPainter implements vscode.Disposable {
  private readonly removed = vscode.window.createTextEditorDecorationType({
    isWholeLine: true,
    backgroundColor: new vscode.ThemeColor('diffEditor.removedLineBackground'),
    overviewRulerColor: new vscode.ThemeColor('editorOverviewRuler.deletedForeground'),
    overviewRulerLane: vscode.OverviewRulerLane.Left,
  });
  private readonly added = vscode.window.createTextEditorDecorationType({
    after: { color: new vscode.ThemeColor('gitDecoration.addedResourceForeground'), margin: '0 0 0 1.5em', fontStyle: 'normal' },
  });
  private readonly insertion = vscode.window.createTextEditorDecorationType({
    isWholeLine: true,
    backgroundColor: new vscode.ThemeColor('diffEditor.insertedLineBackground'),
    after: { color: new vscode.ThemeColor('gitDecoration.addedResourceForeground'), margin: '0 0 0 1.5em' },
  });
  private readonly decided = vscode.window.createTextEditorDecorationType({ isWholeLine: true, opacity: '0.6' });
  private readonly proposed = vscode.window.createTextEditorDecorationType({
    isWholeLine: true,
    backgroundColor: new vscode.ThemeColor('diffEditor.insertedLineBackground'),
    overviewRulerColor: new vscode.ThemeColor('editorOverviewRuler.addedForeground'),
    overviewRulerLane: vscode.OverviewRulerLane.Left,
  });

  /** Mark each hunk of `files` in `editor`: removed lines, what replaces them, decided ones dimmed. */
  paint(editor: vscode.TextEditor, files: FileView[]): void {
    const removed: vscode.DecorationOptions[] = [];
    const added: vscode.DecorationOptions[] = [];
    const inserted: vscode.DecorationOptions[] = [];
    const decided: vscode.DecorationOptions[] = [];
    const proposed: vscode.DecorationOptions[] = [];
    const doc = editor.document;
    const text = doc.getText();
    for (const f of files) {
      if (f.inline) {
        this.paintInline(f, removed, proposed);
        continue;
      }
      f.hunks.forEach((h, i) => {
        const { removed: old, added: neu } = hunkLines(text, h.range, h.newText);
        const hover = new vscode.MarkdownString(
          `**Karyi proposes** (hunk ${i + 1} of ${f.hunks.length}${h.touched ? ', you changed these lines since' : ''}):\n\n` +
            '```diff\n' + [...old.map((l) => `-${l}`), ...neu.map((l) => `+${l}`)].join('\n') + '\n```',
        );
        if (h.state !== 'pending') {
          const r = toVs(h.range);
          decided.push({ range: new vscode.Range(r.start.line, 0, Math.max(r.start.line, r.end.line - (r.end.character === 0 && r.end.line > r.start.line ? 1 : 0)), 0), hoverMessage: `Hunk ${h.state}` });
          return;
        }
        if (old.length === 0) {
          const line = Math.min(h.range.start.line, doc.lineCount - 1);
          const anchor = h.range.start.line > 0 ? line - (h.range.start.character === 0 ? 1 : 0) : line;
          inserted.push({
            range: new vscode.Range(Math.max(anchor, 0), 0, Math.max(anchor, 0), 0),
            hoverMessage: hover,
            renderOptions: { after: { contentText: `＋ ${neu.join('  ⏎  ')}` } },
          });
          return;
        }
        old.forEach((_, k) => {
          const line = h.range.start.line + k;
          if (line >= doc.lineCount) return;
          const end = doc.lineAt(line).range.end;
          removed.push({ range: new vscode.Range(line, 0, line, end.character), hoverMessage: hover });
          let shown: string | undefined;
          if (k < old.length - 1) shown = neu[k] !== undefined ? `→ ${neu[k]}` : undefined;
          else {
            const rest = neu.slice(k);
            shown = rest.length ? `→ ${rest.join('  ⏎  ')}` : '(removed)';
          }
          if (shown !== undefined) added.push({ range: new vscode.Range(line, end.character, line, end.character), renderOptions: { after: { contentText: shown } } });
        });
      });
    }
    editor.setDecorations(this.removed, removed);
    editor.setDecorations(this.added, added);
    editor.setDecorations(this.insertion, inserted);
    editor.setDecorations(this.decided, decided);
    editor.setDecorations(this.proposed, proposed);
  }

  private paintInline(f: FileView, removed: vscode.DecorationOptions[], proposed: vscode.DecorationOptions[]): void {
    f.hunks.forEach((h, i) => {
      if (!h.placed || h.shown !== 'pending') return;
      const hover = `Karyi proposes (hunk ${i + 1} of ${f.hunks.length}${h.touched ? ', you changed these lines since' : ''})`;
      for (const [range, into] of [[h.placed.removed, removed], [h.placed.added, proposed]] as const) {
        const lines = coveredLines(range);
        if (lines) into.push({ range: new vscode.Range(lines.first, 0, lines.last, 0), hoverMessage: hover });
      }
    });
  }

  dispose(): void {
    for (const type of [this.removed, this.added, this.insertion, this.decided, this.proposed]) type.dispose();
  }
}
