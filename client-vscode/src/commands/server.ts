/** The server's commands: the API key, restarting, its log, its tools, the settings, the pinned ones. */
import * as vscode from 'vscode';
import { showPinned } from '../features/pinned';
import { showTools } from '../features/tools';
import type { Commands, Parts } from './parts';

async function setApiKey(p: Parts): Promise<void> {
  if (!(await p.secrets.promptApiKey())) return;
  if (p.chat.state.busy) {
    void vscode.window.showInformationMessage('Karyi: the key is saved; it is used after the current turn, when the server restarts (Karyi: Restart Server).');
    return;
  }
  if (await p.server.restart()) {
    p.chat.dispatch({ kind: 'notice', level: 'info', text: "The API key is saved in VS Code's secret storage; the server was restarted with it." });
  }
}

export const SERVER_COMMANDS: Commands = {
  'karyi.setApiKey': setApiKey,
  'karyi.restartServer': async (p) => {
    p.previews.forgetAll();
    if (await p.server.restart()) p.chat.dispatch({ kind: 'notice', level: 'info', text: 'The Karyi server was restarted; the chat goes on in the same session.' });
  },
  'karyi.showServerLog': (p) => p.server.output.show(true),
  'karyi.showTools': (p) => showTools(p.server),
  'karyi.showPinnedSettings': (p) => showPinned(p.pinned),
  'karyi.openSettings': () => vscode.commands.executeCommand('workbench.action.openSettings', '@ext:karyi.karyi'),
};
