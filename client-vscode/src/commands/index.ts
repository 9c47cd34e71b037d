/**
 * Command palette and context-menu commands. The task commands keep the server's
 * command ids (`karyi.explainSelection`, `karyi.fixDiagnostics`, `karyi.writeTests`,
 * `karyi.acceptAll`, …) so the server's code actions land in the chat view too.
 */
import * as vscode from 'vscode';
import type { ChatController, SendOptions } from '../features/chat/controller';
import { imageFrom } from '../shared/images';
import type { ChatViewProvider } from '../views/chat/provider';
import { inlineChat } from '../features/chat/inlineChat';
import { discardDraft, editProposal, useDraft } from '../features/preview/drafts';
import type { PreviewManager } from '../features/preview/manager';
import type { Secrets } from '../server/secrets';
import type { KaryiServer } from '../server';
import type { AgentTerminal } from '../features/terminal';
import { lspDiagnostic, lspRange } from '../server/lspShapes';
import { showTools } from '../features/tools';

/** The editor tasks, as the chat commands the server expands into their prompts
 * (server/karyi/agent/prompting/tasks.py): no prompt is copied here. */
export const TASKS = {
  explain: '/explain',
  fix: '/fix',
  tests: '/tests',
  /** The server expands the `/init` chat command (docs/context.md#init). */
  init: '/init',
};

export interface Parts {
  chat: ChatController;
  view: ChatViewProvider;
  previews: PreviewManager;
  server: KaryiServer;
  secrets: Secrets;
  terminal: AgentTerminal;
}

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

