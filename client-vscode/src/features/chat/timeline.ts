/**
 * Going back in a session from the chat (docs/vscode.md#rewind-and-fork): *Rewind to
 * here* (`karyi/rewind`: a dry run first, the three choices with the files each would
 * change, the user's own files kept unless picked) and *Fork from here*
 * (`karyi/forkSession`); either way the chat then shows the session the server has.
 */
import * as vscode from 'vscode';
import { Methods } from '../../protocol';
import { rewindChoices, rewoundText, usersFiles } from '../../shared/chat/rewind';
import type { ChatController } from './controller';

/** A turn runs: rewinding or forking now would race it, so the user is told to wait. */
function refusedWhileBusy(chat: ChatController, what: string): boolean {
  if (!chat.state.busy) return false;
  void vscode.window.showWarningMessage(`Karyi is working: stop the turn (or let it end) before you ${what}.`);
  return true;
}

/** Which of the user's own changes to overwrite (none picked: all kept); undefined: cancelled. */
async function overwrites(files: { path: string }[]): Promise<string[] | undefined> {
  if (!files.length) return [];
  const items = files.map((f) => ({ label: f.path, description: 'changed since by you (or a command): kept unless picked' }));
  const picked = await vscode.window.showQuickPick(items, {
    title: 'Your own changes are kept',
    placeHolder: 'Pick any to overwrite with the checkpoint; Enter keeps them all',
    canPickMany: true,
    ignoreFocusOut: true,
  });
  return picked?.map((p) => p.label);
}

/** *Rewind to here* on the user message that started `turnId`. */
export async function rewindTo(chat: ChatController, turnId: string): Promise<void> {
  const sessionId = chat.state.sessionId;
  if (!sessionId || refusedWhileBusy(chat, 'rewind')) return;
  const dry = await chat.server.request(Methods.rewind, { sessionId, turnId, restore: 'both', dryRun: true });
  const quoted = dry.prompt.length > 60 ? `${dry.prompt.slice(0, 57)}…` : dry.prompt;
  const choice = await vscode.window.showQuickPick(rewindChoices(dry), { title: `Rewind to before “${quoted}”`, placeHolder: 'What to take back', ignoreFocusOut: true });
  if (!choice) return;
  const overwrite = await overwrites(usersFiles(dry, choice.restore));
  if (!overwrite) return;
  if (refusedWhileBusy(chat, 'rewind')) return;
  const done = await chat.server.request(Methods.rewind, { sessionId, turnId, restore: choice.restore, overwrite: overwrite.length ? overwrite : undefined });
  await chat.loadSession(sessionId);
  chat.dispatch({ kind: 'notice', level: 'info', text: rewoundText(done) });
  chat.prefill(done.prompt);
}

/** *Fork from here*: a new session with the turns up to and including `turnId`, shown in the chat. */
export async function forkFrom(chat: ChatController, turnId: string): Promise<void> {
  const sessionId = chat.state.sessionId;
  if (!sessionId || refusedWhileBusy(chat, 'fork')) return;
  const title = chat.state.title;
  const forked = await chat.server.request(Methods.forkSession, { sessionId, turnId });
  await chat.loadSession(forked.sessionId);
  chat.dispatch({ kind: 'notice', level: 'info', text: `Forked${title ? ` from “${title}”` : ''}: this is a new session, “${forked.title}”; the original is unchanged, in History.` });
}
