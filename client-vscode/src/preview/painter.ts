/** The decorations of an inline preview: removed lines, their replacements, decided hunks. */
import * as vscode from 'vscode';
import { hunkLines } from './hunks';
import { type FileView, toVs } from './views';

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

  /** Mark each hunk of `files` in `editor`: removed lines, what replaces them, decided ones dimmed. */
  paint(editor: vscode.TextEditor, files: FileView[]): void {
    const removed: vscode.DecorationOptions[] = [];
    const added: vscode.DecorationOptions[] = [];
    const inserted: vscode.DecorationOptions[] = [];
    const decided: vscode.DecorationOptions[] = [];
    const doc = editor.document;
    const text = doc.getText();
    for (const f of files) {
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
  }

  dispose(): void {
    for (const type of [this.removed, this.added, this.insertion, this.decided]) type.dispose();
  }
}
