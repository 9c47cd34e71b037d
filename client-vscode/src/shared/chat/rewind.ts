/**
 * What *Rewind to here* offers (docs/vscode.md#rewind-and-fork): the three choices with
 * the files each would change, from the server's dry run (`karyi/rewind`), and the line
 * the chat shows after it. Pure, so the words are tested without VS Code.
 */
import type { Restore, RewindFile, RewindResult } from '../../protocol';

/** One choice of the picker (a VS Code QuickPickItem with the restore it stands for). */
export interface RewindChoice {
  label: string;
  description: string;
  detail: string;
  restore: Restore;
}

function plural(n: number, one: string): string {
  return `${n} ${one}${n === 1 ? '' : 's'}`;
}

/** A file as the picker names it: what happens to it, and whose change it undoes. */
export function fileLine(f: RewindFile): string {
  return f.byAgent ? `${f.path} (${f.effect})` : `${f.path} (yours: kept unless you pick it)`;
}

/** The files restoring the code would touch, in one line. */
function codeDetail(dry: RewindResult): string {
  if (!dry.checkpoint || !dry.files.length) return 'No file changed since: the code stays as it is.';
  return `Files: ${dry.files.map(fileLine).join(', ')}`;
}

/** The three choices, code and conversation first (the default). */
export function rewindChoices(dry: RewindResult): RewindChoice[] {
  const turns = `${plural(dry.turns, 'turn')} ${dry.turns === 1 ? 'leaves' : 'leave'} the conversation`;
  const files = dry.checkpoint ? plural(dry.files.length, 'file') : 'no file';
  return [
    { label: 'Code and conversation', description: `${turns}; ${files} restored`, detail: codeDetail(dry), restore: 'both' },
    { label: 'Conversation only', description: `${turns}; the files stay as they are`, detail: 'The model forgets the later turns; your workspace is not touched.', restore: 'conversation' },
    { label: 'Code only', description: `${files} restored; the conversation goes on`, detail: codeDetail(dry), restore: 'code' },
  ];
}

/** The user's own changes a code restore would overwrite if asked: kept unless picked. */
export function usersFiles(dry: RewindResult, restore: Restore): RewindFile[] {
  return restore === 'conversation' ? [] : dry.files.filter((f) => !f.byAgent);
}

/** What the chat says once the rewind is done. */
export function rewoundText(done: RewindResult): string {
  const parts: string[] = [];
  if (done.conversation) parts.push(`${plural(done.turns, 'turn')} rewound out of the conversation`);
  if (done.restored.length) parts.push(`restored ${done.restored.join(', ')}`);
  if (done.kept.length) parts.push(`kept your changes to ${done.kept.join(', ')}`);
  if (done.undoCheckpoint) parts.push(`the files from before are in checkpoint ${done.undoCheckpoint}`);
  return `↶ Rewound: ${parts.join('; ') || 'nothing to change'}. Your message is back in the input.`;
}
