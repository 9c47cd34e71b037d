/**
 * "Karyi Agent Terminal": a Pseudoterminal mirroring the session's pty
 * (`karyi/terminalOutput`), with the user's typing passed through (`karyi/terminalInput`).
 */
import * as vscode from 'vscode';
import type { ChatController } from './chat/controller';
import { Methods } from '../protocol';
import type { KaryiServer } from '../server';

const KEEP = 256 * 1024;

export class AgentTerminal implements vscode.Disposable {
  private terminal: vscode.Terminal | undefined;
  private readonly write = new vscode.EventEmitter<string>();
  private opened = false;
  /** What the agent's terminal printed lately (replayed when the terminal opens). */
  backlog = '';
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly server: KaryiServer,
    private readonly chat: ChatController,
  ) {
    this.disposables.push(
      server.onTerminalOutput(({ sessionId, data }) => {
        if (sessionId !== chat.state.sessionId) return;
        this.backlog = (this.backlog + data).slice(-KEEP);
        if (this.opened) this.write.fire(data);
      }),
      vscode.window.onDidCloseTerminal((t) => {
        if (t === this.terminal) {
          this.terminal = undefined;
          this.opened = false;
        }
      }),
      this.write,
    );
  }

  show(): void {
    if (!this.terminal) {
      const pty: vscode.Pseudoterminal = {
        onDidWrite: this.write.event,
        open: () => {
          this.opened = true;
          this.write.fire(this.backlog || '\x1b[2mKaryi\'s terminal: commands the agent runs appear here; what you type goes to it.\x1b[0m\r\n');
        },
        close: () => {
          this.opened = false;
        },
        handleInput: (data) => {
          const sessionId = this.chat.state.sessionId;
          if (!sessionId) {
            this.write.fire('\r\n\x1b[33m(no Karyi session yet: start a chat first)\x1b[0m\r\n');
            return;
          }
          void this.server.request(Methods.terminalInput, { sessionId, data }).catch((err: unknown) => {
            this.write.fire(`\r\n\x1b[31m${err instanceof Error ? err.message : String(err)}\x1b[0m\r\n`);
          });
        },
      };
      this.terminal = vscode.window.createTerminal({ name: 'Karyi Agent', pty });
    }
    this.terminal.show(true);
  }

  dispose(): void {
    this.terminal?.dispose();
    for (const d of this.disposables) d.dispose();
  }
}
