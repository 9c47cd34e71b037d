/** The status bar item: the model and the turn state; a click opens the chat. */
import * as vscode from 'vscode';
import type { ChatController } from './chat/controller';
import { turnState } from '../shared/chat/state';
import type { KaryiServer } from '../server';

const TEXT = { idle: 'idle', thinking: 'thinking…', tool: 'running a tool…', awaiting: 'awaiting you' } as const;
const ICON = { idle: '$(hubot)', thinking: '$(loading~spin)', tool: '$(gear~spin)', awaiting: '$(bell-dot)' } as const;

export class StatusItem implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('karyi.status', vscode.StatusBarAlignment.Right, 100);
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly chat: ChatController,
    private readonly server: KaryiServer,
  ) {
    this.item.name = 'Karyi';
    this.item.command = 'karyi.openChat';
    this.disposables.push(chat.onDidChange(() => this.update()), server.onState(() => this.update()), vscode.workspace.onDidChangeConfiguration(() => this.update()));
    this.update();
    this.item.show();
  }

  update(): void {
    const model = this.chat.state.model || vscode.workspace.getConfiguration('karyi').get<string>('model') || 'default model';
    if (this.server.state === 'failed' || this.server.state === 'stopped') {
      this.item.text = `$(error) Karyi: server ${this.server.state === 'failed' ? 'down' : 'stopped'}`;
      this.item.tooltip = 'The Karyi server is not running. Click to open the chat (it offers a restart).';
      this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.errorBackground');
      return;
    }
    const state = this.server.state === 'starting' ? 'thinking' : turnState(this.chat.state);
    const mode = this.chat.state.mode === 'plan' ? ' · plan mode' : '';
    this.item.text = `${ICON[state]} Karyi: ${model}${mode} · ${this.server.state === 'starting' ? 'starting…' : TEXT[state]}`;
    this.item.tooltip = `Karyi ${this.server.serverVersion} — ${TEXT[state]}. Click to open the chat.`;
    this.item.backgroundColor = state === 'awaiting' ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
  }

  dispose(): void {
    this.item.dispose();
    for (const d of this.disposables) d.dispose();
  }
}
