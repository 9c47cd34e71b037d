/**
 * "Start Background Task" from the chat input (docs/parallel.md, "In VS Code"): `/task
 * TEXT` runs TEXT as a background task in its own worktree instead of a turn of the chat.
 * The command is the extension's own (the server does not know it), so it is offered in
 * the input's completion next to the server's commands. Pure functions, unit-tested.
 */
import type { MemoryFile, SlashCommand } from '../protocol';

/** `/task` in the chat input's completion. */
export const TASK_COMMAND: SlashCommand = {
  name: 'task',
  description: 'Run the rest of the message as a background task in its own git worktree (review it in the Agents view)',
  scope: 'builtin',
  path: '',
};

/** The task a chat message starts (`''` for a bare `/task`: ask for it), or undefined when
 * the message is not a `/task` command. */
export function taskFromChat(text: string): string | undefined {
  const m = /^\s*\/task(?:\s+([\s\S]*))?$/.exec(text);
  return m ? (m[1] ?? '').trim() : undefined;
}

/** What the chat says once the task started. */
export function startedNote(t: { task: string; branch: string }): string {
  const first = t.task.split('\n')[0].trim();
  const name = first.length > 60 ? `${first.slice(0, 59)}…` : first;
  return `Started background task "${name}" in its own worktree (branch ${t.branch}): follow it, review and apply it in the Agents view.`;
}

/** Whether a chat message is `/memory` (docs/extensions.md#memory): the extension opens
 * the memory files instead of starting a turn. */
export function isMemoryCommand(text: string): boolean {
  return /^\s*\/memory\s*$/.test(text);
}

/** What the chat says after `/memory` opened the files that exist. */
export function memoryNote(files: MemoryFile[]): string {
  const line = (f: MemoryFile) => `${f.scope}: ${f.path}${f.exists ? '' : ' (not written yet)'}`;
  return `Memory files:\n${files.map(line).join('\n')}`;
}
