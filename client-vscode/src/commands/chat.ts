/** The chat's commands: opening it, what goes into it, its mode, slash commands, checkpoints. */
import * as vscode from 'vscode';
import { inlineChat } from '../features/chat/inlineChat';
import { imageFrom } from '../shared/images';
import type { Commands, Parts } from './parts';
import { task } from './tasks';

async function attachImage(p: Parts): Promise<void> {
  const picked = await vscode.window.showOpenDialog({ canSelectMany: true, openLabel: 'Attach', filters: { Images: ['png', 'jpg', 'jpeg', 'gif', 'webp'] } });
  if (!picked?.length) return;
  await p.view.reveal();
  for (const uri of picked) {
    const name = uri.path.split('/').pop() ?? 'image';
    const image = imageFrom(await vscode.workspace.fs.readFile(uri), name);
    if (typeof image === 'string') void vscode.window.showErrorMessage(`Karyi: ${image}`);
    else p.view.post({ type: 'attachImage', image });
  }
}

async function runCommand(p: Parts): Promise<void> {
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
}

async function restoreCheckpoint(p: Parts): Promise<void> {
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
}

export const CHAT_COMMANDS: Commands = {
  'karyi.openChat': (p) => p.view.reveal(),
  'karyi.newChat': async (p) => {
    p.chat.newChat();
    await p.view.reveal();
  },
  'karyi.chat': async (p, arg?: string | { message?: string }) => {
    const message = typeof arg === 'string' ? arg : arg?.message;
    if (message) await task(p, message, {});
    else await p.view.reveal();
  },
  'karyi.addFileToChat': async (p, uri?: vscode.Uri) => {
    const target = uri instanceof vscode.Uri ? uri : vscode.window.activeTextEditor?.document.uri;
    if (!target) return;
    await p.view.reveal();
    p.view.post({ type: 'insertMention', path: vscode.workspace.asRelativePath(target, false) });
  },
  'karyi.attachImage': attachImage,
  'karyi.inlineChat': (p) => inlineChat(p.chat),
  'karyi.cancel': (p) => p.chat.stop(),
  'karyi.planMode': async (p) => {
    await p.chat.setMode('plan');
    await p.view.reveal();
  },
  'karyi.actMode': async (p) => {
    await p.chat.setMode('act');
    await p.view.reveal();
  },
  'karyi.runCommand': runCommand,
  'karyi.toggleMode': (p) => p.chat.setMode(p.chat.state.mode === 'plan' ? 'act' : 'plan'),
  'karyi.showTerminal': (p) => p.terminal.show(),
  'karyi.restoreCheckpoint': restoreCheckpoint,
};
