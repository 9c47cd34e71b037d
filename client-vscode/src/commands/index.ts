/**
 * Command palette and context-menu commands, registered from tables by id: the chat's
 * (chat.ts), the editor tasks (tasks.ts), the edit preview's (edits.ts), the server's
 * (server.ts), code review (review.ts). The agents' commands are the Agents view's
 * (features/agents/actions.ts).
 */
import * as vscode from 'vscode';
import { CHAT_COMMANDS } from './chat';
import { EDIT_COMMANDS } from './edits';
import type { Commands, Parts } from './parts';
import { REVIEW_COMMANDS } from './review';
import { SERVER_COMMANDS } from './server';
import { TASK_COMMANDS } from './tasks';

export type { Parts } from './parts';
export { TASKS } from './tasks';

/** Every command of the tables above, by id. */
export const COMMANDS: Commands = { ...CHAT_COMMANDS, ...TASK_COMMANDS, ...EDIT_COMMANDS, ...SERVER_COMMANDS, ...REVIEW_COMMANDS };

/** Register every command of the tables; the disposables unregister them. */
export function registerCommands(p: Parts): vscode.Disposable[] {
  return Object.entries(COMMANDS).map(([id, run]) => vscode.commands.registerCommand(id, (...args: unknown[]) => run(p, ...args)));
}
