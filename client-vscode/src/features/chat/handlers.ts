/**
 * What the chat panel asks of the extension host: one handler per message type of
 * `FromWebview`, in a table typed by that union, so a message type without a handler
 * fails to compile.
 */
import * as vscode from 'vscode';
import type { ChatContext } from '../../protocol';
import type { FromWebview, ToWebview } from '../../shared/chat/messages';
import { turnState } from '../../shared/chat/state';
import { isMemoryCommand, taskFromChat } from '../../shared/fromChat';
import { isSpecial } from '../../shared/mentions';
import type { ChatController, SendOptions } from './controller';
import { forkFrom, rewindTo } from './timeline';
import { askValue, refuseValue } from './values';
import { WorkspaceFiles } from './workspaceFiles';

/** What a handler may use besides the message. */
export interface HandlerContext {
  chat: ChatController;
  files: WorkspaceFiles;
  /** The editor's selection as context, when the message asks for it. */
  selectionContext: () => SendOptions | undefined;
  post: (m: ToWebview) => void;
}

type Handler<K extends FromWebview['type']> = (m: Extract<FromWebview, { type: K }>, c: HandlerContext) => void | Promise<void>;

/** The palette commands the chat's buttons run. */
const COMMANDS = {
  restartServer: 'karyi.restartServer',
  setApiKey: 'karyi.setApiKey',
  openSettings: 'karyi.openSettings',
  showLog: 'karyi.showServerLog',
  showTerminal: 'karyi.showTerminal',
} as const;

/** A message typed in the chat: a `/task`, or a turn with the selection and @files as context. */
const send: Handler<'send'> = async (m, { chat, selectionContext }) => {
  const task = taskFromChat(m.text);
  if (task !== undefined) {
    await chat.startTask(task);
    return;
  }
  if (isMemoryCommand(m.text)) {
    await chat.openMemory();
    return;
  }
  const sel = m.withSelection ? selectionContext() : undefined;
  const context: ChatContext = { ...(sel?.context ?? {}) };
  // @problems, @diff, @folder:… stay in the text: the server expands them.
  const fileUris = m.mentions.filter((p) => !isSpecial(p)).map((p) => WorkspaceFiles.toUri(p)).filter((u): u is string => !!u);
  if (fileUris.length) context.files = fileUris;
  const labels = [sel?.contextLabel, ...m.mentions.map((p) => `@${p}`)].filter(Boolean);
  const options: SendOptions = { context: Object.keys(context).length ? context : undefined, contextLabel: labels.join(' · ') || undefined, plan: m.plan, images: m.images };
  await (m.now ? chat.steer(m.text, options) : chat.send(m.text, options));
};

const HANDLERS: { [K in FromWebview['type']]: Handler<K> } = {
  ready: (_m, { chat }) => {
    chat.sync();
    void chat.showRules();
    void chat.refreshModel();
  },
  send,
  queued: async (m, { chat }) => {
    if (m.action === 'send') await chat.sendQueued(m.id);
    else if (m.action === 'remove') chat.dispatch({ kind: 'queueRemove', id: m.id });
    else if (m.text?.trim()) chat.dispatch({ kind: 'queueEdit', id: m.id, text: m.text.trim() });
  },
  rewind: (m, { chat }) => rewindTo(chat, m.turnId),
  fork: (m, { chat }) => forkFrom(chat, m.turnId),
  setMode: (m, { chat }) => chat.setMode(m.mode),
  listModels: async (_m, { chat, post }) => post({ type: 'models', list: await chat.models() }),
  setModel: (m, { chat }) => chat.setModel(m.model),
  listCommands: async (_m, { chat, post }) => post({ type: 'commands', items: await chat.slashCommands() }),
  stop: async (m, { chat }) => {
    // The host's state is ahead of the webview's: a proposal it already shows in the
    // editor is never thrown away by an Escape the webview sent before it knew.
    if (m.key === 'escape' && turnState(chat.state) === 'awaiting') return;
    await chat.stop();
  },
  newChat: (_m, { chat }) => chat.newChat(),
  permission: (m, { chat }) => chat.permission(m.callId, m.choice, m.feedback),
  edits: async (m, { chat }) => {
    if (m.action === 'acceptAll') await chat.edits?.acceptAll(m.callId);
    else if (m.action === 'rejectAll') await chat.edits?.rejectAll(m.callId);
    else await chat.edits?.reveal(m.callId, m.path);
  },
  value: (m, { chat }) => (m.action === 'refuse' ? refuseValue(chat, m.callId) : askValue(chat, m.callId, m.action === 'enterAndSave')),
  completeFiles: async (m, { files, post }) => post({ type: 'files', requestId: m.requestId, items: await files.complete(m.query) }),
  listSessions: async (_m, { chat, post }) => post({ type: 'sessions', sessions: await chat.sessions(), current: chat.state.sessionId }),
  loadSession: (m, { chat }) => chat.loadSession(m.sessionId),
  deleteSession: async (m, { chat, post }) => {
    await chat.deleteSession(m.sessionId);
    post({ type: 'sessions', sessions: await chat.sessions(), current: chat.state.sessionId });
  },
  listCheckpoints: async (_m, { chat, post }) => post({ type: 'checkpoints', checkpoints: await chat.checkpoints() }),
  restoreCheckpoint: (m, { chat }) => chat.restoreCheckpoint(m.checkpointId),
  command: async (m) => {
    await vscode.commands.executeCommand(COMMANDS[m.command]);
  },
  openFile: async (m) => {
    const uri = WorkspaceFiles.toUri(m.path);
    if (uri) await vscode.window.showTextDocument(vscode.Uri.parse(uri), { preview: true });
  },
  copy: async (m) => {
    await vscode.env.clipboard.writeText(m.text);
  },
};

/** Run the handler of a message from the webview (views/chat); a failure is shown, not thrown. */
export async function handleMessage(m: FromWebview, c: HandlerContext): Promise<void> {
  try {
    await (HANDLERS[m.type] as Handler<FromWebview['type']>)(m, c);
  } catch (err) {
    void vscode.window.showErrorMessage(`Karyi: ${err instanceof Error ? err.message : String(err)}`);
  }
}