export function registerCommands(p: Parts): vscode.Disposable[] {
  const reg = (id: string, fn: (...args: any[]) => unknown) => vscode.commands.registerCommand(id, fn);
  const task = async (message: string, opts: SendOptions | undefined, display?: string) => {
    if (!opts) {
      void vscode.window.showInformationMessage('Karyi: open a file first (and select the code the task is about).');
      return;
    }
    await p.view.reveal(true);
    await p.chat.send(message, { ...opts, display });
  };
  return [
    reg('karyi.openChat', () => p.view.reveal()),
    reg('karyi.newChat', async () => {
      p.chat.newChat();
      await p.view.reveal();
    }),
    reg('karyi.chat', async (arg?: string | { message?: string }) => {
      const message = typeof arg === 'string' ? arg : arg?.message;
      if (message) await task(message, {});
      else await p.view.reveal();
    }),
    reg('karyi.explainSelection', async (args?: TaskArgs) => task(TASKS.explain, await taskContext(args, true), 'Explain the selection')),
    reg('karyi.writeTests', async (args?: TaskArgs) => task(TASKS.tests, await taskContext(args, true), 'Write tests for the selection')),
    reg('karyi.init', async () => task(TASKS.init, {}, 'Write AGENTS.md for this repository')),
    reg('karyi.fixDiagnostics', async (args?: TaskArgs) => {
      const opts = await taskContext(args && typeof args.uri === 'string' ? { uri: args.uri } : undefined, false);
      if (!opts?.context?.uri) return task(TASKS.fix, undefined);
      const uri = vscode.Uri.parse(opts.context.uri);
      const diagnostics = args?.diagnostics?.length ? args.diagnostics : vscode.languages.getDiagnostics(uri).map(lspDiagnostic);
      if (!diagnostics.length) {
        void vscode.window.showInformationMessage(`Karyi: ${vscode.workspace.asRelativePath(uri, false)} has no problems to fix.`);
        return;
      }
      opts.context = { ...opts.context, diagnostics };
      opts.contextLabel = `${opts.contextLabel} · ${diagnostics.length} problem${diagnostics.length === 1 ? '' : 's'}`;
      await task(TASKS.fix, opts, 'Fix the problems in this file');
    }),
    reg('karyi.addFileToChat', async (uri?: vscode.Uri) => {
      const target = uri instanceof vscode.Uri ? uri : vscode.window.activeTextEditor?.document.uri;
      if (!target) return;
      await p.view.reveal();
      p.view.post({ type: 'insertMention', path: vscode.workspace.asRelativePath(target, false) });
    }),
    reg('karyi.attachImage', async () => {
      const picked = await vscode.window.showOpenDialog({ canSelectMany: true, openLabel: 'Attach', filters: { Images: ['png', 'jpg', 'jpeg', 'gif', 'webp'] } });
      if (!picked?.length) return;
      await p.view.reveal();
      for (const uri of picked) {
        const name = uri.path.split('/').pop() ?? 'image';
        const image = imageFrom(await vscode.workspace.fs.readFile(uri), name);
        if (typeof image === 'string') void vscode.window.showErrorMessage(`Karyi: ${image}`);
        else p.view.post({ type: 'attachImage', image });
      }
    }),
    reg('karyi.acceptAll', (arg?: unknown) => p.previews.acceptAll(typeof arg === 'string' ? arg : undefined)),
    reg('karyi.rejectAll', (arg?: unknown) => p.previews.rejectAll(typeof arg === 'string' ? arg : undefined)),
    reg('karyi.acceptHunk', (callId?: string, key?: string, hunk?: string) =>
      callId && key && hunk ? p.previews.decideHunk(callId, key, hunk, 'accepted') : p.previews.decideAtCursor('accepted')),
    reg('karyi.rejectHunk', (callId?: string, key?: string, hunk?: string) =>
      callId && key && hunk ? p.previews.decideHunk(callId, key, hunk, 'rejected') : p.previews.decideAtCursor('rejected')),
    reg('karyi.inlineChat', () => inlineChat(p.chat)),
    reg('karyi.nextHunk', () => p.previews.goToHunk(1)),
    reg('karyi.previousHunk', () => p.previews.goToHunk(-1)),
    reg('karyi.acceptFile', (callId: string, key: string) => p.previews.decideFile(callId, key, 'accepted')),
    reg('karyi.rejectFile', (callId: string, key: string) => p.previews.decideFile(callId, key, 'rejected')),
    reg('karyi.editProposal', (callId: string, key: string) => editProposal(p.previews, callId, key)),
    reg('karyi.useDraft', (callId: string, key: string) => useDraft(p.previews, callId, key)),
    reg('karyi.discardDraft', (callId: string, key: string) => discardDraft(p.previews, callId, key)),
    reg('karyi.showProposalDiff', (callId: string, key: string) => p.previews.showDiff(callId, key)),
    reg('karyi.cancel', () => p.chat.stop()),
    reg('karyi.planMode', async () => {
      await p.chat.setMode('plan');
      await p.view.reveal();
    }),
    reg('karyi.actMode', async () => {
      await p.chat.setMode('act');
      await p.view.reveal();
    }),
    reg('karyi.runCommand', async () => {
      const commands = await p.chat.slashCommands();
      const pick = await vscode.window.showQuickPick(
        commands.map((c) => ({ label: `/${c.name}`, description: c.scope === 'builtin' ? '' : c.scope, detail: c.description, name: c.name })),
        { title: 'Karyi: run a slash command', placeHolder: 'Custom commands live in .karyi/commands/NAME.md' },
      );
      if (!pick) return;
      const args = await vscode.window.showInputBox({ title: `/${pick.name}`, prompt: 'Arguments ($ARGUMENTS), or nothing' });
      if (args === undefined) return;
      await p.view.reveal(true);
      await p.chat.send(`/${pick.name}${args ? ` ${args}` : ''}`);
    }),
    reg('karyi.toggleMode', () => p.chat.setMode(p.chat.state.mode === 'plan' ? 'act' : 'plan')),
    reg('karyi.showTerminal', () => p.terminal.show()),
    reg('karyi.restoreCheckpoint', async () => {
      const items = await p.chat.checkpoints();
      if (!items.length) {
        void vscode.window.showInformationMessage('Karyi: no checkpoints yet (Karyi takes one before it changes files).');
        return;
      }
      const pick = await vscode.window.showQuickPick(
        items.map((c) => ({ label: c.label || c.id, description: new Date(c.time * 1000).toLocaleString(), id: c.id })),
        { title: 'Karyi: restore the workspace files to a checkpoint' },
      );
      if (pick) await p.chat.restoreCheckpoint(pick.id);
    }),
    reg('karyi.setApiKey', async () => {
      if (!(await p.secrets.promptApiKey())) return;
      if (p.chat.state.busy) {
        void vscode.window.showInformationMessage('Karyi: the key is saved; it is used after the current turn, when the server restarts (Karyi: Restart Server).');
        return;
      }
      if (await p.server.restart()) {
        p.chat.dispatch({ kind: 'notice', level: 'info', text: "The API key is saved in VS Code's secret storage; the server was restarted with it." });
      }
    }),
    reg('karyi.restartServer', async () => {
      p.previews.forgetAll();
      if (await p.server.restart()) p.chat.dispatch({ kind: 'notice', level: 'info', text: 'The Karyi server was restarted; the chat goes on in the same session.' });
    }),
    reg('karyi.showServerLog', () => p.server.output.show(true)),
    reg('karyi.showTools', () => showTools(p.server)),
    reg('karyi.openSettings', () => vscode.commands.executeCommand('workbench.action.openSettings', '@ext:karyi.karyi')),
  ];
}
