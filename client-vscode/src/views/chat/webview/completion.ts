/**
 * The chat input's completions as pure functions over the draft and its caret: `@file`
 * (and `@problems`, `@folder:`, … which the extension host ranks) and `/command` as the
 * message's first word. The composer applies them; the store keeps the result.
 */
import type { SlashCommand } from '../../../protocol';

/** One row of the popup: a path or mention, or a command with what it does. */
export interface CompletionItem {
  name: string;
  note?: string;
}

export interface Completion {
  kind: 'file' | 'command';
  items: CompletionItem[];
  active: number;
}

/** The `@query` being typed just before the caret, or undefined. */
export function mentionQuery(draft: string, caret: number): string | undefined {
  const m = /(?:^|\s)@([^\s@]*)$/.exec(draft.slice(0, caret));
  return m ? m[1] : undefined;
}

/** The `/na` being typed as the message's first word, or undefined. */
export function commandQuery(draft: string, caret: number): string | undefined {
  const m = /^\/([\w-]*)$/.exec(draft.slice(0, caret));
  return m ? m[1] : undefined;
}

/** The commands that start with what is typed, or undefined when none or no query. */
export function commandCompletion(commands: SlashCommand[] | undefined, draft: string, caret: number): Completion | undefined {
  const q = commandQuery(draft, caret);
  if (q === undefined || !commands) return undefined;
  const hits = commands.filter((c) => c.name.startsWith(q));
  return hits.length ? { kind: 'command', items: hits.map((c) => ({ name: c.name, note: c.description })), active: 0 } : undefined;
}

/** What typing asks for: the command list (`list`), files for a query (`files`), or nothing. */
export type Wanted = { kind: 'list' } | { kind: 'files'; query: string } | { kind: 'none'; completion?: Completion };

export function wanted(commands: SlashCommand[] | undefined, draft: string, caret: number): Wanted {
  if (commandQuery(draft, caret) !== undefined) {
    if (commands === undefined || draft === '/') return { kind: 'list' };
    return { kind: 'none', completion: commandCompletion(commands, draft, caret) };
  }
  const q = mentionQuery(draft, caret);
  return q === undefined ? { kind: 'none' } : { kind: 'files', query: q };
}

/** The highlighted row moved by `delta`, wrapping around. */
export function moved(c: Completion, delta: number): Completion {
  return { ...c, active: (c.active + delta + c.items.length) % c.items.length };
}

/** The draft after picking a row: the text, the caret, and a mention that is now in it. */
export interface Accepted {
  draft: string;
  caret: number;
  mention?: string;
  /** `@folder:` and `@url:` take an argument next: complete again on it. */
  again?: string;
}

export function accepted(c: Completion, i: number, draft: string, caret: number): Accepted {
  const name = c.items[i].name;
  if (c.kind === 'command') {
    return { draft: `/${name} ${draft.slice(caret)}`.replace(/ +$/, ' '), caret: name.length + 2 };
  }
  const open = name.endsWith(':');
  const before = draft.slice(0, caret).replace(/@([^\s@]*)$/, `@${name}${open ? '' : ' '}`);
  return { draft: before + draft.slice(caret), caret: before.length, mention: open ? undefined : name, again: open ? name : undefined };
}

/** The mentions a message carries: picked ones still in the text, then any typed `@x`. */
export function usedMentions(text: string, picked: string[]): string[] {
  const used = picked.filter((m) => text.includes(`@${m}`));
  for (const m of text.matchAll(/(?:^|\s)@([\w./\\:-]+)/g)) if (!used.includes(m[1])) used.push(m[1]);
  return used;
}
