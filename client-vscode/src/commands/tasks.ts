/**
 * The editor tasks (explain, fix, tests, init). They keep the server's command ids
 * (`karyi.explainSelection`, `karyi.fixDiagnostics`, `karyi.writeTests`, …) so the
 * server's code actions land in the chat view too.
 */
import * as vscode from 'vscode';
import type { SendOptions } from '../features/chat/controller';
import { lspDiagnostic, lspRange } from '../server/lspShapes';
import type { Commands, Parts } from './parts';

/** The editor tasks, as the chat commands the server expands into their prompts
 * (server/karyi/agent/prompting/tasks.py): no prompt is copied here. */
export const TASKS = {
  explain: '/explain',
  fix: '/fix',
  tests: '/tests',
  /** The server expands the `/init` chat command (docs/context.md#init). */
  init: '/init',
};

interface TaskArgs {
  uri?: string;
  range?: { start: { line: number; character: number }; end: { line: number; character: number } };
  diagnostics?: unknown[];
}

/** File, selection and its text for a task: from the arguments (a code action) or the active editor. */
async function taskContext(args: TaskArgs | undefined, needSelection: boolean): Promise<SendOptions | undefined> {
  let uri: vscode.Uri | undefined;
  let range: vscode.Range | undefined;
  if (args && typeof args === 'object' && typeof args.uri === 'string') {
    uri = vscode.Uri.parse(args.uri);
    if (args.range) range = new vscode.Range(args.range.start.line, args.range.start.character, args.range.end.line, args.range.end.character);
  } else {
    const editor = vscode.window.activeTextEditor;
    if (!editor) return undefined;
    uri = editor.document.uri;
    if (!editor.selection.isEmpty) range = editor.selection;
  }
  const doc = await vscode.workspace.openTextDocument(uri);
  if (needSelection && (!range || range.isEmpty)) range = new vscode.Range(0, 0, doc.lineCount, 0);
  const rel = vscode.workspace.asRelativePath(uri, false);
  const opts: SendOptions = { context: { uri: uri.toString() }, contextLabel: rel };
  if (range && !range.isEmpty) {
    opts.context = { ...opts.context, selection: lspRange(range), text: doc.getText(range) };
    opts.contextLabel = `${rel}:${range.start.line + 1}-${range.end.line + 1}`;
  }
  return opts;
}

/** Send a task's message with its context, the chat shown but not focused. */
export async function task(p: Parts, message: string, opts: SendOptions | undefined, display?: string): Promise<void> {
  if (!opts) {
    void vscode.window.showInformationMessage('Karyi: open a file first (and select the code the task is about).');
    return;
  }
  await p.view.reveal(true);
  await p.chat.send(message, { ...opts, display });
}

/** The file's problems (a code action's, or the editor's) as the fix task's context. */
async function fixDiagnostics(p: Parts, args?: TaskArgs): Promise<void> {
  const opts = await taskContext(args && typeof args.uri === 'string' ? { uri: args.uri } : undefined, false);
  if (!opts?.context?.uri) return task(p, TASKS.fix, undefined);
  const uri = vscode.Uri.parse(opts.context.uri);
  const diagnostics = args?.diagnostics?.length ? args.diagnostics : vscode.languages.getDiagnostics(uri).map(lspDiagnostic);
  if (!diagnostics.length) {
    void vscode.window.showInformationMessage(`Karyi: ${vscode.workspace.asRelativePath(uri, false)} has no problems to fix.`);
    return;
  }
  opts.context = { ...opts.context, diagnostics };
  opts.contextLabel = `${opts.contextLabel} · ${diagnostics.length} problem${diagnostics.length === 1 ? '' : 's'}`;
  await task(p, TASKS.fix, opts, 'Fix the problems in this file');
}

export const TASK_COMMANDS: Commands = {
  'karyi.explainSelection': async (p, args?: TaskArgs) => task(p, TASKS.explain, await taskContext(args, true), 'Explain the selection'),
  'karyi.writeTests': async (p, args?: TaskArgs) => task(p, TASKS.tests, await taskContext(args, true), 'Write tests for the selection'),
  'karyi.init': (p) => task(p, TASKS.init, {}, 'Write AGENTS.md for this repository'),
  'karyi.fixDiagnostics': fixDiagnostics,
};
