/**
 * The background-task commands (docs/parallel.md, "In VS Code"): Start Background Task
 * in the palette, and the Agents view's actions open, review, apply, keep branch,
 * discard, stop and answer. Each takes the task it was invoked on, or asks for one.
 */
import * as vscode from 'vscode';
import { Methods, type TaskRecord } from '../../protocol';
import type { KaryiServer } from '../../server';
import { ACTIVE, REVIEWABLE, shownStatus, type TaskList, taskRow } from './rows';
import type { PreviewManager } from '../preview/manager';
import { reviewTask } from './review';

/** The requests that take only a task's id. */
type TaskMethod = typeof Methods.applyTask | typeof Methods.keepTask | typeof Methods.discardTask | typeof Methods.stopTask;

/** The scheme of a task's before and after texts in the review's diff editors. */
const SCHEME = 'karyi-task';

export function registerAgentCommands(server: KaryiServer, list: TaskList, previews: PreviewManager): vscode.Disposable[] {
  const texts = new Map<string, string>();
  const provider: vscode.TextDocumentContentProvider = { provideTextDocumentContent: (uri) => texts.get(uri.toString()) ?? '' };
  const pick = (t: TaskRecord | undefined, fits: (t: TaskRecord) => boolean, verb: string) => t ?? pickTask(list, fits, verb);
  const act = <M extends TaskMethod>(method: M, t: TaskRecord) => server.request(method, { taskId: t.id });
  const reg = (id: string, fits: (t: TaskRecord) => boolean, verb: string, fn: (t: TaskRecord) => Promise<void>) =>
    vscode.commands.registerCommand(id, async (arg?: TaskRecord) => {
      const t = await pick(arg, fits, verb);
      if (!t) return;
      try {
        await fn(t);
      } catch (err) {
        void vscode.window.showErrorMessage(`Karyi: ${err instanceof Error ? err.message : String(err)}`);
      }
    });
  return [
    vscode.workspace.registerTextDocumentContentProvider(SCHEME, provider),
    vscode.commands.registerCommand('karyi.agents.start', (text?: unknown) => startTask(server, list, typeof text === 'string' ? text : undefined)),
    vscode.commands.registerCommand('karyi.agents.refresh', () => list.refresh()),
    reg('karyi.agents.open', (t) => ACTIVE.has(t.status) || REVIEWABLE.has(t.status), 'open', async (t) => {
      await vscode.commands.executeCommand('vscode.openFolder', vscode.Uri.file(t.worktree), { forceNewWindow: true });
    }),
    reg('karyi.agents.review', (t) => REVIEWABLE.has(shownStatus(t)), 'review', (t) => reviewTask(server, previews, list, t)),
    reg('karyi.agents.diff', (t) => REVIEWABLE.has(shownStatus(t)) || t.status === 'applied', 'show the diff of', (t) => showDiff(server, t, texts)),
    reg('karyi.agents.apply', (t) => REVIEWABLE.has(shownStatus(t)), 'apply', async (t) => {
      const result = await act(Methods.applyTask, t);
      list.update(result.task);
      const merged = `${result.merged.length} file${result.merged.length === 1 ? '' : 's'} merged`;
      if (result.conflicts.length) {
        void vscode.window.showWarningMessage(`Karyi: applied with conflicts in ${result.conflicts.join(', ')} (${merged}).`);
      } else void vscode.window.showInformationMessage(`Karyi: applied "${taskRow(t, 0).label}": ${merged}.`);
    }),
    reg('karyi.agents.keep', (t) => REVIEWABLE.has(shownStatus(t)), 'keep as a branch', async (t) => {
      const kept = await act(Methods.keepTask, t);
      list.update(kept);
      void vscode.window.showInformationMessage(`Karyi: the task's work stays on branch ${kept.branch}.`);
    }),
    reg('karyi.agents.discard', (t) => REVIEWABLE.has(shownStatus(t)) || t.status === 'kept', 'discard', async (t) => {
      const ok = await vscode.window.showWarningMessage(`Discard "${taskRow(t, 0).label}"? Its worktree and branch are removed.`, { modal: true }, 'Discard');
      if (ok) list.update(await act(Methods.discardTask, t));
    }),
    reg('karyi.agents.stop', (t) => ACTIVE.has(shownStatus(t)), 'stop', async (t) => list.update(await act(Methods.stopTask, t))),
    vscode.commands.registerCommand('karyi.agents.answer', async (t: TaskRecord, allow: boolean) => {
      await server.request(Methods.answerTask, { taskId: t.id, allow });
    }),
  ];
}

async function pickTask(list: TaskList, fits: (t: TaskRecord) => boolean, verb: string): Promise<TaskRecord | undefined> {
  const tasks = list.all().filter(fits);
  if (!tasks.length) {
    void vscode.window.showInformationMessage(`Karyi: no background task to ${verb}.`);
    return undefined;
  }
  const now = Date.now() / 1000;
  const items = tasks.map((t) => ({ ...taskRow(t, now), task: t }));
  return (await vscode.window.showQuickPick(items, { title: `Karyi: the background task to ${verb}` }))?.task;
}

/** Ask for the task and its check, then start it. `given` (from the chat's `/task TEXT`)
 * is the task itself: it starts at once, with no check and no questions. */
async function startTask(server: KaryiServer, list: TaskList, given?: string): Promise<TaskRecord | undefined> {
  const task = given?.trim() ? given : await askTask();
  if (!task?.trim()) return undefined;
  const check = given?.trim() ? '' : await askCheck();
  if (check === undefined) return undefined;
  // Right after the window opens the server may still be starting: wait for it, as a chat message does.
  if (!server.running && !(await server.start())) return undefined;
  try {
    const record = await server.request(Methods.startTask, { task: task.trim(), check: check.trim() || null });
    list.update(record);
    if (!given) await vscode.commands.executeCommand('karyi.agents.focus');
    return record;
  } catch (err) {
    void vscode.window.showErrorMessage(`Karyi: the task could not start: ${err instanceof Error ? err.message : String(err)}`);
    return undefined;
  }
}

function askTask(): Thenable<string | undefined> {
  return vscode.window.showInputBox({
    title: 'Karyi: Start Background Task (1/2)',
    prompt: 'What should the agent do? It works in its own git worktree; you review its diff when it is done.',
    validateInput: (v) => (v.trim() ? undefined : 'Describe the task'),
    ignoreFocusOut: true,
  });
}

function askCheck(): Thenable<string | undefined> {
  return vscode.window.showInputBox({
    title: 'Karyi: Start Background Task (2/2)',
    prompt: 'A check command to run when it is done, e.g. the tests (optional: Enter for none)',
    placeHolder: 'pytest -q',
    ignoreFocusOut: true,
  });
}

/** A diff editor per changed file, from the task's before and after texts. */
async function showDiff(server: KaryiServer, t: TaskRecord, texts: Map<string, string>): Promise<void> {
  const detail = await server.request(Methods.task, { taskId: t.id });
  if (!detail.fileTexts.length) {
    void vscode.window.showInformationMessage(`Karyi: "${taskRow(t, 0).label}" changed no file.`);
    return;
  }
  for (const f of detail.fileTexts) {
    const side = (which: string, text: string | null) => {
      const uri = vscode.Uri.from({ scheme: SCHEME, path: `/${t.id}/${which}/${f.path}` });
      texts.set(uri.toString(), text ?? '');
      return uri;
    };
    const title = `${f.path} (task ${t.id}: before ↔ after)`;
    await vscode.commands.executeCommand('vscode.diff', side('before', f.before), side('after', f.after), title, { preview: false });
  }
}
