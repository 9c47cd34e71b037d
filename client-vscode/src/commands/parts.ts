/** What the commands act on, and the shape of a command in the tables (index.ts). */
import type { ChatController } from '../features/chat/controller';
import type { PreviewManager } from '../features/preview/manager';
import type { PinnedItem } from '../features/pinned';
import type { AgentTerminal } from '../features/terminal';
import type { KaryiServer } from '../server';
import type { Secrets } from '../server/secrets';
import type { ChatViewProvider } from '../views/chat/provider';

export interface Parts {
  chat: ChatController;
  view: ChatViewProvider;
  previews: PreviewManager;
  server: KaryiServer;
  secrets: Secrets;
  terminal: AgentTerminal;
  pinned: PinnedItem;
}

/** A command: the parts, then the arguments VS Code passes (a menu's, a code action's, a lens's). */
export type Command = (p: Parts, ...args: any[]) => unknown;

/** Commands by id (package.json `contributes.commands`). */
export type Commands = Record<string, Command>;
