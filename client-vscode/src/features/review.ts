/**
 * Code review in VS Code (docs/review.md#in-the-editor): *Karyi: Review Changes* asks the
 * server to review the uncommitted work (`karyi.review`); the server publishes the
 * findings as diagnostics ("Karyi review"), which the language client shows in the
 * Problems panel and inline, with the server's code actions (*Fix with Karyi*,
 * *Dismiss*) on each. This module only starts the review and says how it went.
 */
import * as vscode from 'vscode';
import type { KaryiServer } from '../server';
import { type ReviewAnswer, reviewSummary } from './reviewSummary';

/** Review the uncommitted changes with progress, then offer the Problems panel. */
export async function reviewChanges(server: KaryiServer): Promise<ReviewAnswer | undefined> {
  let answer: ReviewAnswer;
  try {
    answer = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'Karyi: reviewing the changes…' },
      () => server.executeCommand<ReviewAnswer>('karyi.review', []),
    );
  } catch (err) {
    void vscode.window.showErrorMessage(`Karyi review: ${err instanceof Error ? err.message : String(err)}`);
    return undefined;
  }
  if (answer.tokens === undefined) {
    void vscode.window.showInformationMessage(`Karyi review: nothing to review (no changed lines in the ${answer.change}).`);
    return answer;
  }
  const shown = answer.findings.length ? ['Show Problems'] : [];
  void vscode.window.showInformationMessage(`Karyi review: ${reviewSummary(answer)}`, ...shown).then((choice) => {
    if (choice) void vscode.commands.executeCommand('workbench.actions.view.problems');
  });
  return answer;
}

/** *Dismiss* on a finding (the server's code action): the server removes its diagnostic. */
export async function dismissFinding(server: KaryiServer, args: unknown): Promise<void> {
  await server.executeCommand('karyi.dismissFinding', [args]);
}
