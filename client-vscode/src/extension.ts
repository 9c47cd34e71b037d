/** Activation: the server, the chat view, the Agents view, inline previews, the terminal, the status bar, the commands. */
import * as vscode from 'vscode';
import { registerAgentCommands } from './features/agents/actions';
import { AgentsView } from './views/agents/tree';
import { ChatController } from './features/chat/controller';
import { ChatViewProvider, VIEW_ID } from './views/chat/provider';
import { registerCommands } from './commands';
import { ChangesView } from './views/changes/tree';
import { PreviewManager } from './features/preview/manager';
import { WritingPreview } from './features/preview/writing';
import { saveSynced } from './server/saver';
import { Secrets } from './server/secrets';
import { KaryiServer } from './server';
import { StatusItem } from './features/status';
import { PinnedItem } from './features/pinned';
import { AgentTerminal } from './features/terminal';

export interface KaryiApi {
  server: KaryiServer;
  chat: ChatController;
  previews: PreviewManager;
  view: ChatViewProvider;
  terminal: AgentTerminal;
  pinned: PinnedItem;
}

export async function activate(context: vscode.ExtensionContext): Promise<KaryiApi> {
  const secrets = new Secrets(context.secrets);
  const server = new KaryiServer(context, secrets);
  const chat = new ChatController(server, context.workspaceState);
  const previews = new PreviewManager((params) => chat.confirm(params));
  chat.edits = previews;
  const fileStates = previews.onDidChangeFileState((change) => chat.dispatch({ kind: 'fileState', ...change }));
  const proposing = (key: string) => previews.pending().some((c) => c.files.some((f) => f.key === key && !f.gone));
  const writing = new WritingPreview((doc) => server.resync(doc), proposing);
  previews.writing = chat.writing = writing;
  const view = new ChatViewProvider(context.extensionUri, chat);
  const terminal = new AgentTerminal(server, chat);
  const agents = new AgentsView(server);
  const pinned = new PinnedItem(server);
  context.subscriptions.push(
    agents,
    ...registerAgentCommands(server, agents, previews),
    server,
    chat,
    previews,
    fileStates,
    writing,
    new ChangesView(previews),
    view,
    terminal,
    new StatusItem(chat, server),
    pinned,
    vscode.window.registerWebviewViewProvider(VIEW_ID, view, { webviewOptions: { retainContextWhenHidden: true } }),
    ...registerCommands({ chat, view, previews, server, secrets, terminal, pinned }),
    server.onTurnUpdate((u) => {
      if (u.event.type === 'toolDone' || u.event.type === 'fileChanged') void saveSynced();
      if (u.event.type === 'turnFinished') previews.forgetAll();
    }),
    server.onState(({ state }) => {
      if (state === 'failed') previews.forgetAll();
      if (state !== 'running') writing.clearAll();
    }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('karyi.server')) {
        void vscode.window.showInformationMessage('Karyi: the server settings changed.', 'Restart Server').then((c) => {
          if (c) void vscode.commands.executeCommand('karyi.restartServer');
        });
      } else if (e.affectsConfiguration('karyi')) server.notifyConfigurationChanged();
    }),
  );
  void server.start();
  return { server, chat, previews, view, terminal, pinned };
}

export function deactivate(): void {
  /* everything is in context.subscriptions */
}
