/**
 * Saving what the server applied. The server edits open documents with
 * `workspace/applyEdit` and writes the same text to disk; the buffer then shows as
 * modified. After a call finishes, every dirty file buffer whose text equals the disk
 * is saved, so the editor agrees with the disk (the user's unsaved typing, which
 * differs from the disk, is never saved behind their back).
 */
import * as fs from 'node:fs/promises';
import * as vscode from 'vscode';

export async function saveSynced(): Promise<number> {
  let saved = 0;
  for (const doc of vscode.workspace.textDocuments) {
    if (!doc.isDirty || doc.uri.scheme !== 'file') continue;
    try {
      const disk = await fs.readFile(doc.uri.fsPath, 'utf8');
      if (disk === doc.getText() && (await doc.save())) saved++;
    } catch {
      /* not on disk (deleted) or unreadable: leave it */
    }
  }
  return saved;
}
