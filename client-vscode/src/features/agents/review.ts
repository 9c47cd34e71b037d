/**
 * Reviewing a finished background task with the same per-hunk review as any edit
 * (docs/parallel.md, "Review hunk by hunk"): `karyi/reviewTask` gives each changed file as
 * the proposal "apply" would make (the three-way merge with the file as it is now), the
 * inline preview shows its hunks in the file with Accept / Reject, and the answer goes
 * to `karyi/applyTask`, which applies only the accepted hunks.
 */
import * as vscode from 'vscode';
import { Methods, type TaskRecord } from '../../protocol';
import type { KaryiServer } from '../../server';
import type { PreviewManager } from '../preview/manager';
import type { ReviewAnswer } from '../preview/model';
import { type TaskList, taskRow } from './rows';

/** Open the task's changed files with its changes as pending hunks. */
export async function reviewTask(server: KaryiServer, previews: PreviewManager, list: TaskList, t: TaskRecord): Promise<void> {
  const name = `"${taskRow(t, 0).label}"`;
  const review = await server.request(Methods.reviewTask, { taskId: t.id });
  const notes = review.notes.length ? ` (${review.notes.join('; ')})` : '';
  if (!review.files.length) {
    void vscode.window.showInformationMessage(`Karyi: ${name} changes nothing in your working tree${notes}.`);
    return;
  }
  const dirty = review.files.filter((f) => vscode.workspace.textDocuments.some((d) => d.uri.toString() === vscode.Uri.parse(f.uri).toString() && d.isDirty));
  if (dirty.length) {
    void vscode.window.showWarningMessage(`Karyi: save ${dirty.map((f) => f.path).join(', ')} first: the review merges the task into the file as it is on disk.`);
    return;
  }
  previews.openReview(`task:${t.id}`, review.files, answer(server, list, t));
  if (notes) void vscode.window.showInformationMessage(`Karyi: reviewing ${name}; not in the review${notes}.`);
}

function answer(server: KaryiServer, list: TaskList, t: TaskRecord): ReviewAnswer {
  return async (a) => {
    const name = `"${taskRow(t, 0).label}"`;
    if (a.outcome === 'reject') {
      void vscode.window.showInformationMessage(`Karyi: every hunk of ${name} rejected: nothing applied; keep or discard the task.`);
      return true;
    }
    try {
      const result = await server.request(Methods.applyTask, { taskId: t.id, acceptedHunks: a.acceptedHunks ?? null, modifiedContent: a.modifiedContent ?? null });
      list.update(result.task);
      const merged = `${result.merged.length} file${result.merged.length === 1 ? '' : 's'} changed`;
      if (result.conflicts.length) void vscode.window.showWarningMessage(`Karyi: applied ${name} with conflict markers in ${result.conflicts.join(', ')} (${merged}).`);
      else void vscode.window.showInformationMessage(`Karyi: applied the accepted hunks of ${name}: ${merged}.`);
      return true;
    } catch (err) {
      void vscode.window.showErrorMessage(`Karyi: ${err instanceof Error ? err.message : String(err)}`);
      return false;
    }
  };
}
